/**
 * The clock, one unit per name: `nowMs` is milliseconds since the epoch (Date.now), `nowSeconds` whole
 * seconds (the wire's timestamps). Code that takes a clock for tests takes one of these shapes.
 */
export const nowMs = (): number => Date.now();
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
