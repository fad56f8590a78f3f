/**
 * Pacing against a server's rate limits, so bulk work slows down before it is refused rather than after.
 *
 * A Zulip server limits each user by several rules at once (200 requests a minute and 2,000 an hour on
 * current servers, src/api/rate-limits.ts), each a sliding window: a request is refused while the window
 * already holds the rule's number of calls. Its `X-RateLimit-*` headers describe one rule only (the last,
 * hourly one on current servers; the per-minute one on older ones): `Limit` its calls, `Remaining` what is
 * left, `Reset` the UNIX second at which the window is empty again. So the pacer tracks:
 * - the rule the headers describe: the server's count at the last response, which requests of ours will
 *   leave the window when (the times our requests were answered, plus the window), and the rest, made by
 *   the user's other clients, assumed to stay until the reset. A `Limit` that is not one of the documented
 *   rules is treated as one window that frees everything at its reset;
 * - once the server has shown that it limits (it sent the headers once), every documented rule the headers
 *   do not show, counted from our own requests alone; when the server refuses a request although all of
 *   them had room, the shortest one is lowered to the requests it accepted within its window (the user's
 *   other clients share it);
 * - a 429's `retry-after`, which holds every request until then.
 * Before each request it waits until every rule has room for it (and, in the reported rule, `reserve` more
 * for the user's other clients while the headers show them at work), if that is within `maxWaitMs`;
 * otherwise it lets the request go and the 429 handling decides.
 * The reset is converted to local time with the response's `Date`, so a skewed client clock does not
 * matter. One pacer serves one client (one user's limits); the bulk pool consults the same object.
 */
import { nowMs } from '../time.js';
import { API_BY_USER, type RateRule } from '../api/rate-limits.js';
import { DEFAULT_MAX_WAIT_SECONDS } from '../timeouts.js';
import { sleep } from './retry.js';

export interface PacerOptions {
  /** Local clock, ms. */
  nowMs?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The server's documented rules, shortest window first (default: a Zulip server's per-user rules). */
  rules?: readonly RateRule[];
  /** Requests left untouched in the reported rule for the user's other clients, while the headers show them at work. */
  reserve?: number;
  /** The longest pacing wait; beyond it requests go and meet the server's 429. */
  maxWaitMs?: number;
  /** Told when pacing holds requests back noticeably, and when the server shows a rule tighter than the documented one. */
  onWait?: (message: string) => void;
}

/** How a job of some number of requests fits the longest rule the pacer knows of. */
export interface Outlook {
  rule: RateRule;
  /** Requests that may go now. */
  allowed: number;
  /** How long until the last of the job's requests could go (0: all fit now). */
  waitMs: number;
}

/** One rule as the pacer sees it now. */
interface Window {
  rule: RateRule;
  /** Calls in the window: ours answered in it, ours in flight, and the others the server reported. */
  count: number;
  /** When each of those calls leaves the window (local ms), soonest first. */
  frees: number[];
  /** Room kept for the user's other clients. */
  reserved: number;
}

/** What the last response's headers said. */
interface Report {
  limit: number;
  /** The documented rule of that size: a sliding window of known length; absent: unknown, all free at the reset. */
  rule: RateRule | undefined;
  /** Calls in the window that are not ours (or not known to be). */
  others: number;
  /** Local ms at which the server's window is empty again. */
  resetAt: number;
}

export class Pacer {
  /** Local ms at which our accepted requests were answered, oldest first (bounded by the largest rule). */
  private answered: number[] = [];
  private inFlight = 0;
  private report: Report | undefined;
  /** Whether the server has ever sent rate-limit headers: one that never does enforces no limits. */
  private limiting = false;
  /** The shortest rule as learned from a 429 the headers did not explain. */
  private learned: RateRule | undefined;
  /** A 429's retry-after: no request goes before this (local ms). */
  private blockedUntil = 0;
  /** An announced wait covers waits until then (concurrent workers wait together). */
  private quietUntil = 0;
  private readonly nowMs: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly rules: readonly RateRule[];
  private readonly reserve: number;
  /** The longest wait the pacer makes (`--max-wait`). */
  readonly maxWaitMs: number;

  constructor(private readonly opts: PacerOptions = {}) {
    this.nowMs = opts.nowMs ?? nowMs;
    this.sleep = opts.sleep ?? sleep;
    this.rules = opts.rules ?? API_BY_USER;
    this.reserve = opts.reserve ?? 1;
    this.maxWaitMs = opts.maxWaitMs ?? DEFAULT_MAX_WAIT_SECONDS * 1000;
  }

  /** How long a request starting now should wait (0: go). */
  delayMs(): number {
    const now = this.nowMs();
    let wait = Math.max(0, this.blockedUntil - now);
    for (const w of this.windows(now)) wait = Math.max(wait, waitFor(w, 1 + w.reserved, now));
    return wait <= this.maxWaitMs ? wait : 0;
  }

  /** Waits until a request may go without reserving it: for pools deciding whether to start an item. */
  async ready(signal?: AbortSignal): Promise<void> {
    for (let wait = this.delayMs(); wait > 0; wait = this.delayMs()) {
      this.announce(wait);
      await this.sleep(wait, signal);
    }
  }

  /** Waits as `ready` does, then counts one request in flight; pair with `observe`, `refused` or `release`. */
  async take(signal?: AbortSignal): Promise<void> {
    // Checked again right before counting: another worker may have taken the room while this one resumed.
    do await this.ready(signal);
    while (this.delayMs() > 0);
    this.inFlight++;
  }

  /** The response to a taken request arrived (not a 429): count it and read its rate-limit headers. */
  observe(headers: Record<string, string>): void {
    this.release();
    const now = this.nowMs();
    this.answered.push(now);
    this.forget(now);
    const remaining = Number(headers['x-ratelimit-remaining']);
    const reset = Number(headers['x-ratelimit-reset']);
    const limit = Number(headers['x-ratelimit-limit']);
    if (headers['x-ratelimit-remaining'] === undefined || !Number.isFinite(remaining) || !Number.isFinite(reset) || !(limit > 0)) return;
    this.limiting = true;
    const serverNow = headers.date ? Date.parse(headers.date) : Number.NaN;
    const rule = this.rules.find((r) => r.calls === limit);
    const ours = rule ? this.answeredSince(now - rule.seconds * 1000) : 0;
    this.report = {
      limit,
      rule,
      // Requests of ours still in flight may be among them: counted twice until the next report, to be safe.
      others: Math.max(0, limit - remaining - ours),
      resetAt: now + (reset * 1000 - (Number.isNaN(serverNow) ? now : serverNow)),
    };
  }

  /**
   * The server refused a taken request with 429 (not counted: a refused request uses no budget). When no
   * rule known had run out, one the headers do not show is tighter than documented: the requests it took
   * within the shortest window are its size.
   */
  refused(retryAfterSeconds: number | undefined): void {
    this.release();
    const now = this.nowMs();
    if (retryAfterSeconds !== undefined) this.blockedUntil = Math.max(this.blockedUntil, now + retryAfterSeconds * 1000);
    // Only a report with room left says that a rule the headers do not show refused it.
    const windows = this.windows(now);
    if (!this.report || now >= this.report.resetAt || windows.some((w) => w.count >= w.rule.calls)) return;
    const shortest = this.rules[0];
    if (!shortest) return;
    const calls = Math.max(1, this.answeredSince(now - shortest.seconds * 1000));
    if (this.learned && this.learned.calls <= calls) return;
    this.learned = { calls, seconds: shortest.seconds };
    this.opts.onWait?.(`the server refused a request its rate-limit headers allowed; keeping below ${calls} requests per ${shortest.seconds} s`);
  }

  /** A taken request failed without a response. */
  release(): void {
    if (this.inFlight > 0) this.inFlight--;
  }

  /**
   * How `requests` more requests fit the longest rule known from the server's headers: how many may go now,
   * and how long the last would wait. Undefined until a response has reported the rule.
   */
  outlook(requests: number): Outlook | undefined {
    if (!this.report) return undefined;
    const now = this.nowMs();
    const windows = this.windows(now);
    if (!windows.length) return undefined;
    const longest = windows.reduce((a, b) => (b.rule.seconds > a.rule.seconds ? b : a));
    const room = longest.rule.calls - longest.reserved;
    const allowed = Math.max(0, Math.min(requests, room - longest.count));
    if (allowed >= requests) return { rule: longest.rule, allowed, waitMs: 0 };
    const short = requests - allowed;
    const frees = longest.frees;
    // Beyond the calls in the window now, the job's own requests free room one window after they go.
    const waitMs =
      short <= frees.length
        ? frees[short - 1]! - now
        : Math.max(frees[frees.length - 1] ?? now, now) - now + Math.ceil((short - frees.length) / Math.max(1, room)) * longest.rule.seconds * 1000;
    return { rule: longest.rule, allowed, waitMs: Math.max(0, waitMs) };
  }

  /** The rules as they stand now: the reported one, the documented ones it does not show, and a learned one. */
  private windows(now: number): Window[] {
    const out: Window[] = [];
    const report = this.report && now < this.report.resetAt ? this.report : undefined;
    if (report) {
      // An unknown rule frees everything at its reset, our requests in flight included.
      const own = report.rule ? this.frees(report.rule, now) : Array<number>(this.inFlight).fill(report.resetAt);
      const rule = report.rule ?? { calls: report.limit, seconds: Math.max(1, (report.resetAt - now) / 1000) };
      const frees = [...own, ...Array<number>(report.others).fill(report.resetAt)].sort((a, b) => a - b);
      // Room is kept only for other clients the window shows: a user whose other clients made no request
      // in it loses nothing, and a job may use the whole budget. Kept always, it made a run of exactly the
      // hourly budget (2,000 rows) stop at 1,999 with the last row an hour away (bench:bulk).
      out.push({ rule, count: frees.length, frees, reserved: report.others > 0 ? this.reserve : 0 });
    }
    if (!this.limiting) return out;
    let learned = this.learned;
    for (const documented of this.rules) {
      if (report && documented.calls === report.limit) continue;
      const rule = learned && documented.seconds === learned.seconds ? learned : documented;
      if (rule === learned) learned = undefined;
      out.push(this.ownWindow(rule, now));
    }
    if (learned) out.push(this.ownWindow(learned, now));
    return out;
  }

  /** A rule counted from our own requests alone. */
  private ownWindow(rule: RateRule, now: number): Window {
    const frees = this.frees(rule, now);
    return { rule, count: frees.length, frees, reserved: 0 };
  }

  /** When our calls in `rule`'s window leave it: answered ones a window after their answer, those in flight a window from now. */
  private frees(rule: RateRule, now: number): number[] {
    const windowMs = rule.seconds * 1000;
    const frees = this.answered.filter((t) => t > now - windowMs).map((t) => t + windowMs);
    for (let i = 0; i < this.inFlight; i++) frees.push(now + windowMs);
    return frees;
  }

  private answeredSince(since: number): number {
    return this.answered.filter((t) => t > since).length;
  }

  /** Drops answers no rule's window still holds. */
  private forget(now: number): void {
    const longestMs = Math.max(...this.rules.map((r) => r.seconds)) * 1000;
    const most = Math.max(...this.rules.map((r) => r.calls));
    let drop = 0;
    while (drop < this.answered.length && (this.answered[drop]! <= now - longestMs || this.answered.length - drop > most)) drop++;
    if (drop) this.answered = this.answered.slice(drop);
  }

  /** Says when pacing holds requests back noticeably (shorter waits are the steady pace of a sliding window). */
  private announce(wait: number): void {
    const now = this.nowMs();
    if (wait < 100 || now < this.quietUntil) return;
    this.quietUntil = now + wait;
    this.opts.onWait?.(`rate limit nearly used up; waiting ${(wait / 1000).toFixed(1)} s`);
  }
}

/** How long until `w` has room for `n` more calls (its soonest frees are what must leave first). */
function waitFor(w: Window, n: number, now: number): number {
  const over = w.count + n - w.rule.calls;
  if (over <= 0) return 0;
  const at = w.frees[over - 1] ?? w.frees[w.frees.length - 1] ?? now;
  return Math.max(0, at - now);
}
