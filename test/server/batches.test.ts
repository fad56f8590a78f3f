/**
 * Requests given together (`ChatClient.callEach`): the embedded transport hands them to the router as one
 * batch (one write transaction, a savepoint each), HTTP sends them one by one. Either way each request is
 * admitted, checked and answered exactly as alone: a caller refused for one row is refused for every row,
 * with the same answer, and a row that fails takes back only its own writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { fetchApiKey } from '../../src/api/operations/server.js';
import { createUser } from '../../src/api/operations/users.js';
import { basicAuthHeader, type WireRequest } from '../../src/api/wire.js';
import type { Settled } from '../../src/client/client.js';
import { setPermission } from '../../src/server/model/user-permissions.js';
import { randomToken } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, USER_PASSWORD, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

const newAccount = (password = 'a-fine-password-1') => ({ email: `batch${randomToken()}@example.com`, full_name: 'Batch Person', password });

/** What a settled call came to: the new account's ID, or the error's message and code. */
const outcomeOf = (s: Settled<{ user_id: number }>) =>
  s.ok ? { ok: true } : s.error instanceof ApiError ? { msg: s.error.msg, code: s.error.code, status: s.error.status } : { thrown: String(s.error) };

describe.each(TRANSPORTS)('calls given together over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200 });
    setPermission(org.db, admin.id, 'can_create_users', true);
  });
  afterAll(() => org.close());

  it('creates every good row and refuses the bad ones alone, in order, each answered as a single POST /users', async () => {
    const client = await clientFor(org, kind, admin);
    const rows = [newAccount(), { ...newAccount(), email: 'not-an-address' }, newAccount(), { ...newAccount(), full_name: 'X' }, newAccount('abc')];
    rows.push({ ...newAccount(), email: rows[0]!.email });
    const settled = await client.callEach(createUser, rows);
    expect(settled.map(outcomeOf)).toEqual([
      { ok: true },
      { msg: 'Bad name or username', code: 'BAD_REQUEST', status: 400 },
      { ok: true },
      { msg: 'Name too short!', code: 'BAD_REQUEST', status: 400 },
      { msg: 'The password is too weak.', code: 'BAD_REQUEST', status: 400 },
      { msg: `Email '${rows[0]!.email}' already in use`, code: 'BAD_REQUEST', status: 400 },
    ]);
    const idOf = org.db.prepare('SELECT id FROM users WHERE email = ?').pluck();
    expect(settled.flatMap((s) => (s.ok ? [s.value.user_id] : []))).toEqual([idOf.get(rows[0]!.email), idOf.get(rows[2]!.email)]);
    for (const s of settled) if (s.ok) expect(openapiErrors('POST', '/users', 200, s.value)).toEqual([]);
    // Only the good rows' accounts exist: a refused row wrote nothing.
    expect(rows.map((r) => idOf.get(r.email) !== undefined)).toEqual([true, false, true, false, false, true]);
  });

  it.each([
    ['a member', 400, 'Must be an organization administrator'],
    ['an administrator without can_create_users', 200, 'User not authorized to create users'],
  ] as const)('refuses %s on every row, as it refuses one request', async (_who, role, msg) => {
    const caller = org.addUser({ role });
    const client = await clientFor(org, kind, caller);
    const single = await client.call(createUser, newAccount()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(single).toBeInstanceOf(ApiError);
    expect((single as ApiError).msg).toBe(msg);
    const rows = [newAccount(), newAccount(), newAccount('abc')];
    const settled = await client.callEach(createUser, rows);
    expect(settled.map(outcomeOf)).toEqual(rows.map(() => outcomeOf({ ok: false, error: single })));
    expect(
      org.db
        .prepare('SELECT count(*) FROM users WHERE email IN (?, ?, ?)')
        .pluck()
        .get(...rows.map((r) => r.email)),
    ).toBe(0);
  });

  it('gives each row the password it carries: rows that share one all log in with it', async () => {
    const client = await clientFor(org, kind, admin);
    const rows = [newAccount('shared-password-1'), newAccount('shared-password-1'), newAccount('own-password-2')];
    expect((await client.callEach(createUser, rows)).map(outcomeOf)).toEqual(rows.map(() => ({ ok: true })));
    const anonymous = await clientFor(org, kind, null);
    for (const r of rows) expect((await anonymous.call(fetchApiKey, { username: r.email, password: r.password })).email).toBe(r.email);
    await expect(anonymous.call(fetchApiKey, { username: rows[2]!.email, password: 'shared-password-1' })).rejects.toMatchObject({
      msg: 'Your username or password is incorrect',
    });
  });
});

describe('a batch given to the router', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const asOwner = (req: Omit<WireRequest, 'headers' | 'query'> & { query?: WireRequest['query'] }): WireRequest => ({
    query: [],
    ...req,
    headers: { authorization: basicAuthHeader(org.owner.email, org.owner.apiKey) },
  });
  const strip = (body: unknown) => JSON.parse(JSON.stringify(body, (k, v) => (k === 'user_id' || k === 'api_key' ? '-' : v))) as unknown;

  it('answers reads, logins and refusals in order, each as handle answers it alone', async () => {
    const user = org.addUser({ password: true });
    const requests = (): WireRequest[] => [
      asOwner({ method: 'GET', path: '/users/me', body: [] }),
      {
        method: 'POST',
        path: '/fetch_api_key',
        query: [],
        headers: {},
        body: [
          ['username', user.email],
          ['password', USER_PASSWORD],
        ],
      },
      asOwner({ method: 'GET', path: '/no/such/path', body: [] }),
      asOwner({ method: 'POST', path: '/users', body: [['email', 'x@example.com']] }),
      asOwner({ method: 'DELETE', path: '/users/me', body: [] }),
    ];
    const alone = [];
    for (const req of requests()) alone.push(await org.router.handle(req));
    const together = await org.router.handleBatch(requests());
    expect(together.map((r) => [r.status, strip(r.body)])).toEqual(alone.map((r) => [r.status, strip(r.body)]));
    expect(together.map((r) => r.status)).toEqual([200, 200, 404, 400, 405]);
  });

  it('sends no Welcome Bot message for an account it creates, as a bulk import; a single POST /users does', async () => {
    const messages = org.db.prepare('SELECT count(*) FROM messages').pluck();
    const create = () =>
      asOwner({
        method: 'POST',
        path: '/users',
        body: [
          ['email', `w${randomToken()}@example.com`],
          ['password', 'a-fine-password-1'],
          ['full_name', 'Welcome Person'],
        ],
      });
    const before = messages.get() as number;
    const batch = await org.router.handleBatch([create(), create()]);
    expect(batch.map((r) => r.status)).toEqual([200, 200]);
    expect(messages.get()).toBe(before);
    expect((await org.router.handle(create())).status).toBe(200);
    expect(messages.get()).toBe(before + 1);
  });
});
