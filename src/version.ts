import { readFileSync } from 'node:fs';

/** chatctl's version, from the package manifest it ships with. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const USER_AGENT = `chatctl/${VERSION}`;
