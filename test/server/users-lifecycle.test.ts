import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getUsers, deactivateUser, reactivateUser } from '../../src/api/operations/users.js';
import { bad, flatFailure } from '../helpers/api.js';
import { eventErrors, openQueue, takeEvents } from '../helpers/events.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

const isActive = (org: TestOrg, id: number) => org.db.prepare('SELECT is_active FROM users WHERE id = ?').pluck().get(id);

describe.each(TRANSPORTS)('deactivating and reactivating users over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  let watcher: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200 });
    watcher = org.addUser();
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);

  it('deactivates a user and their bots, ends their queues and invitations, and tells everyone', async () => {
    const target = org.addUser();
    const bot = org.addUser({ bot: { type: 1, ownerId: target.id } });
    const targetQueue = openQueue(org, target);
    org.db
      .prepare('INSERT INTO invites (email, referrer_id, invited_as, invited) VALUES (?, ?, 400, ?)')
      .run(`pending-${kind}@example.com`, target.id, org.clock.now());
    const q = openQueue(org, admin);
    const res = await (await as(admin)).call(deactivateUser, { user_id: target.id });
    expect(openapiErrors('delete', '/users/{user_id}', 200, res)).toEqual([]);
    expect([isActive(org, target.id), isActive(org, bot.id)]).toEqual([0, 0]);
    expect(org.db.prepare('SELECT count(*) FROM event_queues WHERE id = ?').pluck().get(targetQueue)).toBe(0);
    expect(org.db.prepare('SELECT status FROM invites WHERE referrer_id = ?').pluck().all(target.id)).toEqual([2]);
    const events = takeEvents(org, q);
    expect(events).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: bot.id, is_active: false } },
      { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, is_active: false } },
      { type: 'invites_changed' },
      { type: 'realm_user', op: 'update', person: { user_id: target.id, is_active: false } },
    ]);
    for (const e of events) expect(eventErrors(e)).toEqual([]);
    // The account can no longer use the API.
    const after = await rawRequest(org, kind, { method: 'GET', path: '/users' }, target);
    expect(after.body).toMatchObject({ msg: 'Account is deactivated', code: 'UNAUTHORIZED' });
  });

  it('refuses bots, deactivated users and unknown IDs', async () => {
    const client = await as(admin);
    const bot = org.addUser({ bot: { type: 1, ownerId: admin.id } });
    const gone = org.addUser({ active: false });
    expect(await flatFailure(client.call(deactivateUser, { user_id: bot.id }))).toEqual(bad('No such user'));
    expect(await flatFailure(client.call(deactivateUser, { user_id: gone.id }))).toEqual(bad('User is deactivated'));
    expect(await flatFailure(client.call(deactivateUser, { user_id: 999999 }))).toEqual(bad('No such user'));
  });

  it('needs an owner to deactivate an owner, and never the only one', async () => {
    const owner2 = org.addUser({ role: 100 });
    expect(await flatFailure((await as(admin)).call(deactivateUser, { user_id: owner2.id }))).toEqual({
      msg: 'Must be an organization owner',
      code: 'UNAUTHORIZED_PRINCIPAL',
      status: 400,
    });
    await (await as(org.owner)).call(deactivateUser, { user_id: owner2.id });
    expect(isActive(org, owner2.id)).toBe(0);
    expect(await flatFailure((await as(org.owner)).call(deactivateUser, { user_id: org.owner.id }))).toEqual(
      bad('Cannot deactivate the only organization owner'),
    );
  });

  it('caps the notification comment at 2000 characters', async () => {
    const target = org.addUser();
    const res = await rawRequest(
      org,
      kind,
      { method: 'DELETE', path: `/users/${target.id}`, body: [['deactivation_notification_comment', 'x'.repeat(2001)]] },
      admin,
    );
    expect(res.body).toEqual({ result: 'error', msg: 'deactivation_notification_comment is too long (limit: 2000 characters)', code: 'BAD_REQUEST' });
    const ok = await rawRequest(org, kind, { method: 'DELETE', path: `/users/${target.id}`, body: [['deactivation_notification_comment', 'Farewell']] }, admin);
    expect(ok.body).toEqual({ result: 'success', msg: '' });
  });

  it('reactivates a user and tells everyone', async () => {
    const target = org.addUser({ active: false });
    const q = openQueue(org, watcher);
    const res = await (await as(admin)).call(reactivateUser, { user_id: target.id });
    expect(openapiErrors('post', '/users/{user_id}/reactivate', 200, res)).toEqual([]);
    expect(isActive(org, target.id)).toBe(1);
    expect(takeEvents(org, q)).toEqual([{ type: 'realm_user', op: 'update', person: { user_id: target.id, is_active: true } }]);
    const listed = await (await as(watcher)).call(getUsers, { user_ids: [target.id] });
    expect(listed.members[0]!.is_active).toBe(true);
  });

  it('gives a reactivated bot whose owner is gone to the administrator reactivating it', async () => {
    const owner = org.addUser({ active: false });
    const bot = org.addUser({ bot: { type: 1, ownerId: owner.id }, active: false, name: `Orphan Bot ${kind}` });
    const q = openQueue(org, admin);
    await (await as(admin)).call(reactivateUser, { user_id: bot.id });
    expect(org.db.prepare('SELECT bot_owner_id FROM users WHERE id = ?').pluck().get(bot.id)).toBe(admin.id);
    const events = takeEvents(org, q);
    expect(events).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: bot.id, is_active: true } },
      { type: 'realm_user', op: 'update', person: { user_id: bot.id, bot_owner_id: admin.id } },
      { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, owner_id: admin.id } },
      { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, is_active: true } },
    ]);
    for (const e of events) expect(eventErrors(e)).toEqual([]);
  });

  it('refuses to reactivate a bot while an active account has its name', async () => {
    const bot = org.addUser({ bot: { type: 1, ownerId: admin.id }, active: false, name: `Twin Name ${kind}` });
    org.addUser({ name: `Twin Name ${kind}` });
    expect(await flatFailure((await as(admin)).call(reactivateUser, { user_id: bot.id }))).toEqual(
      bad(
        `There is already an active bot named "Twin Name ${kind}" in this organization. To reactivate this bot, you must rename or deactivate the other one first.`,
      ),
    );
  });

  it('refuses unknown IDs', async () => {
    expect(await flatFailure((await as(admin)).call(reactivateUser, { user_id: 999999 }))).toEqual(bad('No such user'));
  });
});
