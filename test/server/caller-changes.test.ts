/**
 * A change to an account counts from the very next request (src/server/auth.ts reads the caller's row at each
 * one), whether this server made it or another process did (a second connection to the same data dir, as
 * `chatctl users deactivate` on the embedded store while `chatctl serve` runs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/server/store/db.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { rawRequest, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('a caller changed between two requests, over %s', (kind) => {
  let org: TestOrg;
  let other: Db;
  beforeAll(() => {
    org = createTestOrg();
    other = org.otherConnection();
  });
  afterAll(() => org.close());

  const me = (user: Parameters<typeof rawRequest>[3], authorization?: string) =>
    rawRequest(org, kind, { method: 'GET', path: '/users/me', headers: authorization ? { authorization } : {} }, user);
  const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`;

  it('a deactivation by another process is refused at the next request', async () => {
    const user = org.addUser();
    expect((await me(user)).status).toBe(200);
    expect((await me(user)).status).toBe(200);
    other.prepare('UPDATE users SET is_active = 0 WHERE id = ?').run(user.id);
    expect((await me(user)).body).toMatchObject({ result: 'error', msg: 'Account is deactivated', code: 'UNAUTHORIZED' });
  });

  it('a new API key set by another process: the old one is refused at once, the new one works', async () => {
    const user = org.addUser();
    expect((await me(user)).status).toBe(200);
    const fresh = 'N'.repeat(32);
    other.prepare('UPDATE users SET api_key = ? WHERE id = ?').run(fresh, user.id);
    expect((await me(user)).body).toMatchObject({ msg: 'Invalid API key', code: 'UNAUTHORIZED' });
    expect((await me(user, basic(user.email, fresh))).body).toMatchObject({ result: 'success', user_id: user.id });
  });

  it("a role changed by this server's own requests is the caller's role at the next request", async () => {
    const user = org.addUser({ role: 200 });
    expect((await me(user)).body).toMatchObject({ role: 200 });
    const demoted = await rawRequest(org, kind, { method: 'PATCH', path: `/users/${user.id}`, body: [['role', '400']] });
    expect(demoted.status).toBe(200);
    expect((await me(user)).body).toMatchObject({ role: 400, is_admin: false });
    // An administrator's endpoint is now refused to them (the role gate comes before the linkifier is looked up).
    const admins = await rawRequest(org, kind, { method: 'DELETE', path: '/realm/filters/999999' }, user);
    expect(admins.body).toMatchObject({ result: 'error', msg: 'Must be an organization administrator' });
  });

  it('a permission granted and revoked by another process (as chatctl server grant does) counts at the next request', async () => {
    const admin = org.addUser({ role: 200 });
    const create = (n: number) =>
      rawRequest(
        org,
        kind,
        {
          method: 'POST',
          path: '/users',
          body: [
            ['email', `granted-${kind}-${n}@example.com`],
            ['password', 'a long enough password'],
            ['full_name', `Granted ${n}`],
          ],
        },
        admin,
      );
    expect((await create(1)).body).toMatchObject({ result: 'error', msg: 'User not authorized to create users' });
    other.prepare('UPDATE users SET can_create_users = 1 WHERE id = ?').run(admin.id);
    expect((await create(2)).body).toMatchObject({ result: 'success' });
    other.prepare('UPDATE users SET can_create_users = 0 WHERE id = ?').run(admin.id);
    expect((await create(3)).body).toMatchObject({ result: 'error', msg: 'User not authorized to create users' });
  });

  it('an address in other letter cases is the same caller; a wrong key with a known address is still refused', async () => {
    const user = org.addUser();
    expect((await me(user, basic(user.email.toUpperCase(), user.apiKey))).body).toMatchObject({ user_id: user.id });
    expect((await me(user, basic(user.email, 'W'.repeat(32)))).body).toMatchObject({ msg: 'Invalid API key' });
    expect((await me(user)).body).toMatchObject({ result: 'success', user_id: user.id });
  });
});
