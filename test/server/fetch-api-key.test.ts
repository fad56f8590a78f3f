import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchApiKey } from '../../src/api/operations/server.js';
import { setSetting } from '../../src/server/model/realm.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('POST /fetch_api_key over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const login = (username: string, password: string) =>
    rawRequest(
      org,
      kind,
      {
        method: 'POST',
        path: '/fetch_api_key',
        body: [
          ['username', username],
          ['password', password],
        ],
      },
      null,
    );
  const withPassword = (): TestUser => org.addUser({ password: true });

  it('exchanges the address (any case) and password for the key, e-mail and user ID', async () => {
    const user = withPassword();
    const res = await (await clientFor(org, kind, null)).call(fetchApiKey, { username: ` ${user.email.toUpperCase()} `, password: user.password });
    expect(openapiErrors('post', '/fetch_api_key', 200, res)).toEqual([]);
    expect(res).toEqual({ result: 'success', msg: '', api_key: user.apiKey, email: user.email, user_id: user.id });
  });

  it('refuses a wrong password, an unknown address and an empty password with 401 AUTHENTICATION_FAILED', async () => {
    const user = withPassword();
    for (const [username, password] of [
      [user.email, 'wrong-password'],
      ['nobody@example.com', 'whatever'],
      [user.email, ''],
    ] as const) {
      const res = await login(username, password);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ result: 'error', msg: 'Your username or password is incorrect', code: 'AUTHENTICATION_FAILED' });
    }
  });

  it('reports a deactivated account before looking at the password', async () => {
    const user = withPassword();
    org.db.prepare('UPDATE users SET is_active = 0 WHERE id = ?').run(user.id);
    for (const password of [user.password, 'wrong-password']) {
      const res = await login(user.email, password);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ result: 'error', msg: 'Account is deactivated', code: 'USER_DEACTIVATED' });
    }
  });

  it('wants an e-mail address as the username', async () => {
    const res = await login('not an address', 'x');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg: 'Enter a valid email address.', code: 'BAD_REQUEST' });
  });

  // Anyone can send this request: the address check must not cost more than the address is long.
  it('refuses an over-long or pathological username as not an address, at once', async () => {
    const bad = { status: 400, body: { result: 'error', msg: 'Enter a valid email address.', code: 'BAD_REQUEST' } };
    // Longer than any e-mail address can be (320 characters): no account can have it.
    const long = await login(`${'a'.repeat(400)}@example.com`, 'whatever');
    expect({ status: long.status, body: long.body }).toEqual(bad);
    // Dots where the domain should be: quadratic for a backtracking pattern (seconds per 100 kB). serve takes
    // at most 64 KiB from a request without a key, so the longest such name is just under that.
    const dots = await login(`a@${'.'.repeat(60_000)} `, 'whatever');
    expect({ status: dots.status, body: dots.body }).toEqual(bad);
  }, 5000);

  it('refuses the 6th failure within 30 minutes with 429 and retry-after; the window then passes', async () => {
    const user = withPassword();
    for (let i = 0; i < 5; i++) expect((await login(user.email, `wrong-${i}`)).status).toBe(401);
    org.clock.advance(100);
    const limited = await login(user.email, user.password);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ result: 'error', msg: 'API usage exceeded rate limit', code: 'RATE_LIMIT_HIT', 'retry-after': 1700 });
    expect(limited.headers['retry-after']).toBe('1700');
    org.clock.advance(1700);
    expect((await login(user.email, user.password)).status).toBe(200);
  });

  it('forgets earlier failures after a success', async () => {
    const user = withPassword();
    for (let i = 0; i < 4; i++) await login(user.email, `wrong-${i}`);
    expect((await login(user.email, user.password)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await login(user.email, `wrong-again-${i}`)).status).toBe(401);
    expect((await login(user.email, user.password)).status).toBe(429);
  });

  it('refuses everyone when password login is disabled', async () => {
    const user = withPassword();
    setSetting(org.db, 'email_auth_enabled', false);
    try {
      const res = await login(user.email, user.password);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ result: 'error', msg: 'Password authentication is disabled in this organization', code: 'PASSWORD_AUTH_DISABLED' });
    } finally {
      setSetting(org.db, 'email_auth_enabled', true);
    }
  });

  it('is a POST only', async () => {
    const res = await rawRequest(org, kind, { method: 'GET', path: '/fetch_api_key' }, null);
    expect(res.status).toBe(405);
  });
});
