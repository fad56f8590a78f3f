/**
 * Pacing against a server's rate limit, so bulk work slows down before it is refused rather than after.
 *
 * A Zulip server reports on every response `X-RateLimit-Remaining` (requests left) and
 * `X-RateLimit-Reset` (UNIX seconds when the window is free again). The pacer keeps the last report,
 * counts the requests sent since that are still unanswered, and before each request:
 * - lets it go while more than `reserve` requests are left;
 * - once `lowWater` or fewer are left, spreads them evenly over the time to the reset;
 * - with none left, waits for the reset (if that is within `maxWaitMs`; otherwise lets the request go and
 *   the 429 handling decides).
 * The reset is converted to local time with the response's `Date`, so a skewed client clock does not
 * matter. One pacer serves one client (one user's limit); the bulk pool consults the same object.
 */
import { sleep } from './retry.js';

export interface PacerOptions {
  /** Local clock, ms. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Requests left untouched for the user's other clients. */
  reserve?: number;
  /** From this many requests left, sends are spread over the rest of the window. */
  lowWater?: number;
  /** The longest pacing wait; beyond it requests go and meet the server's 429. */
  maxWaitMs?: number;
  /** Told once per window when pacing starts to slow requests down or to wait for the reset. */
  onWait?: (message: string) => void;
}

export class Pacer {
  private remaining: number | undefined;
  private limit: number | undefined;
  /** Local ms at which the server's window is free again. */
  private resetAt = 0;
  private inFlight = 0;
  private lastSentAt = 0;
  /** An announced wait for the reset covers waits until then (concurrent workers wait together). */
  private quietUntil = 0;
  private slowingAnnounced = false;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly reserve: number;
  private readonly lowWater: number | undefined;
  private readonly maxWaitMs: number;

  constructor(private readonly opts: PacerOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? sleep;
    this.reserve = opts.reserve ?? 1;
    this.lowWater = opts.lowWater;
    this.maxWaitMs = opts.maxWaitMs ?? 60_000;
  }

  /** Requests the server will still take in this window, by the last report, minus those in flight. */
  get budget(): number | undefined {
    if (this.remaining === undefined || this.now() >= this.resetAt) return undefined;
    return this.remaining - this.inFlight;
  }

  /** How long a request starting now should wait (0: go). */
  delayMs(): number {
    const now = this.now();
    const budget = this.budget;
    if (budget === undefined) return 0;
    const untilReset = this.resetAt - now;
    if (budget <= this.reserve) return untilReset <= this.maxWaitMs ? untilReset : 0;
    if (budget > this.low()) return 0;
    const spacing = untilReset / (budget - this.reserve);
    return Math.max(0, Math.min(this.lastSentAt + spacing - now, this.maxWaitMs));
  }

  private low(): number {
    return this.lowWater ?? Math.max(this.reserve + 1, Math.ceil((this.limit ?? 0) / 10));
  }

  /** Waits until a request may go without reserving it: for pools deciding whether to start an item. */
  async ready(signal?: AbortSignal): Promise<void> {
    const budget = this.budget;
    if (budget === undefined || budget > this.low()) this.slowingAnnounced = false;
    for (let wait = this.delayMs(); wait > 0; wait = this.delayMs()) {
      this.announce(wait);
      await this.sleep(wait, signal);
    }
  }

  /** Waits as `ready` does, then counts one request in flight; pair with `observe` or `release`. */
  async take(signal?: AbortSignal): Promise<void> {
    await this.ready(signal);
    this.inFlight++;
    this.lastSentAt = this.now();
  }

  /** The response to a taken request arrived: read its rate-limit headers. */
  observe(headers: Record<string, string>): void {
    this.release();
    const remaining = Number(headers['x-ratelimit-remaining']);
    const reset = Number(headers['x-ratelimit-reset']);
    if (headers['x-ratelimit-remaining'] === undefined || !Number.isFinite(remaining) || !Number.isFinite(reset)) return;
    const now = this.now();
    const serverNow = headers.date ? Date.parse(headers.date) : Number.NaN;
    this.remaining = remaining;
    this.resetAt = now + (reset * 1000 - (Number.isNaN(serverNow) ? now : serverNow));
    const limit = Number(headers['x-ratelimit-limit']);
    if (Number.isFinite(limit) && limit > 0) this.limit = limit;
  }

  /** A taken request failed without a response. */
  release(): void {
    if (this.inFlight > 0) this.inFlight--;
  }

  private announce(wait: number): void {
    const now = this.now();
    const left = Math.max(0, this.budget ?? 0);
    if (left <= this.reserve) {
      if (now < this.quietUntil) return;
      this.quietUntil = now + wait;
      this.opts.onWait?.(`rate limit nearly used up; waiting ${(wait / 1000).toFixed(1)} s for it to reset`);
    } else if (!this.slowingAnnounced) {
      this.slowingAnnounced = true;
      const until = ((this.resetAt - now) / 1000).toFixed(1);
      this.opts.onWait?.(`rate limit running low (${left} requests left for the next ${until} s); slowing down`);
    }
  }
}
