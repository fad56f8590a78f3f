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
 *   rules is an operator's own rule: its window is read from the headers (right after a request, `Reset`
 *   is the window ahead: the newest call leaves it last), and none of ours outlasts the reset;
 * - once the server has shown that it limits (it sent the headers once), every documented rule the headers
 *   do not show, counted from our own requests alone, unless the headers showed an operator's rule: the
 *   documented ones are then not assumed, and the rules the headers hide are learned from the 429s;
 * - a rule the headers hide, learned from a 429 that no rule known explained: the server's `retry-after` is
 *   when the calls-th newest of our requests leaves that rule's window, so each number of calls k gives a
 *   window (now + retry-after - the k-th newest answer); the rule is the smallest k whose window every
 *   accepted request fitted (a window it would have been refused in is not the server's);
 * - a 429's `retry-after`, which holds every request until then, and is the longest the pacer then waits.
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
  /** The rule of that size: a documented one, or an operator's with the window the headers implied. */
  rule: RateRule;
  documented: boolean;
  /** Calls in the window that are not ours (or not known to be). */
  others: number;
  /** Local ms at which the server's window is empty again. */
  resetAt: number;
}

/** Learned rules kept at most, and how near two learned windows are the same rule (a fraction of the window). */
const MAX_LEARNED_RULES = 4;
const LEARNED_WINDOW_SLACK = 0.1;

/** Answer times kept to bound how early a request was admitted before its answer arrived. */
const LATENCIES_KEPT = 16;

export class Pacer {
  /** Local ms at which our accepted requests were answered, oldest first (bounded by the largest rule). */
  private answered: number[] = [];
  /** Local ms at which our requests in flight were taken, oldest first. */
  private takenAt: number[] = [];
  private get inFlight(): number {
    return this.takenAt.length;
  }
  /** How long our latest answers took, ms (the last LATENCIES_KEPT). */
  private latencies: number[] = [];
  private report: Report | undefined;
  /** Whether the server has ever sent rate-limit headers: one that never does enforces no limits. */
  private limiting = false;
  /** Rules learned from 429s the headers did not explain. */
  private learned: RateRule[] = [];
  /**
   * When the server takes requests again after a 429 no known rule explained, while requests of ours were
   * still in flight: learned from once they are answered. The server counted those it had admitted before
   * the refusal (a 429 is answered before the view runs, so it overtakes them), and a rule learned without
   * them has fewer calls than the server's: 8 of 10 per 2 s cost a window in 5 (bench:bulk).
   */
  private unexplainedFreeAt: number | undefined;
  /** The window of each undocumented `Limit` the headers showed, s (the longest the headers implied). */
  private readonly shownWindows = new Map<number, number>();
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
    this.takenAt.push(this.nowMs());
  }

  /** The response to a taken request arrived (not a 429): count it and read its rate-limit headers. */
  observe(headers: Record<string, string>): void {
    this.settle();
    const now = this.nowMs();
    this.answered.push(now);
    this.forget(now);
    this.learnUnexplained();
    const remaining = Number(headers['x-ratelimit-remaining']);
    const reset = Number(headers['x-ratelimit-reset']);
    const limit = Number(headers['x-ratelimit-limit']);
    if (headers['x-ratelimit-remaining'] === undefined || !Number.isFinite(remaining) || !Number.isFinite(reset) || !(limit > 0)) return;
    this.limiting = true;
    const serverNow = headers.date ? Date.parse(headers.date) : Number.NaN;
    const resetAt = now + (reset * 1000 - (Number.isNaN(serverNow) ? now : serverNow));
    const documented = this.rules.find((r) => r.calls === limit);
    const rule = documented ?? this.shownRule(limit, resetAt - now);
    const ours = this.answeredSince(now - rule.seconds * 1000);
    this.report = {
      limit,
      rule,
      documented: documented !== undefined,
      // Requests of ours still in flight may be among them: counted twice until the next report, to be safe.
      others: Math.max(0, limit - remaining - ours),
      resetAt,
    };
  }

  /** An operator's rule the headers show: `limit` calls in the longest window a reset has implied so far. */
  private shownRule(limit: number, toResetMs: number): RateRule {
    const seconds = Math.max(this.shownWindows.get(limit) ?? 1, Math.ceil(toResetMs / 1000));
    this.shownWindows.set(limit, seconds);
    return { calls: limit, seconds };
  }

  /**
   * The server refused a taken request with 429 (not counted: a refused request uses no budget). When no
   * rule known had run out, a rule the headers do not show refused it: learned from the `retry-after`
   * (see above), or without one, as the requests accepted within the shortest documented window.
   */
  refused(retryAfterSeconds: number | undefined): void {
    this.settle();
    const now = this.nowMs();
    if (retryAfterSeconds !== undefined) this.blockedUntil = Math.max(this.blockedUntil, now + retryAfterSeconds * 1000);
    // Only a report with room left says that a rule the headers do not show refused it.
    const windows = this.windows(now);
    if (!this.report || now >= this.report.resetAt || windows.some((w) => w.count >= w.rule.calls)) {
      this.learnUnexplained();
      return;
    }
    if (retryAfterSeconds === undefined) {
      this.learn(this.shortestFilled(now));
      return;
    }
    this.unexplainedFreeAt ??= now + retryAfterSeconds * 1000;
    this.learnUnexplained();
  }

  /** Learns from the unexplained 429 once none of our requests is in flight (see `unexplainedFreeAt`). */
  private learnUnexplained(): void {
    if (this.unexplainedFreeAt === undefined || this.inFlight > 0) return;
    const freeAt = this.unexplainedFreeAt;
    this.unexplainedFreeAt = undefined;
    this.learn(this.hiddenRule(freeAt));
  }

  private learn(rule: RateRule | undefined): void {
    if (!rule) return;
    // A rule learned again replaces the one of about its window (a learned window carries the answer time, so it
    // is seldom the same to the millisecond), and a few are kept at most: a long run's 429s must not pile up
    // rules every wait computes.
    const others = this.learned.filter((r) => Math.abs(r.seconds - rule.seconds) > LEARNED_WINDOW_SLACK * rule.seconds);
    this.learned = [...others.slice(-(MAX_LEARNED_RULES - 1)), rule];
    this.opts.onWait?.(
      `the server refused a request its rate-limit headers allowed; keeping below ${rule.calls} requests per ${Number(rule.seconds.toFixed(1))} s`,
    );
  }

  /**
   * The rule that refused a request the server takes again at `freeAt`: the fewest calls k whose window
   * (`freeAt` - our k-th newest answer) held fewer than k of ours before each request it accepted.
   */
  private hiddenRule(freeAt: number): RateRule | undefined {
    const t = this.answered;
    const n = t.length;
    for (let k = 1; k <= n; k++) {
      const windowMs = freeAt - t[n - k]!;
      let fits = windowMs > 0;
      for (let i = k; fits && i < n; i++) fits = t[i]! - t[i - k]! >= windowMs;
      // The server's window runs from when it admitted a request, up to one answer's time before we saw the
      // answer: a window measured between answers is that much short, and pacing on it sends early (a 429 in a
      // few runs of bench:bulk). Lengthened by the longest recent answer time, it is never short.
      if (fits) return { calls: k, seconds: (windowMs + Math.max(0, ...this.latencies)) / 1000 };
    }
    return undefined;
  }

  /** Without a retry-after: the requests accepted within the shortest documented window. */
  private shortestFilled(now: number): RateRule | undefined {
    const shortest = this.rules[0];
    return shortest && { calls: Math.max(1, this.answeredSince(now - shortest.seconds * 1000)), seconds: shortest.seconds };
  }

  /** A taken request failed without a response. */
  release(): void {
    this.settle();
    this.learnUnexplained();
  }

  /** A taken request came back, one way or another. */
  private settle(): void {
    const taken = this.takenAt.shift();
    if (taken === undefined) return;
    this.latencies.push(this.nowMs() - taken);
    if (this.latencies.length > LATENCIES_KEPT) this.latencies.shift();
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
      const rule = report.rule;
      // An operator's rule may be a fixed window, which frees everything at its reset: none of ours outlasts it.
      const own = this.frees(rule, now).map((t) => (report.documented ? t : Math.min(t, report.resetAt)));
      const frees = [...own, ...Array<number>(report.others).fill(report.resetAt)].sort((a, b) => a - b);
      // Room is kept only for other clients the window shows: a user whose other clients made no request
      // in it loses nothing, and a job may use the whole budget. Kept always, it made a run of exactly the
      // hourly budget (2,000 rows) stop at 1,999 with the last row an hour away (bench:bulk).
      out.push({ rule, count: frees.length, frees, reserved: report.others > 0 ? this.reserve : 0 });
    }
    if (!this.limiting) return out;
    // An operator's rule in the headers: the documented ones are not in force, the hidden ones are learned.
    const documented = this.report && !this.report.documented ? [] : this.rules.filter((r) => r.calls !== report?.limit);
    for (const rule of [...documented, ...this.learned]) out.push(this.ownWindow(rule, now));
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
    const all = [...this.rules, ...this.learned, ...[...this.shownWindows].map(([calls, seconds]) => ({ calls, seconds }))];
    const longestMs = Math.max(...all.map((r) => r.seconds)) * 1000;
    const most = Math.max(...all.map((r) => r.calls));
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
