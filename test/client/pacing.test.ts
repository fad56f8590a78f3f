/**
 * Pacing by X-RateLimit-Remaining / X-RateLimit-Reset: the pacer's decisions on a clock the test moves,
 * then a bulk run through the pool against a real rate-limited server on 127.0.0.1 that must never have to
 * answer 429.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChatClient } from '../../src/client/client.js';
import { HttpTransport } from '../../src/client/http.js';
import { Pacer } from '../../src/client/pacing.js';
import { runPool } from '../../src/client/pool.js';
import { retryPolicy } from '../../src/client/retry.js';
import { json, startServer, SUCCESS, type TestServer } from './servers.js';
import { removeThing } from './things.js';

/** A pacer on a fake clock whose sleeps move the clock and are recorded. */
function fakePacer(opts: ConstructorParameters<typeof Pacer>[0] = {}) {
  const clock = { t: 1_700_000_000_000 };
  const sleeps: number[] = [];
  const notes: string[] = [];
  const pacer = new Pacer({
    nowMs: () => clock.t,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.t += ms;
    },
    onWait: (m) => notes.push(m),
    ...opts,
  });
  const headers = (remaining: number, resetInSeconds: number, limit = 200, serverOffsetMs = 0): Record<string, string> => ({
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String((clock.t + serverOffsetMs) / 1000 + resetInSeconds),
    date: new Date(clock.t + serverOffsetMs).toUTCString(),
  });
  return { pacer, clock, sleeps, notes, headers };
}

describe('Pacer', () => {
  it('lets requests go while the server reports nothing, or plenty left', async () => {
    const f = fakePacer();
    await f.pacer.take();
    f.pacer.observe({});
    await f.pacer.take();
    f.pacer.observe(f.headers(150, 30));
    await f.pacer.take();
    expect(f.sleeps).toEqual([]);
    expect(f.notes).toEqual([]);
  });

  it('assumes no rule of a server that never sends rate-limit headers', async () => {
    const f = fakePacer();
    for (let i = 0; i < 250; i++) {
      await f.pacer.take();
      f.pacer.observe({});
    }
    expect(f.sleeps).toEqual([]);
  });

  it('waits for the reset when the budget is used up, and says so once', async () => {
    const f = fakePacer({ reserve: 1 });
    await f.pacer.take();
    f.pacer.observe(f.headers(1, 12));
    await f.pacer.take();
    expect(f.sleeps).toEqual([12_000]);
    expect(f.notes).toEqual(['rate limit nearly used up; waiting 12.0 s']);
  });

  it('counts requests in flight against what the last response reported', async () => {
    const f = fakePacer({ reserve: 0 });
    await f.pacer.take();
    f.pacer.observe(f.headers(3, 20));
    await Promise.all([f.pacer.take(), f.pacer.take(), f.pacer.take()]);
    expect(f.sleeps).toEqual([]);
    await f.pacer.take();
    expect(f.sleeps).toEqual([20_000]);
  });

  it('with headers describing the hourly rule, stays below the per-minute rule they do not show', async () => {
    const f = fakePacer({ reserve: 1 });
    // 200 requests in the same instant: the hourly budget has plenty left, the minute rule is used up.
    for (let i = 0; i < 200; i++) {
      await f.pacer.take();
      f.pacer.observe(f.headers(1999 - i, 3600, 2000));
    }
    expect(f.sleeps).toEqual([]);
    await f.pacer.take();
    // The next one waits until the first of them leaves the minute's window.
    expect(f.sleeps).toEqual([60_000]);
  });

  it('reads a wait for the hourly rule from the times of its own requests, not from the reset an hour ahead', async () => {
    const f = fakePacer({ reserve: 0, maxWaitMs: 3_600_000 });
    // A job that started with the hour to itself: 2,000 requests, 200 a minute.
    for (let i = 0; i < 2000; i++) {
      if (i > 0 && i % 200 === 0) f.clock.t += 60_000;
      await f.pacer.take();
      f.pacer.observe(f.headers(1999 - i, 3600, 2000));
    }
    const before = f.clock.t;
    f.sleeps.length = 0;
    await f.pacer.take();
    // The first request leaves the hour's window an hour after it was answered: 9 minutes ago.
    expect(f.sleeps).toEqual([3_600_000 - 9 * 60_000]);
    expect(f.clock.t - before).toBeLessThan(3_600_000);
  });

  it('learns a rule the headers hide from a 429 and its retry-after, and waits no longer than the server asked', async () => {
    const f = fakePacer({ reserve: 1 });
    for (let i = 0; i < 50; i++) {
      await f.pacer.take();
      f.pacer.observe(f.headers(1900 - i, 3600, 2000));
      f.clock.t += 1000;
    }
    await f.pacer.take();
    f.pacer.refused(2.5);
    // The first of the 50 leaves the hidden window in 2.5 s: 50 calls per 52.5 s, the fewest every accepted request fitted.
    expect(f.notes).toEqual(['the server refused a request its rate-limit headers allowed; keeping below 50 requests per 52.5 s']);
    await f.pacer.take();
    expect(f.sleeps).toEqual([2_500]);
    f.pacer.observe(f.headers(1849, 3600, 2000));
    await f.pacer.take();
    // The window is full again: the next goes when the second of the 50 leaves it.
    expect(f.sleeps).toEqual([2_500, 1_000]);
  });

  it('a burst refused by a rule the headers hide: its window is the retry-after, and the next burst goes then', async () => {
    const f = fakePacer({ reserve: 0 });
    for (let i = 0; i < 10; i++) {
      await f.pacer.take();
      f.pacer.observe(f.headers(99 - i, 30, 100));
    }
    await f.pacer.take();
    f.pacer.refused(2);
    expect(f.notes).toEqual(['the server refused a request its rate-limit headers allowed; keeping below 10 requests per 2 s']);
    await f.pacer.take();
    expect(f.sleeps).toEqual([2_000]);
  });

  it('a 429 from a rule known to be used up, or before any report, teaches nothing', async () => {
    const f = fakePacer({ reserve: 0, maxWaitMs: 10_000 });
    await f.pacer.take();
    f.pacer.refused(4);
    await f.pacer.take();
    f.pacer.observe(f.headers(0, 30));
    // The 30 s to the reset are more than the cap: the request goes and is refused.
    await f.pacer.take();
    f.pacer.refused(30);
    expect(f.notes).toEqual(['rate limit nearly used up; waiting 4.0 s']);
    expect(f.sleeps).toEqual([4000]);
  });

  it('tells how a job fits the hourly rule: what may go now, and how long the rest would wait', async () => {
    const f = fakePacer();
    await f.pacer.take();
    f.pacer.observe(f.headers(5, 3600, 2000));
    expect(f.pacer.outlook(3)).toEqual({ rule: { calls: 2000, seconds: 3600 }, allowed: 3, waitMs: 0 });
    // 5 left, 1 kept in reserve: 4 go now; the others' requests stay in the window until the reset.
    expect(f.pacer.outlook(20)).toEqual({ rule: { calls: 2000, seconds: 3600 }, allowed: 4, waitMs: 3_600_000 });
  });

  it('keeps no reserve while the headers show no other client at work: a job may use the whole budget', async () => {
    const f = fakePacer({ reserve: 1, maxWaitMs: 3_600_000 });
    // 1,999 of the hour's 2,000, all of them ours, 200 a minute.
    for (let i = 0; i < 1999; i++) {
      if (i > 0 && i % 200 === 0) f.clock.t += 60_000;
      await f.pacer.take();
      f.pacer.observe(f.headers(2000 - i - 1, 3600, 2000));
    }
    f.clock.t += 60_000;
    expect(f.pacer.outlook(1)).toEqual({ rule: { calls: 2000, seconds: 3600 }, allowed: 1, waitMs: 0 });
    f.sleeps.length = 0;
    await f.pacer.take();
    expect(f.sleeps).toEqual([]);
  });

  it('has no outlook before a response has reported the rule', () => {
    expect(fakePacer().pacer.outlook(10)).toBeUndefined();
  });

  it("reads the reset against the server's clock (Date), not the local one", async () => {
    const f = fakePacer({ reserve: 0 });
    await f.pacer.take();
    // The server's clock is an hour behind; its reset is still 8 s away.
    f.pacer.observe(f.headers(0, 8, 200, -3_600_000));
    await f.pacer.take();
    expect(f.sleeps).toEqual([8000]);
  });

  it('does not wait longer than its cap; the request goes and meets the server', async () => {
    const f = fakePacer({ reserve: 0, maxWaitMs: 5000 });
    await f.pacer.take();
    f.pacer.observe(f.headers(0, 50));
    await f.pacer.take();
    expect(f.sleeps).toEqual([]);
  });

  it('forgets the budget once the window has reset', async () => {
    const f = fakePacer({ reserve: 0 });
    await f.pacer.take();
    f.pacer.observe(f.headers(0, 5));
    f.clock.t += 6000;
    await f.pacer.take();
    expect(f.sleeps).toEqual([]);
  });
});

/**
 * A server with a fixed-window limit of `limit` requests per `windowMs`, reporting the X-RateLimit-*
 * headers as a Zulip server does, and 429 with retry-after when exceeded.
 */
async function rateLimitedServer(limit: number, windowMs: number) {
  let windowStart = 0;
  let used = 0;
  const stats = { ok: 0, limited: 0 };
  const t = await startServer((_req, res) => {
    const now = Date.now();
    if (now >= windowStart + windowMs) {
      windowStart = now - (now % windowMs);
      used = 0;
    }
    const reset = Math.ceil((windowStart + windowMs) / 1000);
    const headers = { 'x-ratelimit-limit': String(limit), 'x-ratelimit-reset': String(reset) };
    if (used >= limit) {
      stats.limited++;
      const after = (windowStart + windowMs - now) / 1000;
      json(
        res,
        429,
        { result: 'error', msg: 'API usage exceeded rate limit', code: 'RATE_LIMIT_HIT', 'retry-after': after },
        { ...headers, 'x-ratelimit-remaining': '0', 'retry-after': String(after) },
      );
      return;
    }
    used++;
    stats.ok++;
    json(res, 200, SUCCESS, { ...headers, 'x-ratelimit-remaining': String(limit - used) });
  });
  return { t, stats };
}

describe('a bulk run against a rate-limited server', () => {
  let server: TestServer | undefined;
  let client: ChatClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
  });

  it('paces itself through the pool so the server never answers 429', async () => {
    const { t, stats } = await rateLimitedServer(8, 1000);
    server = t;
    const notes: string[] = [];
    client = new ChatClient(
      new HttpTransport(t.url),
      { email: 'a@example.com', apiKey: 'k'.repeat(32) },
      {},
      { retry: retryPolicy(), pacer: new Pacer({ onWait: (m) => notes.push(m) }) },
    );
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    const results = await runPool(ids, (id) => client!.call(removeThing, { id }), { concurrency: 4, pacer: client.pacer });
    expect(results.every((r) => r.ok)).toBe(true);
    expect(stats).toEqual({ ok: 20, limited: 0 });
    expect(notes.some((n) => n.startsWith('rate limit nearly used up; waiting'))).toBe(true);
  });

  it('without pacing a like run meets 429s, and the retries still finish it', async () => {
    const { t, stats } = await rateLimitedServer(5, 1000);
    server = t;
    client = new ChatClient(new HttpTransport(t.url), { email: 'a@example.com', apiKey: 'k'.repeat(32) }, {}, { retry: retryPolicy() });
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    const results = await runPool(ids, (id) => client!.call(removeThing, { id }), { concurrency: 4 });
    expect(results.every((r) => r.ok)).toBe(true);
    expect(stats.ok).toBe(20);
    expect(stats.limited).toBeGreaterThan(0);
  });
});
