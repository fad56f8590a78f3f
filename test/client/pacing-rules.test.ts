/**
 * The pacer against rules it was not told of. A bulk job of deletes runs through the real client, pool,
 * pacer and retry policy, as `attachments clean` configures them (the pacer assumes Zulip's documented
 * rules), on a simulated clock, against the limiter of `chatctl serve --rate-limit` (Zulip's sliding-window
 * limiter, lib/rate_limiter.py: a request is refused while a rule's window holds its calls; headers describe
 * the last rule; a 429 carries the float retry-after) with an operator's rules. The job must finish within
 * 1.3x the least time the rules allow, meeting at most 5 answers 429, and no pacing wait may be longer than
 * the longest the server asked for.
 */
import { describe, expect, it } from 'vitest';
import { removeAttachment } from '../../src/api/operations/attachments.js';
import type { RateRule } from '../../src/api/rate-limits.js';
import { API_BY_USER } from '../../src/api/rate-limits.js';
import type { WireRequest, WireResponse } from '../../src/api/wire.js';
import { ChatClient } from '../../src/client/client.js';
import { Pacer } from '../../src/client/pacing.js';
import { runPool } from '../../src/client/pool.js';
import { retryPolicy } from '../../src/client/retry.js';
import type { Transport } from '../../src/client/transport.js';
import { RateLimiter } from '../../src/server/rate-limit.js';

/** A clock that moves only when every task is waiting: to the soonest sleeper's time. */
class SimulatedTime {
  now = 1_700_000_000_000;
  private readonly sleepers: { at: number; wake: () => void }[] = [];

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((wake, fail) => {
      if (signal?.aborted) return fail(signal.reason);
      const sleeper = { at: this.now + ms, wake };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', () => {
        this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
        fail(signal.reason);
      });
    });

  /** Runs `job` to its end, moving the clock whenever it waits. */
  async run<T>(job: Promise<T>): Promise<T> {
    let done = false;
    const result = job.finally(() => (done = true));
    while (!done) {
      // Let every task run as far as it can at this instant.
      for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
      if (done) break;
      this.sleepers.sort((a, b) => a.at - b.at);
      const next = this.sleepers.shift();
      if (!next) throw new Error('the job waits for nothing the clock can move');
      this.now = Math.max(this.now, next.at);
      next.wake();
    }
    return result;
  }
}

/**
 * A Zulip server limiting its one user by `rules`: a request is admitted (counted) when it arrives and
 * answered `latencyMs` later, while a refusal is answered at once, as Zulip's rate-limiting middleware
 * refuses before the view runs. So a 429 may overtake accepted requests still being handled.
 */
class LimitedServer implements Transport {
  readonly target = 'http://limited.test';
  readonly kind = 'http' as const;
  refused = 0;
  accepted = 0;
  /** The longest retry-after it gave, ms. */
  longestAsk = 0;
  private readonly limiter: RateLimiter;

  constructor(
    private readonly time: SimulatedTime,
    private readonly rules: readonly RateRule[],
    private readonly latencyMs: number,
  ) {
    this.limiter = new RateLimiter(() => time.now);
  }

  async send(_req: WireRequest): Promise<WireResponse> {
    const { headers, refusal } = this.limiter.admit('user', this.rules);
    if (refusal) {
      this.refused++;
      this.longestAsk = Math.max(this.longestAsk, Number(refusal.headers['retry-after']) * 1000);
      return { ...refusal, headers: { ...refusal.headers, date: new Date(this.time.now).toUTCString() } };
    }
    await this.time.sleep(this.latencyMs);
    this.accepted++;
    return { status: 200, headers: { ...headers, date: new Date(this.time.now).toUTCString() }, body: { result: 'success', msg: '' } };
  }

  async close(): Promise<void> {}
}

/** How long the server takes over an accepted request (what `npm run bench:bulk` gives its stand-in). */
const LATENCY_MS = 20;

/**
 * The least time for `items` requests through `concurrency` lanes: each starts as soon as a lane is free
 * and every rule admits it (the first at 0), and the job ends with the last answer.
 */
function floorMs(items: number, rules: readonly RateRule[], concurrency: number): number {
  const at: number[] = [];
  const lanes = Array<number>(concurrency).fill(0);
  for (let i = 0; i < items; i++) {
    const lane = lanes.indexOf(Math.min(...lanes));
    at.push(Math.max(lanes[lane]!, ...rules.map((r) => (i >= r.calls ? at[i - r.calls]! + r.seconds * 1000 : 0))));
    lanes[lane] = at[i]! + LATENCY_MS;
  }
  return at[items - 1]! + LATENCY_MS;
}

/** `items` deletes through the pool of `concurrency` as the CLI runs them; the simulated time, 429s and pacing waits. */
async function bulkDeletes(items: number, rules: readonly RateRule[], concurrency = 4) {
  const time = new SimulatedTime();
  const server = new LimitedServer(time, rules, LATENCY_MS);
  const waits: number[] = [];
  const pacer = new Pacer({
    nowMs: () => time.now,
    sleep: (ms) => {
      waits.push(ms);
      return time.sleep(ms);
    },
  });
  const retry = retryPolicy({ sleep: time.sleep, random: () => 0.5 });
  const client = new ChatClient(server, { email: 'a@x.test', apiKey: 'k'.repeat(32) }, {}, { retry, pacer });
  const start = time.now;
  const ids = Array.from({ length: items }, (_, i) => i + 1);
  const results = await time.run(runPool(ids, (id) => client.call(removeAttachment, { attachment_id: id }), { concurrency, pacer }));
  expect(results.filter((r) => !r.ok)).toEqual([]);
  expect(server.accepted).toBe(items);
  return {
    ms: time.now - start,
    floor: floorMs(items, rules, concurrency),
    refused: server.refused,
    longestWait: Math.max(0, ...waits),
    longestAsk: server.longestAsk,
  };
}

describe('pacing learns the windows of rules it was not told of', () => {
  it("Zulip's default rules (200 per 60 s, 2,000 per 3,600 s, headers showing the hourly one): the hourly budget of 2,000 deletes", async () => {
    const r = await bulkDeletes(2000, API_BY_USER);
    expect(r.ms / r.floor).toBeLessThanOrEqual(1.3);
    expect(r.refused).toBeLessThanOrEqual(5);
  });

  it('10 per 2 s and 100 per 30 s (headers showing the second): 60 deletes take about the 10 s the rules allow, not a minute a burst', async () => {
    const rules = [
      { calls: 10, seconds: 2 },
      { calls: 100, seconds: 30 },
    ];
    const r = await bulkDeletes(60, rules);
    expect(r.floor).toBe(10_060);
    expect(r.ms / r.floor).toBeLessThanOrEqual(1.3);
    expect(r.refused).toBeLessThanOrEqual(5);
    expect(r.longestWait).toBeLessThanOrEqual(Math.max(r.longestAsk, 2000));
    // Past the 30 s rule as well.
    const long = await bulkDeletes(400, rules);
    expect(long.ms / long.floor).toBeLessThanOrEqual(1.3);
    expect(long.refused).toBeLessThanOrEqual(5);
  });

  it('a custom single rule (50 per 10 s, in the headers): 150 and 500 deletes', async () => {
    for (const items of [150, 500]) {
      const r = await bulkDeletes(items, [{ calls: 50, seconds: 10 }]);
      expect(r.ms / r.floor).toBeLessThanOrEqual(1.3);
      expect(r.refused).toBeLessThanOrEqual(5);
    }
  });

  it('one at a time as well: 10 per 2 s and 100 per 30 s, 60 deletes', async () => {
    const r = await bulkDeletes(
      60,
      [
        { calls: 10, seconds: 2 },
        { calls: 100, seconds: 30 },
      ],
      1,
    );
    expect(r.ms / r.floor).toBeLessThanOrEqual(1.3);
    expect(r.refused).toBeLessThanOrEqual(5);
  });
});
