/**
 * Failed logins are limited per source as well as per username (src/server/login-failures.ts), over real
 * sockets from distinct loopback addresses: nobody can lock a person out from elsewhere, and one address
 * cannot spray guesses over many accounts.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchApiKey } from '../../src/api/operations/server.js';
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
