/**
 * Failed logins are limited per source as well as per username (src/server/login-failures.ts), over real
 * sockets from distinct loopback addresses: nobody can lock a person out from elsewhere, and one address
 * cannot spray guesses over many accounts.
 */
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchApiKey } from '../../src/api/operations/server.js';
import { trustedProxies } from '../../src/server/client-address.js';
import { createApiServer } from '../../src/server/http.js';
import { SERVE_BOUNDS } from '../../src/server/http-bounds.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor } from '../helpers/transports.js';

describe('failed logins, per source', () => {
  let org: TestOrg;
  let site: string;
  beforeAll(async () => {
    org = createTestOrg();
    site = await org.http();
  });
  afterAll(() => org.close());

  /** A login attempt from the loopback address `from`; its status. */
  const loginFrom = (from: string, username: string, password: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const body = new URLSearchParams({ username, password }).toString();
      const req = httpRequest(`${site}/api/v1/fetch_api_key`, {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });

  it("locks out an attacker's address, not the victim's own", async () => {
    const victim = org.addUser({ password: true });
    for (let i = 0; i < 5; i++) expect(await loginFrom('127.0.0.2', victim.email, `guess-${i}`)).toBe(401);
    expect(await loginFrom('127.0.0.2', victim.email, victim.password)).toBe(429);
    expect(await loginFrom('127.0.0.3', victim.email, victim.password)).toBe(200);
  });

  it('stops one address guessing over many accounts after 100 failures a minute, and only that address', async () => {
    // Deactivated accounts fail before the password is hashed: the same count, a hundred times faster.
    const gone = Array.from({ length: 30 }, () => org.addUser({ active: false }));
    const statuses: number[] = [];
    for (const u of gone) for (let i = 0; i < 4; i++) statuses.push(await loginFrom('127.0.0.4', u.email, `guess-${i}`));
    expect(statuses.filter((s) => s === 401)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    const user = org.addUser({ password: true });
    expect(await loginFrom('127.0.0.4', user.email, user.password)).toBe(429);
    expect(await loginFrom('127.0.0.5', user.email, user.password)).toBe(200);
    org.clock.advance(61);
    expect(await loginFrom('127.0.0.4', user.email, user.password)).toBe(200);
  });

  it('counts the in-process transport as one source of its own', async () => {
    const user = org.addUser({ password: true });
    for (let i = 0; i < 5; i++) expect(await loginFrom('127.0.0.6', user.email, `guess-${i}`)).toBe(401);
    const local = await clientFor(org, 'embedded', null);
    expect(await local.call(fetchApiKey, { username: user.email, password: user.password })).toMatchObject({ user_id: user.id });
  });
});

describe('failed logins behind a trusted proxy (serve --trusted-proxy)', () => {
  const PROXY = '127.0.0.10';
  let org: TestOrg;
  let server: Server;
  let site: string;
  beforeAll(async () => {
    org = createTestOrg();
    server = createApiServer(org.router, (l) => org.logs.push(l), { ...SERVE_BOUNDS, trustedProxies: trustedProxies([PROXY, '::ffff:127.0.0.11']) });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await org.close();
  });

  /** A login attempt over a connection from `from` carrying X-Forwarded-For `forwarded`; its status. */
  const loginVia = (from: string, forwarded: string | undefined, username: string, password: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const body = new URLSearchParams({ username, password }).toString();
      const req = httpRequest(`${site}/api/v1/fetch_api_key`, {
        method: 'POST',
        localAddress: from,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          ...(forwarded === undefined ? {} : { 'x-forwarded-for': forwarded }),
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });

  it("locks out the client the proxy names, not everyone behind the proxy, and logs the client's address", async () => {
    const victim = org.addUser({ password: true });
    for (let i = 0; i < 5; i++) expect(await loginVia(PROXY, '203.0.113.7', victim.email, `guess-${i}`)).toBe(401);
    expect(await loginVia(PROXY, '203.0.113.7', victim.email, victim.password)).toBe(429);
    expect(await loginVia(PROXY, '198.51.100.2', victim.email, victim.password)).toBe(200);
    expect(org.logs.some((l) => l.startsWith('203.0.113.7 "POST /api/v1/fetch_api_key" 429'))).toBe(true);
  });

  it('takes the right-most address that is no trusted proxy: what a client wrote further left changes nothing', async () => {
    const victim = org.addUser({ password: true });
    // The client forges a different first address each time; the proxies append the address they saw.
    for (let i = 0; i < 5; i++) expect(await loginVia(PROXY, `10.9.9.${i}, 203.0.113.8, 127.0.0.11`, victim.email, `guess-${i}`)).toBe(401);
    expect(await loginVia(PROXY, '10.9.9.99, 203.0.113.8', victim.email, victim.password)).toBe(429);
    expect(await loginVia(PROXY, '203.0.113.9, 127.0.0.11', victim.email, victim.password)).toBe(200);
  });

  it('reads no X-Forwarded-For from a client that is no trusted proxy: it cannot step through addresses it makes up', async () => {
    const victim = org.addUser({ password: true });
    for (let i = 0; i < 5; i++) expect(await loginVia('127.0.0.12', `203.0.113.${100 + i}`, victim.email, `guess-${i}`)).toBe(401);
    expect(await loginVia('127.0.0.12', '203.0.113.200', victim.email, victim.password)).toBe(429);
    expect(await loginVia('127.0.0.13', undefined, victim.email, victim.password)).toBe(200);
  });

  it('counts the proxy itself as the client when it forwards no address', async () => {
    const victim = org.addUser({ password: true });
    for (let i = 0; i < 5; i++) expect(await loginVia(PROXY, i % 2 ? 'not an address' : undefined, victim.email, `guess-${i}`)).toBe(401);
    expect(await loginVia(PROXY, undefined, victim.email, victim.password)).toBe(429);
    expect(await loginVia(PROXY, '203.0.113.50', victim.email, victim.password)).toBe(200);
  });
});
