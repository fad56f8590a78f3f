import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register } from '../../src/api/operations/events.js';
import { getUserStatus, updateOwnStatus, updateUserStatus } from '../../src/api/operations/status.js';
import { bad, flatFailure } from '../helpers/api.js';
import { eventErrors, openQueue, takeEvents } from '../helpers/events.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

function addRealmEmoji(org: TestOrg, name: string, deactivated = false): number {
  const info = org.db
    .prepare('INSERT INTO realm_emoji (name, file_name, author_id, deactivated) VALUES (?, ?, ?, ?)')
    .run(name, `${name}.png`, org.owner.id, deactivated ? 1 : 0);
  return Number(info.lastInsertRowid);
}

describe.each(TRANSPORTS)('user status over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  let member: TestUser;
  let parrot: number;
  let oldParrot: number;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200 });
    member = org.addUser();
    parrot = addRealmEmoji(org, 'parrot');
    oldParrot = addRealmEmoji(org, 'old_parrot', true);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);

  it('sets text and a Unicode emoji by name, tells everyone what changed, and reads it back', async () => {
    const user = org.addUser();
    const q = openQueue(org, member);
    const res = await (await as(user)).call(updateOwnStatus, { status_text: '  on vacation  ', emoji_name: 'car' });
    expect(openapiErrors('post', '/users/me/status', 200, res)).toEqual([]);
    const [event] = takeEvents(org, q);
    expect(event).toEqual({
      type: 'user_status',
      user_id: user.id,
      status_text: 'on vacation',
      emoji_name: 'car',
      emoji_code: '1f697',
      reaction_type: 'unicode_emoji',
    });
    expect(eventErrors(event!)).toEqual([]);
    const read = await (await as(member)).call(getUserStatus, { user_id: user.id });
    expect(openapiErrors('get', '/users/{user_id}/status', 200, read)).toEqual([]);
    expect(read.status).toEqual({ status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  });

  it('changes only what is passed; "" clears text or emoji', async () => {
    const user = org.addUser();
    const client = await as(user);
    await client.call(updateOwnStatus, { status_text: 'busy', emoji_name: 'octopus' });
    await client.call(updateOwnStatus, { status_text: 'still busy' });
    expect((await client.call(getUserStatus, { user_id: user.id })).status).toEqual({
      status_text: 'still busy',
      emoji_name: 'octopus',
      emoji_code: '1f419',
      reaction_type: 'unicode_emoji',
    });
    const q = openQueue(org, member);
    await client.call(updateOwnStatus, { emoji_name: '', emoji_code: 'ignored' });
    expect(takeEvents(org, q)).toEqual([{ type: 'user_status', user_id: user.id, emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' }]);
    await client.call(updateOwnStatus, { status_text: '' });
    expect((await client.call(getUserStatus, { user_id: user.id })).status).toEqual({});
  });

  it('treats away as the inverse of presence_enabled', async () => {
    const user = org.addUser();
    const client = await as(user);
    const q = openQueue(org, member);
    await client.call(updateOwnStatus, { away: true });
    expect(org.db.prepare('SELECT presence_enabled FROM users WHERE id = ?').pluck().get(user.id)).toBe(0);
    expect(takeEvents(org, q)).toEqual([{ type: 'user_status', user_id: user.id, away: true }]);
    expect((await client.call(getUserStatus, { user_id: user.id })).status).toEqual({ away: true });
    // The initial state says so too, as GET does (a server's user_status dict keeps `away`).
    const state = await (await as(member)).call(register, { fetch_event_types: ['user_status'], event_types: ['user_status'] });
    expect((state.user_status as Record<string, unknown>)[String(user.id)]).toEqual({ away: true });
    await client.call(updateOwnStatus, { away: false });
    expect((await client.call(getUserStatus, { user_id: user.id })).status).toEqual({});
  });

  it('resolves custom emoji first, then zulip, and checks codes against names', async () => {
    const user = org.addUser();
    const client = await as(user);
    await client.call(updateOwnStatus, { emoji_name: 'parrot' });
    expect((await client.call(getUserStatus, { user_id: user.id })).status).toMatchObject({ emoji_code: String(parrot), reaction_type: 'realm_emoji' });
    await client.call(updateOwnStatus, { emoji_name: 'zulip' });
    expect((await client.call(getUserStatus, { user_id: user.id })).status).toMatchObject({ emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' });
    await client.call(updateOwnStatus, { emoji_name: 'smile', emoji_code: '263a', reaction_type: 'unicode_emoji' });
  });

  it.each([
    ['nothing', {}, 'Client did not pass any new values.'],
    ['only a code', { emoji_code: '1f697' }, 'Client did not pass any new values.'],
    ['a code without a name', { away: false, emoji_code: '1f697' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
    [
      'a type without a name',
      { status_text: 'x', reaction_type: 'unicode_emoji' },
      'Client must pass emoji_name if they pass either emoji_code or reaction_type.',
    ],
    ['an unknown name', { emoji_name: 'no_such_emoji' }, "Emoji 'no_such_emoji' does not exist"],
    ['a name not matching the code', { emoji_name: 'car', emoji_code: '1f419', reaction_type: 'unicode_emoji' }, 'Invalid emoji name.'],
    ['an unknown Unicode code', { emoji_name: 'car', emoji_code: 'ffff', reaction_type: 'unicode_emoji' }, 'Invalid emoji code.'],
    ['an unknown custom emoji', { emoji_name: 'parrot', emoji_code: '999999', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.'],
    ['another custom emoji name', { emoji_name: 'not_parrot', emoji_code: 'PARROT', reaction_type: 'realm_emoji' }, 'Invalid custom emoji name.'],
    ['a deactivated custom emoji', { emoji_name: 'old_parrot', emoji_code: 'OLD', reaction_type: 'realm_emoji' }, 'This custom emoji has been deactivated.'],
    ['a bad zulip code', { emoji_name: 'zulip', emoji_code: 'zulip2', reaction_type: 'zulip_extra_emoji' }, 'Invalid emoji code.'],
    ['a bad zulip name', { emoji_name: 'octopus', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }, 'Invalid emoji name.'],
    ['an unknown type', { emoji_name: 'car', emoji_code: '1f697', reaction_type: 'sticker' }, 'Invalid emoji type.'],
  ])('refuses %s', async (_what, params, msg) => {
    const resolved = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v === 'PARROT' ? String(parrot) : v === 'OLD' ? String(oldParrot) : v]));
    expect(await flatFailure((await as(member)).call(updateOwnStatus, resolved))).toEqual(bad(msg));
  });

  it('counts status_text in code points after stripping, at most 60', async () => {
    const client = await as(member);
    await client.call(updateOwnStatus, { status_text: `  ${'🐙'.repeat(60)}  ` });
    const res = await rawRequest(org, kind, { method: 'POST', path: '/users/me/status', body: [['status_text', 'x'.repeat(61)]] }, member);
    expect(res.body).toEqual({ result: 'error', msg: 'status_text is too long (limit: 60 characters)', code: 'BAD_REQUEST' });
  });

  it("lets an administrator set another user's status, without away", async () => {
    const q = openQueue(org, member);
    const target = org.addUser();
    await (await as(admin)).call(updateUserStatus, { user_id: target.id, status_text: 'In a meeting', emoji_name: 'car' });
    expect(takeEvents(org, q)).toEqual([
      { type: 'user_status', user_id: target.id, status_text: 'In a meeting', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' },
    ]);
    const res = await rawRequest(org, kind, { method: 'POST', path: `/users/${target.id}/status`, body: [['away', 'true']] }, admin);
    expect(res.body).toEqual({ result: 'error', msg: 'Client did not pass any new values.', code: 'BAD_REQUEST' });
  });

  it('refuses non-administrators, bots, deactivated and unknown users as targets', async () => {
    const bot = org.addUser({ bot: { type: 1, ownerId: admin.id } });
    const gone = org.addUser({ active: false });
    const adminClient = await as(admin);
    expect(await flatFailure((await as(member)).call(updateUserStatus, { user_id: admin.id, status_text: 'x' }))).toEqual(bad('Insufficient permission'));
    expect(await flatFailure(adminClient.call(updateUserStatus, { user_id: bot.id, status_text: 'x' }))).toEqual(bad('No such user'));
    expect(await flatFailure(adminClient.call(updateUserStatus, { user_id: gone.id, status_text: 'x' }))).toEqual(bad('User is deactivated'));
    expect(await flatFailure(adminClient.call(updateUserStatus, { user_id: 999999, status_text: 'x' }))).toEqual(bad('No such user'));
    expect(await flatFailure(adminClient.call(getUserStatus, { user_id: 999999 }))).toEqual(bad('No such user'));
    expect(await flatFailure(adminClient.call(getUserStatus, { user_id: bot.id }))).toEqual(bad('No such user'));
  });
});
