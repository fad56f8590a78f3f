import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomProfileField } from '../../src/api/operations/profile-fields.js';
import { createUser, getOwnUser, getUser, getUserByEmail, getUsers, updateUser, updateUserByEmail } from '../../src/api/operations/users.js';
import { setPermission } from '../../src/server/model/user-permissions.js';
import { getSetting, setSetting } from '../../src/server/model/realm.js';
import { bad, flatFailureWithExtra } from '../helpers/api.js';
import { eventErrors, openQueue, takeEvents } from '../helpers/events.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

const role = (org: TestOrg, user: TestUser) => org.db.prepare('SELECT role FROM users WHERE id = ?').pluck().get(user.id);
const nameOf = (org: TestOrg, user: TestUser) => org.db.prepare('SELECT full_name FROM users WHERE id = ?').pluck().get(user.id);

describe.each(TRANSPORTS)('users over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  let member: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200, name: 'Ada Admin' });
    // What a server's operator grants the administrator who creates accounts through the API.
    setPermission(org.db, admin.id, 'can_create_users', true);
    member = org.addUser({ name: 'Mel Member' });
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);

  describe('reading users', () => {
    it('lists custom profile values with rendered_value for Markdown fields only, valid against OpenAPI', async () => {
      const owner = await as(org.owner);
      const bio = (await owner.call(createCustomProfileField, { name: `Bio ${kind}`, field_type: 2 })).id;
      const editor = (await owner.call(createCustomProfileField, { name: `Editor ${kind}`, field_type: 3, field_data: { vim: { text: 'Vim', order: '1' } } }))
        .id;
      await owner.call(updateUser, {
        user_id: member.id,
        profile_data: [
          { id: bio, value: 'I *like* tea' },
          { id: editor, value: 'vim' },
        ],
      });
      const res = await owner.call(getUsers, { include_custom_profile_fields: true, user_ids: [member.id, admin.id] });
      expect(openapiErrors('get', '/users', 200, res)).toEqual([]);
      expect(res.members.map((m) => m.user_id)).toEqual([admin.id, member.id]);
      const mel = res.members.find((m) => m.user_id === member.id)!;
      expect(mel.profile_data).toEqual({
        [bio]: { value: 'I *like* tea', rendered_value: '<p>I <em>like</em> tea</p>' },
        [editor]: { value: 'vim' },
      });
      expect(res.members.find((m) => m.user_id === admin.id)!.profile_data).toEqual({});
      const without = await owner.call(getUsers, { user_ids: [member.id] });
      expect(without.members[0]).not.toHaveProperty('profile_data');
    });

    it('refuses an unknown ID in user_ids', async () => {
      expect(await flatFailureWithExtra((await as(member)).call(getUsers, { user_ids: [member.id, 999999] }))).toEqual(bad('Invalid user ID: 999999'));
    });

    it('reads one user by ID or e-mail, deactivated users and bots included', async () => {
      const gone = org.addUser({ active: false, name: 'Gone Person' });
      const bot = org.addUser({ bot: { type: 1, ownerId: member.id }, name: 'Some Bot' });
      const client = await as(member);
      const byId = await client.call(getUser, { user_id: gone.id });
      expect(openapiErrors('get', '/users/{user_id}', 200, byId)).toEqual([]);
      expect(byId.user).toMatchObject({ user_id: gone.id, is_active: false, full_name: 'Gone Person' });
      const botView = await client.call(getUser, { user_id: bot.id });
      expect(botView.user).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: member.id, delivery_email: bot.email });
      const byEmail = await client.call(getUserByEmail, { email: admin.email.toUpperCase() });
      expect(openapiErrors('get', '/users/{email}', 200, byEmail)).toEqual([]);
      expect(byEmail.user.user_id).toBe(admin.id);
      expect((await client.call(getUserByEmail, { email: `user${admin.id}@127.0.0.1` })).user.user_id).toBe(admin.id);
      expect(await flatFailureWithExtra(client.call(getUser, { user_id: 999999 }))).toEqual(bad('No such user'));
      expect(await flatFailureWithExtra(client.call(getUserByEmail, { email: 'nobody@example.com' }))).toEqual(bad('No such user'));
    });

    it("gives hidden addresses the organization's domain, never the host serve was reached by", async () => {
      // zerver/lib/users.py get_fake_email_domain(realm.host): the domain fixed when the organization was made.
      const [url, domain, visibility] = [getSetting(org.db, 'url'), getSetting(org.db, 'bot_domain'), getSetting(org.db, 'email_address_visibility')];
      setSetting(org.db, 'url', 'http://0.0.0.0:8080');
      setSetting(org.db, 'bot_domain', 'chat.acme.test');
      setSetting(org.db, 'email_address_visibility', 3);
      try {
        const client = await as(member);
        expect((await client.call(getUser, { user_id: admin.id })).user.email).toBe(`user${admin.id}@chat.acme.test`);
        expect((await client.call(getUserByEmail, { email: `user${admin.id}@chat.acme.test` })).user.user_id).toBe(admin.id);
      } finally {
        setSetting(org.db, 'url', url);
        setSetting(org.db, 'bot_domain', domain);
        setSetting(org.db, 'email_address_visibility', visibility);
      }
    });

    it('shows the caller with max_message_id and a non-null avatar_url', async () => {
      const me = await (await as(member)).call(getOwnUser, {});
      expect(openapiErrors('get', '/users/me', 200, me)).toEqual([]);
      expect(me).toMatchObject({ user_id: member.id, max_message_id: -1 });
      expect(me.avatar_url).toMatch(/^https:\/\//);
    });

    it("shows the caller as the whole user object: is_billing_admin, a human's profile_data, a bot's bot fields", async () => {
      // zerver/views/users.py get_profile_backend: get_users_for_api's user dict (custom profile fields included).
      const owner = await as(org.owner);
      const field = (await owner.call(createCustomProfileField, { name: `Pronouns ${kind}`, field_type: 1 })).id;
      await owner.call(updateUser, { user_id: member.id, profile_data: [{ id: field, value: 'they/them' }] });
      const me = await (await as(member)).call(getOwnUser, {});
      expect(openapiErrors('get', '/users/me', 200, me)).toEqual([]);
      expect(me).toMatchObject({ is_billing_admin: false, profile_data: { [field]: { value: 'they/them' } } });
      expect(me).not.toHaveProperty('bot_type');
      expect(me).not.toHaveProperty('bot_owner_id');
      const bot = org.addUser({ bot: { type: 1, ownerId: member.id } });
      const botSelf = await (await as(bot)).call(getOwnUser, {});
      expect(botSelf).toMatchObject({ user_id: bot.id, is_bot: true, bot_type: 1, bot_owner_id: member.id, is_billing_admin: false });
      expect(botSelf).not.toHaveProperty('profile_data');
      const listed = await owner.call(getUsers, { user_ids: [member.id, bot.id] });
      expect(listed.members.map((u) => u.is_billing_admin)).toEqual([false, false]);
      expect((await owner.call(getUser, { user_id: member.id })).user.is_billing_admin).toBe(false);
    });
  });

  describe('creating users', () => {
    it('creates an account subscribed to the default channels, and tells everyone', async () => {
      const q = openQueue(org, member);
      const res = await (await as(admin)).call(createUser, { email: `new-${kind}@example.com`, password: 'long-enough-1', full_name: 'Newton New' });
      expect(openapiErrors('post', '/users', 200, res)).toEqual([]);
      const general = org.db.prepare("SELECT id FROM streams WHERE name = 'general'").pluck().get();
      expect(org.db.prepare('SELECT stream_id FROM subscriptions WHERE user_id = ?').pluck().all(res.user_id)).toEqual([general]);
      const [event] = takeEvents(org, q);
      expect(event).toMatchObject({ type: 'realm_user', op: 'add', person: { user_id: res.user_id, full_name: 'Newton New', profile_data: {} } });
      expect(eventErrors(event!)).toEqual([]);
    });

    it('gives an account made through the API the time of its first login as date_joined (2.1), once', async () => {
      const email = `late-${kind}@example.com`;
      const password = 'long-enough-1';
      const created = org.clock.now();
      const { user_id } = await (await as(admin)).call(createUser, { email, password, full_name: 'Lee Late' });
      const joined = async () => (await (await as(admin)).call(getUser, { user_id })).user.date_joined;
      const iso = (t: number) => new Date(t * 1000).toISOString().replace('Z', '+00:00');
      expect(await joined()).toBe(iso(created));
      const login = () =>
        rawRequest(
          org,
          kind,
          {
            method: 'POST',
            path: '/fetch_api_key',
            body: [
              ['username', email],
              ['password', password],
            ],
          },
          null,
        );
      org.clock.advance(3600);
      expect((await login()).status).toBe(200);
      expect(await joined()).toBe(iso(created + 3600));
      org.clock.advance(3600);
      expect((await login()).status).toBe(200);
      expect(await joined()).toBe(iso(created + 3600));
      // An account that did not come from the API keeps its date.
      const ownerJoined = (await (await as(admin)).call(getUser, { user_id: org.owner.id })).user.date_joined;
      const ownerLogin = await rawRequest(
        org,
        kind,
        {
          method: 'POST',
          path: '/fetch_api_key',
          body: [
            ['username', org.owner.email],
            ['password', org.owner.password],
          ],
        },
        null,
      );
      expect(ownerLogin.status).toBe(200);
      expect((await (await as(admin)).call(getUser, { user_id: org.owner.id })).user.date_joined).toBe(ownerJoined);
    });

    it.each([
      ['a used address', { email: 'owner@example.com' }, "Email 'owner@example.com' already in use"],
      ['an invalid address', { email: 'not-an-address' }, 'Bad name or username'],
      ['a one-letter name', { full_name: 'X' }, 'Name too short!'],
      ['a name with @', { full_name: 'Ann @ Home' }, 'Invalid characters in name!'],
      ['a weak password', { password: 'abc' }, 'The password is too weak.'],
    ])('refuses %s', async (_what, change, msg) => {
      const params = { email: `fresh-${Math.random().toString(36).slice(2)}@example.com`, password: 'long-enough-1', full_name: 'Fresh Person', ...change };
      expect(await flatFailureWithExtra((await as(admin)).call(createUser, params))).toEqual(bad(msg));
    });

    it('needs the per-user permission to create users besides being an administrator, which no one holds by default', async () => {
      const other = org.addUser({ role: 200 });
      const params = { email: `perm-${kind}@example.com`, password: 'long-enough-1', full_name: 'Perm Person' };
      expect(await flatFailureWithExtra((await as(other)).call(createUser, params))).toEqual(bad('User not authorized to create users'));
      setPermission(org.db, other.id, 'can_create_users', true);
      expect((await (await as(other)).call(createUser, params)).user_id).toBeGreaterThan(0);
    });
  });

  describe('updating users', () => {
    it('changes a role, with realm_user and system group events, valid against OpenAPI', async () => {
      const target = org.addUser();
      const q = openQueue(org, member);
      const res = await (await as(admin)).call(updateUser, { user_id: target.id, role: 300 });
      expect(openapiErrors('patch', '/users/{user_id}', 200, res)).toEqual([]);
      expect(role(org, target)).toBe(300);
      const events = takeEvents(org, q);
      const groupId = (name: string) => org.db.prepare('SELECT id FROM user_groups WHERE name = ?').pluck().get(name);
      expect(events).toEqual([
        { type: 'realm_user', op: 'update', person: { user_id: target.id, role: 300 } },
        { type: 'user_group', op: 'remove_members', group_id: groupId('role:members'), user_ids: [target.id] },
        { type: 'user_group', op: 'remove_members', group_id: groupId('role:fullmembers'), user_ids: [target.id] },
        { type: 'user_group', op: 'add_members', group_id: groupId('role:moderators'), user_ids: [target.id] },
      ]);
      for (const e of events) expect(eventErrors(e)).toEqual([]);
    });

    it('lets only owners grant or remove the owner role', async () => {
      const target = org.addUser();
      const owner2 = org.addUser({ role: 100 });
      const client = await as(admin);
      expect(await flatFailureWithExtra(client.call(updateUser, { user_id: target.id, role: 100 }))).toEqual({
        msg: 'Must be an organization owner',
        code: 'UNAUTHORIZED_PRINCIPAL',
        status: 400,
      });
      expect(await flatFailureWithExtra(client.call(updateUser, { user_id: owner2.id, role: 400 }))).toMatchObject({ msg: 'Must be an organization owner' });
      await (await as(org.owner)).call(updateUser, { user_id: target.id, role: 100 });
      expect(role(org, target)).toBe(100);
    });

    it('keeps the owner role with the only owner', async () => {
      const solo = createTestOrg();
      try {
        const err = await flatFailureWithExtra((await clientFor(solo, kind, solo.owner)).call(updateUser, { user_id: solo.owner.id, role: 200 }));
        expect(err).toEqual(bad('The owner permission cannot be removed from the only organization owner.'));
      } finally {
        await solo.close();
      }
    });

    it('refuses a role outside the five', async () => {
      const res = await rawRequest(org, kind, { method: 'PATCH', path: `/users/${member.id}`, body: [['role', '500']] });
      expect(res.body).toEqual({ result: 'error', msg: 'Invalid role: Value error, Not in the list of possible values', code: 'BAD_REQUEST' });
    });

    it('maps the legacy is_admin/is_guest pair, refusing a guest administrator', async () => {
      const target = org.addUser();
      const guest = org.addUser({ role: 600 });
      const client = await as(admin);
      const err = await flatFailureWithExtra(client.call(updateUser, { user_id: target.id, is_admin: true, is_guest: true }));
      expect(err).toEqual(bad('Guests cannot be organization administrators'));
      expect(await flatFailureWithExtra(client.call(updateUser, { user_id: guest.id, is_admin: true }))).toEqual(
        bad('Guests cannot be organization administrators'),
      );
      await client.call(updateUser, { user_id: target.id, is_guest: true });
      expect(role(org, target)).toBe(600);
      await client.call(updateUser, { user_id: target.id, is_guest: false, is_admin: true });
      expect(role(org, target)).toBe(200);
      await client.call(updateUser, { user_id: target.id, is_admin: false });
      expect(role(org, target)).toBe(400);
    });

    it('renames with every name check, ignoring a blank name', async () => {
      const target = org.addUser({ name: 'Old Name' });
      const q = openQueue(org, member);
      const client = await as(admin);
      await client.call(updateUser, { user_id: target.id, full_name: '  New Name  ' });
      expect(nameOf(org, target)).toBe('New Name');
      const [event] = takeEvents(org, q);
      expect(event).toEqual({ type: 'realm_user', op: 'update', person: { user_id: target.id, full_name: 'New Name' } });
      expect(eventErrors(event!)).toEqual([]);
      await client.call(updateUser, { user_id: target.id, full_name: '   ' });
      expect(nameOf(org, target)).toBe('New Name');
      for (const [name, msg] of [
        ['x'.repeat(101), 'Name too long!'],
        ['A', 'Name too short!'],
        ['Back`tick', 'Invalid characters in name!'],
        ['Tab\tName', 'Invalid characters in name!'],
        ['Zero\u200bWidth', 'Invalid characters in name!'],
        ['Someone|15', 'Invalid format!'],
      ]) {
        expect(await flatFailureWithExtra(client.call(updateUser, { user_id: target.id, full_name: name! }))).toEqual(bad(msg!));
      }
    });

    it('requires unique names when the organization does, up to case and compatibility forms', async () => {
      const target = org.addUser({ name: 'Unique Person' });
      setSetting(org.db, 'require_unique_names', true);
      try {
        const err = await flatFailureWithExtra((await as(admin)).call(updateUser, { user_id: target.id, full_name: 'ＭＥＬ member' }));
        expect(err).toEqual(bad('Unique names required in this organization.'));
        await (await as(admin)).call(updateUser, { user_id: target.id, full_name: 'Unique Person' });
      } finally {
        setSetting(org.db, 'require_unique_names', false);
      }
    });

    it('lets a member rename their own bot but not change its role or anyone else', async () => {
      const bot = org.addUser({ bot: { type: 1, ownerId: member.id }, name: 'Mel Bot' });
      const q = openQueue(org, member);
      const client = await as(member);
      await client.call(updateUser, { user_id: bot.id, full_name: 'Mel Helper' });
      expect(takeEvents(org, q)).toEqual([
        { type: 'realm_user', op: 'update', person: { user_id: bot.id, full_name: 'Mel Helper' } },
        { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, full_name: 'Mel Helper' } },
      ]);
      expect(await flatFailureWithExtra(client.call(updateUser, { user_id: bot.id, role: 200 }))).toMatchObject({
        msg: 'Must be an organization administrator',
        code: 'UNAUTHORIZED_PRINCIPAL',
      });
      expect(await flatFailureWithExtra(client.call(updateUser, { user_id: admin.id, full_name: 'Hacked' }))).toEqual(bad('Insufficient permission'));
      expect(await flatFailureWithExtra(client.call(updateUser, { user_id: 999999, full_name: 'Nobody' }))).toEqual(bad('No such user'));
    });

    it('changes an e-mail address (owners allowed to), telling who may see it', async () => {
      const target = org.addUser({ email: `before-${kind}@example.com` });
      const q = openQueue(org, member);
      await (await as(org.owner)).call(updateUser, { user_id: target.id, new_email: `after-${kind}@example.com` });
      expect(org.db.prepare('SELECT email FROM users WHERE id = ?').pluck().get(target.id)).toBe(`after-${kind}@example.com`);
      const events = takeEvents(org, q);
      expect(events.map((e) => Object.keys(e.person as object).sort())).toEqual([
        ['delivery_email', 'user_id'],
        ['new_email', 'user_id'],
        ['avatar_source', 'avatar_url', 'avatar_url_medium', 'avatar_version', 'user_id'],
      ]);
      for (const e of events) expect(eventErrors(e)).toEqual([]);
    });

    it('refuses e-mail changes to administrators, to owners without the permission, and bad or used addresses', async () => {
      const target = org.addUser();
      const owner = await as(org.owner);
      expect(await flatFailureWithExtra((await as(admin)).call(updateUser, { user_id: target.id, new_email: 'x@example.com' }))).toEqual(
        bad('User not authorized to change user emails'),
      );
      expect(await flatFailureWithExtra(owner.call(updateUser, { user_id: target.id, new_email: admin.email }))).toEqual(
        bad(`Email '${admin.email}' already in use`),
      );
      expect(await flatFailureWithExtra(owner.call(updateUser, { user_id: target.id, new_email: 'no-at-sign' }))).toEqual(bad('Invalid address.'));
      // Another owner does not hold the permission the organization's creator was given.
      const otherOwner = org.addUser({ role: 100 });
      expect(await flatFailureWithExtra((await as(otherOwner)).call(updateUser, { user_id: target.id, new_email: 'y@example.com' }))).toEqual(
        bad('User not authorized to change user emails'),
      );
      setPermission(org.db, otherOwner.id, 'can_change_user_emails', true);
      await (await as(otherOwner)).call(updateUser, { user_id: target.id, new_email: `y-${kind}@example.com` });
    });

    it('updates a user named by e-mail (feature level 313)', async () => {
      const target = org.addUser({ name: 'By Email' });
      await (await as(admin)).call(updateUserByEmail, { email: target.email, full_name: 'By Address' });
      expect(nameOf(org, target)).toBe('By Address');
      expect(await flatFailureWithExtra((await as(admin)).call(updateUserByEmail, { email: 'ghost@example.com', full_name: 'Ghost' }))).toEqual(
        bad('No such user'),
      );
    });
  });
});
