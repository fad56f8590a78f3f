/**
 * `chatctl serve --rate-limit`: a current Zulip server's default limits, its X-RateLimit-* headers (the
 * hourly rule's) and its 429 replies, over real HTTP on 127.0.0.1 with the limiter's clock in the test's hands.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_BY_IP, API_BY_USER } from '../../src/api/rate-limits.js';
import { withAdmission } from '../../src/server/admission.js';
import { withAnswerCache } from '../../src/server/answer-cache.js';
import { createApiServer } from '../../src/server/http.js';
import { RateLimiter, zulipRateLimits } from '../../src/server/rate-limit.js';
import { Router } from '../../src/server/router.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';

const T0 = 1_760_000_000_000;

describe('serve --rate-limit', () => {
  let org: TestOrg;
  let server: Server;
  let site: string;
  const clock = { t: T0 };
  beforeEach(async () => {
    clock.t = T0;
    org = createTestOrg();
    // A router of its own over the organization, with the limits and the answer cache serve --rate-limit composes around it.
    const limits = zulipRateLimits(new RateLimiter(() => clock.t));
    const router = withAdmission(limits, withAnswerCache(new Router({ db: org.db, dataDir: org.dataDir, clock: org.clock })));
    server = createApiServer(router, () => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    site = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await org.close();
  });

  const auth = (u: { email: string; apiKey: string }) => ({ authorization: `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString('base64')}` });
  const rateHeaders = (res: Response) => ({
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
  });

  it("answers with the hourly rule's headers, and refuses the 201st request of a minute with a current server's 429", async () => {
    const headers = auth(org.owner);
    const first = await fetch(`${site}/users/me`, { headers });
    expect(first.status).toBe(200);
    expect(rateHeaders(first)).toEqual({ limit: '2000', remaining: '1999', reset: String(T0 / 1000 + 3600) });
    for (let i = 1; i < 200; i++) {
      const res = await fetch(`${site}/users/me`, { headers });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    clock.t += 10_500;
    const refused = await fetch(`${site}/users/me`, { headers });
    expect(refused.status).toBe(429);
    const body: unknown = await refused.json();
    expect(body).toEqual({ result: 'error', msg: 'API usage exceeded rate limit', code: 'RATE_LIMIT_HIT', 'retry-after': 49.5 });
    // The OpenAPI description types `retry-after` as an integer, but its own example and real servers send a float.
    expect(openapiErrors('post', '/rest-error-handling', 429, { ...(body as object), 'retry-after': 49 })).toEqual([]);
    expect(refused.headers.get('retry-after')).toBe('49.5');
    expect(rateHeaders(refused)).toEqual({ limit: '2000', remaining: '0', reset: String(Math.floor((clock.t + 49_500) / 1000)) });

    // Another user has a budget of their own; the refused request cost nothing, and a minute on there is room again.
    const other = org.addUser();
    expect((await fetch(`${site}/users/me`, { headers: auth(other) })).status).toBe(200);
    clock.t += 49_500;
    const again = await fetch(`${site}/users/me`, { headers });
    expect(again.status).toBe(200);
    expect(rateHeaders(again).remaining).toBe('1799');
  });

  it('limits requests that do not authenticate by address, 100 a minute', async () => {
    const first = await fetch(`${site}/server_settings`);
    expect(rateHeaders(first)).toEqual({ limit: '100', remaining: '99', reset: String(T0 / 1000 + 60) });
    for (let i = 1; i < 100; i++) await (await fetch(`${site}/server_settings`)).arrayBuffer();
    expect((await fetch(`${site}/server_settings`)).status).toBe(429);
    // The address's budget is not the user's.
    expect((await fetch(`${site}/users/me`, { headers: auth(org.owner) })).status).toBe(200);
  });

  it('does not count requests that fail to authenticate: the router refuses them', async () => {
    const res = await fetch(`${site}/users/me`, { headers: auth({ email: org.owner.email, apiKey: 'x'.repeat(32) }) });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('RateLimiter', () => {
  it('forgets the addresses whose requests have all left the window, so a long serve does not keep one per address', () => {
    let now = T0;
    const limiter = new RateLimiter(() => now);
    const logs = Reflect.get(limiter, 'logs') as Map<string, number[]>;
    for (let i = 0; i < 999; i++) limiter.admit(`ip:${i}`, API_BY_IP);
    expect(logs.size).toBe(999);
    now += 61_000;
    // The 1,000th admission sweeps: only the key just admitted is left, and it starts afresh.
    expect(limiter.admit('ip:new', API_BY_IP).headers['x-ratelimit-remaining']).toBe('99');
    expect([...logs.keys()]).toEqual(['ip:new']);
  });

  it('enforces the hourly rule: the 2,001st request of an hour waits for the first to leave the window', () => {
    let now = T0;
    const limiter = new RateLimiter(() => now);
    // 2,000 requests, 200 a minute.
    for (let i = 0; i < 2000; i++) {
      if (i > 0 && i % 200 === 0) now += 60_000;
      expect(limiter.admit('u', API_BY_USER).refusal).toBeUndefined();
    }
    now += 60_000;
    const refused = limiter.admit('u', API_BY_USER);
    expect(refused.refusal?.status).toBe(429);
    // The first request was 10 minutes ago.
    expect(refused.refusal?.body).toMatchObject({ 'retry-after': 3000 });
    now += 3_000_000;
    // The first minute's 200 leave together.
    expect(limiter.admit('u', API_BY_USER).headers['x-ratelimit-remaining']).toBe('199');
  });
});
