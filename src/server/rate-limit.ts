/**
 * `chatctl serve --rate-limit`: the API rate limits of a current Zulip server, so clients can be tested
 * against them. Each user (or, for requests that do not authenticate, each client address) has a log of
 * the times of its accepted requests; a request is refused while any rule's window already holds its
 * number of calls, as Zulip's sliding-window limiter does (`lib/rate_limiter.py`). Refused requests are
 * not counted. Headers describe the last (longest) rule only, as a current server's do:
 * `X-RateLimit-Limit` its calls, `-Remaining` what is left of it, `-Reset` the UNIX second at which its
 * window is empty again (the newest call plus the window: about an hour ahead), and a 429 carries
 * `Retry-After` and the body's `retry-after` in float seconds.
 *
 * The logs live in the serving process's memory: restarting `serve` forgets them. The in-process embedded
 * transport never goes through here.
 */
import { API_BY_IP, API_BY_USER, RATE_LIMIT_MESSAGE, type RateRule } from '../api/rate-limits.js';
import type { WireResponse } from '../api/wire.js';
import { nowMs as systemNowMs } from '../time.js';

export interface Admission {
  /** The X-RateLimit-* headers for the response. */
  headers: Record<string, string>;
  /** Present when the request is refused: the 429 to send instead of handling it. */
  refusal?: WireResponse;
}

export class RateLimiter {
  /** Accepted requests' times (ms) per key, oldest first, at most the longest rule's calls. */
  private readonly logs = new Map<string, number[]>();
  /** The longest window of any rule so far (ms), and admissions since idle logs were last dropped. */
  private longest = 0;
  private sinceEviction = 0;

  constructor(private readonly nowMs: () => number = systemNowMs) {}

  /** Counts one request of `key` against `rules` (shortest window first), or refuses it. */
  admit(key: string, rules: readonly RateRule[]): Admission {
    const now = this.nowMs();
    const last = rules[rules.length - 1]!;
    const log = this.logs.get(key) ?? [];
    const horizon = Math.max(...rules.map((r) => r.seconds)) * 1000;
    this.longest = Math.max(this.longest, horizon);
    if (++this.sinceEviction >= EVICT_EVERY) this.evictIdle(now);
    while (log.length && log[0]! <= now - horizon) log.shift();
    let waitMs = 0;
    for (const rule of rules) {
      // The call that must leave the window before another fits: the rule's calls-th newest.
      const blocking = log[log.length - rule.calls];
      if (blocking !== undefined && blocking > now - rule.seconds * 1000) waitMs = Math.max(waitMs, blocking + rule.seconds * 1000 - now);
    }
    const limit = String(last.calls);
    if (waitMs > 0) {
      const retryAfter = waitMs / 1000;
      const headers = { 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor((now + waitMs) / 1000)) };
      return {
        headers,
        refusal: {
          status: 429,
          headers: { 'content-type': 'application/json', ...headers, 'retry-after': String(retryAfter) },
          body: { result: 'error', msg: RATE_LIMIT_MESSAGE, code: 'RATE_LIMIT_HIT', 'retry-after': retryAfter },
        },
      };
    }
    log.push(now);
    if (log.length > Math.max(...rules.map((r) => r.calls))) log.shift();
    this.logs.set(key, log);
    const inLast = log.filter((t) => t > now - last.seconds * 1000).length;
    return {
      headers: {
        'x-ratelimit-limit': limit,
        'x-ratelimit-remaining': String(last.calls - inLast),
        'x-ratelimit-reset': String(Math.floor((now + last.seconds * 1000) / 1000)),
      },
    };
  }

  /**
   * Forgets keys whose newest request has left every window: their log counts nothing any more, and each
   * client address that ever came by would otherwise keep one for as long as `serve` runs.
   */
  private evictIdle(now: number): void {
    this.sinceEviction = 0;
    for (const [key, log] of this.logs) if (!log.length || log[log.length - 1]! <= now - this.longest) this.logs.delete(key);
  }
}

/** Admissions between two sweeps of idle logs: the sweep's cost, spread thin. */
const EVICT_EVERY = 1000;

/** Who a request is counted against: the authenticated user, or the client address of an operation without authentication. */
export type Requester = { userId: number } | { address: string };

/** Counts a request that reached an operation and authenticated (the router asks; see HandleOptions.admit in answering.ts). */
export type Admit = (who: Requester) => Admission;

/** The admission of a request to `serve`, by Zulip's rules: per user when authenticated, per address otherwise. */
export function zulipRateLimits(limiter = new RateLimiter()): Admit {
  return (who) => ('userId' in who ? limiter.admit(`user:${who.userId}`, API_BY_USER) : limiter.admit(`ip:${who.address}`, API_BY_IP));
}
