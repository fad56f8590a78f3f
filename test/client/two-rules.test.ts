/**
 * Rate limits as current Zulip servers apply them: 200 requests a minute and 2,000 an hour per user, with
 * headers that describe only the hourly rule. A local server enforces the two rules with the limiter of
 * `chatctl serve --rate-limit`, scaled down (a tenth of the calls, 1/200 of the time: 20 per 300 ms and 200
 * per 3 s), and a bulk job through the real pacer, pool and retries must finish without failures and with
 * next to no 429s, although it needs more than the "hourly" budget.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RateRule } from '../../src/api/rate-limits.js';
import { ChatClient } from '../../src/client/client.js';
import { HttpTransport } from '../../src/client/http.js';
import { Pacer } from '../../src/client/pacing.js';
import { runPool } from '../../src/client/pool.js';
import { retryPolicy, sleep } from '../../src/client/retry.js';
import { RateLimiter } from '../../src/server/rate-limit.js';
import { json, startServer, SUCCESS, type TestServer } from './servers.js';
import { removeThing } from './things.js';

const SCALED: readonly RateRule[] = [
  { calls: 20, seconds: 0.3 },
  { calls: 200, seconds: 3 },
];

async function twoRuleServer() {
  const limiter = new RateLimiter();
  const stats = { ok: 0, limited: 0 };
  const t = await startServer((_req, res) => {
    const { headers, refusal } = limiter.admit('the user', SCALED);
    if (refusal) {
      stats.limited++;
      json(res, refusal.status, refusal.body, refusal.headers);
      return;
    }
    stats.ok++;
    json(res, 200, SUCCESS, headers);
  });
  return { t, stats };
}

describe('a bulk job against a server with a per-minute and an hourly rule, headers showing the hourly one', () => {
  let server: TestServer | undefined;
  let client: ChatClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
  });

  it('finishes every row past the hourly budget with no more than a handful of 429s', { timeout: 60_000 }, async () => {
    const { t, stats } = await twoRuleServer();
    server = t;
    let waits = 0;
    const pacer = new Pacer({
      rules: SCALED,
      sleep: (ms, signal) => {
        waits++;
        return sleep(ms, signal);
      },
    });
    client = new ChatClient(new HttpTransport(t.url), { email: 'a@example.com', apiKey: 'k'.repeat(32) }, {}, { retry: retryPolicy(), pacer });
    const ids = Array.from({ length: 260 }, (_, i) => i + 1);
    const results = await runPool(ids, (id) => client!.call(removeThing, { id }), { concurrency: 4, pacer });
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(stats.ok).toBe(260);
    expect(stats.limited).toBeLessThanOrEqual(3);
    // It got there by waiting for the rules, not by being refused.
    expect(waits).toBeGreaterThan(0);
  });

  it('takes a job of exactly the "hourly" budget whole: the outlook after the first answer says every row fits', { timeout: 60_000 }, async () => {
    const { t, stats } = await twoRuleServer();
    server = t;
    const pacer = new Pacer({ rules: SCALED });
    client = new ChatClient(new HttpTransport(t.url), { email: 'a@example.com', apiKey: 'k'.repeat(32) }, {}, { retry: retryPolicy(), pacer });
    const ids = Array.from({ length: 200 }, (_, i) => i + 1);
    // As a bulk command reads it: once, after the first answer, for the rows not yet started.
    let started = 0;
    let outlook: ReturnType<Pacer['outlook']>;
    const results = await runPool(
      ids,
      async (id, index) => {
        started = Math.max(started, index + 1);
        try {
          return await client!.call(removeThing, { id });
        } finally {
          outlook ??= pacer.outlook(ids.length - started);
        }
      },
      { concurrency: 4, pacer },
    );
    expect(outlook).toMatchObject({ waitMs: 0 });
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(stats.ok).toBe(200);
    expect(stats.limited).toBeLessThanOrEqual(3);
  });
});
