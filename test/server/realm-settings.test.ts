/**
 * PATCH /realm beyond the name: every kind of organization setting as today's Zulip writes it
 * (zerver/views/realm.py update_realm), read back through POST /register, announced to every queue, with
 * the owner-only settings refused to administrators and invalid values refused with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register } from '../../src/api/operations/events.js';
import { createUserGroup } from '../../src/api/operations/groups.js';
import { sendInvites } from '../../src/api/operations/invites.js';
import { sendMessage, updateMessage } from '../../src/api/operations/messages.js';
import { updateRealm } from '../../src/api/operations/server.js';
import type { CallParamsOf } from '../../src/api/operation.js';
import { REALM_SETTINGS, type RealmSettingName } from '../../src/api/realm-settings.js';
import { systemGroupId } from '../../src/server/model/system-groups.js';
import { bad, failure, flatFailure } from '../helpers/api.js';
import { ownerChannel } from '../helpers/channels.js';
import { eventErrors, openQueue, takeEvents } from '../helpers/events.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('organization settings over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  let member: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200 });
    member = org.addUser();
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const group = (name: string) => systemGroupId(org.db, name)!;
  const realmState = async (user: TestUser = org.owner) => {
    const state = await (await as(user)).call(register, { fetch_event_types: ['realm'] });
    expect(openapiErrors('post', '/register', 200, state)).toEqual([]);
    return state;
  };
  const stored = () =>
    Object.fromEntries(
      (org.db.prepare('SELECT key, value FROM realm_settings ORDER BY key').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]),
    );

  it('starts a new organization with the defaults of a new Zulip organization', async () => {
    const fresh = createTestOrg();
    try {
      const state = await (await clientFor(fresh, kind)).call(register, { fetch_event_types: ['realm'] });
      const id = (name: string) => systemGroupId(fresh.db, name);
      expect(state).toMatchObject({
        realm_allow_message_editing: true,
        realm_message_content_edit_limit_seconds: 600,
        realm_move_messages_within_stream_limit_seconds: 604800,
        realm_move_messages_between_streams_limit_seconds: 604800,
        realm_invite_required: true,
        realm_emails_restricted_to_domains: false,
        realm_disallow_disposable_email_addresses: true,
        realm_waiting_period_threshold: 0,
        realm_message_retention_days: -1,
        realm_video_chat_provider: 1,
        realm_enable_spectator_access: false,
        realm_zulip_update_announcements_stream_id: -1,
        realm_create_multiuse_invite_group: id('role:administrators'),
        realm_can_access_all_users_group: id('role:everyone'),
        realm_can_add_subscribers_group: id('role:members'),
        realm_can_create_groups: id('role:members'),
        realm_can_invite_users_group: id('role:members'),
        realm_can_manage_all_groups: id('role:owners'),
        realm_can_move_messages_between_topics_group: id('role:everyone'),
        realm_can_resolve_topics_group: id('role:everyone'),
      });
    } finally {
      await fresh.close();
    }
  });

  it('writes each kind of setting, answers as Zulip does, tells every queue and shows it in register', async () => {
    const channel = await ownerChannel(org, await as(org.owner), [member]);
    const q = openQueue(org, member);
    const anonymous = { direct_members: [member.id], direct_subgroups: [group('role:moderators')] };
    const answer = await (await as(org.owner)).call(updateRealm, {
      description: `Settings ${kind}`,
      allow_message_editing: false,
      message_content_edit_limit_seconds: 300,
      move_messages_within_stream_limit_seconds: 'unlimited',
      message_retention_days: 30,
      invite_required: false,
      signup_announcements_stream_id: channel.id,
      can_invite_users_group: { new: group('role:administrators') },
      can_create_groups: { new: anonymous, old: group('role:members') },
    });
    expect(answer).toEqual({
      result: 'success',
      msg: '',
      description: 'updated',
      allow_message_editing: false,
      message_content_edit_limit_seconds: 300,
      move_messages_within_stream_limit_seconds: null,
      message_retention_days: 30,
      invite_required: false,
      signup_announcements_stream_id: channel.id,
      can_invite_users_group: group('role:administrators'),
      can_create_groups: anonymous,
    });
    const events = takeEvents(org, q);
    expect(events).toEqual([
      // A time limit set to "unlimited" is written while it is read, before the rest.
      { type: 'realm', op: 'update', property: 'move_messages_within_stream_limit_seconds', value: null },
      { type: 'realm', op: 'update_dict', property: 'default', data: { allow_message_editing: false } },
      { type: 'realm', op: 'update', property: 'description', value: `Settings ${kind}` },
      { type: 'realm', op: 'update', property: 'invite_required', value: false },
      { type: 'realm', op: 'update_dict', property: 'default', data: { message_content_edit_limit_seconds: 300 } },
      { type: 'realm', op: 'update', property: 'message_retention_days', value: 30 },
      { type: 'realm', op: 'update_dict', property: 'default', data: { can_create_groups: anonymous } },
      { type: 'realm', op: 'update_dict', property: 'default', data: { can_invite_users_group: group('role:administrators') } },
      { type: 'realm', op: 'update', property: 'signup_announcements_stream_id', value: channel.id },
    ]);
    for (const e of events) expect(eventErrors(e)).toEqual([]);
    expect(await realmState(member)).toMatchObject({
      realm_description: `Settings ${kind}`,
      realm_allow_message_editing: false,
      realm_message_content_edit_limit_seconds: 300,
      realm_move_messages_within_stream_limit_seconds: null,
      realm_message_retention_days: 30,
      realm_invite_required: false,
      realm_signup_announcements_stream_id: channel.id,
      realm_can_invite_users_group: group('role:administrators'),
      realm_can_create_groups: anonymous,
    });

    // Back, with "unlimited" retention and no announcement channel.
    await (await as(org.owner)).call(updateRealm, {
      allow_message_editing: true,
      message_retention_days: 'unlimited',
      signup_announcements_stream_id: -1,
      can_invite_users_group: { new: group('role:members') },
      can_create_groups: { new: { direct_members: [], direct_subgroups: [group('role:members')] } },
    });
    expect(await realmState()).toMatchObject({
      realm_allow_message_editing: true,
      realm_message_retention_days: -1,
      realm_signup_announcements_stream_id: -1,
      realm_can_invite_users_group: group('role:members'),
      realm_can_create_groups: group('role:members'),
    });
  });

  it('answers nothing and tells no one when nothing changes, anonymous groups compared as sets', async () => {
    const owner = await as(org.owner);
    const other = org.addUser();
    await owner.call(updateRealm, { can_resolve_topics_group: { new: { direct_members: [member.id, other.id], direct_subgroups: [] } } });
    const q = openQueue(org, member);
    const answer = await owner.call(updateRealm, {
      require_unique_names: false,
      move_messages_between_streams_limit_seconds: 604800,
      can_resolve_topics_group: { new: { direct_members: [other.id, member.id], direct_subgroups: [] } },
    });
    expect(answer).toEqual({ result: 'success', msg: '' });
    expect(takeEvents(org, q)).toEqual([]);
    await owner.call(updateRealm, { can_resolve_topics_group: { new: group('role:everyone') } });
  });

  it('counts asking for no announcement channel as a change even when there is none, as Zulip compares it', async () => {
    const q = openQueue(org, member);
    const answer = await (await as(admin)).call(updateRealm, { zulip_update_announcements_stream_id: -1 });
    expect(answer).toEqual({ result: 'success', msg: '', zulip_update_announcements_stream_id: -1 });
    expect(takeEvents(org, q)).toEqual([{ type: 'realm', op: 'update', property: 'zulip_update_announcements_stream_id', value: -1 }]);
  });

  it('refuses every owner-only setting to an administrator, writing nothing of the request', async () => {
    const values: Partial<Record<RealmSettingName, unknown>> = {
      emails_restricted_to_domains: true,
      disallow_disposable_email_addresses: false,
      invite_required: false,
      waiting_period_threshold: 3,
      message_retention_days: 10,
    };
    const ownerOnly = (Object.keys(REALM_SETTINGS) as RealmSettingName[]).filter((name) => 'ownerOnly' in REALM_SETTINGS[name].setting);
    expect(ownerOnly.sort()).toEqual(
      [
        'can_create_groups',
        'can_invite_users_group',
        'can_manage_all_groups',
        'create_multiuse_invite_group',
        'disallow_disposable_email_addresses',
        'emails_restricted_to_domains',
        'invite_required',
        'message_retention_days',
        'waiting_period_threshold',
      ].sort(),
    );
    const before = stored();
    for (const name of ownerOnly) {
      const value = REALM_SETTINGS[name].setting.kind === 'group' ? { new: group('role:moderators') } : values[name];
      const res = await rawRequest(
        org,
        kind,
        {
          method: 'PATCH',
          path: '/realm',
          body: [
            ['name', 'Taken over'],
            [name, JSON.stringify(value)],
          ],
        },
        admin,
      );
      expect({ name, status: res.status, body: res.body }).toEqual({
        name,
        status: 400,
        body: { result: 'error', msg: 'Must be an organization owner', code: 'UNAUTHORIZED_PRINCIPAL' },
      });
    }
    expect(stored()).toEqual(before);
  });

  it('is for administrators: members and guests are refused', async () => {
    const guest = org.addUser({ role: 600 });
    for (const user of [member, guest]) {
      expect(await flatFailure((await as(user)).call(updateRealm, { require_unique_names: true }))).toEqual({
        msg: 'Must be an organization administrator',
        code: 'UNAUTHORIZED_PRINCIPAL',
        status: 400,
      });
    }
  });

  it("refuses invalid values with Zulip's texts, writing nothing of the request", async () => {
    const owner = await as(org.owner);
    const { group_id: named } = await owner.call(createUserGroup, { name: `named ${kind}`, description: '', members: [member.id] });
    const gone = org.addUser({ active: false });
    const before = stored();
    const refused = async (params: CallParamsOf<typeof updateRealm>) => flatFailure(owner.call(updateRealm, { name: 'Never written', ...params }));
    expect(await refused({ message_content_edit_limit_seconds: 0 })).toEqual({
      msg: "Bad value for 'message_content_edit_limit_seconds': 0",
      code: 'REQUEST_VARIABLE_INVALID',
      status: 400,
    });
    const forever = await failure(owner.call(updateRealm, { message_retention_days: 'forever' }));
    expect({ msg: forever.msg, ...forever.extra }).toEqual({
      msg: "Bad value for 'message_retention_days': forever",
      var_name: 'message_retention_days',
      bad_value: 'forever',
    });
    expect(await refused({ video_chat_provider: 3 })).toEqual(bad('Invalid video_chat_provider 3'));
    expect(await refused({ waiting_period_threshold: -1 })).toEqual(bad('waiting_period_threshold is too small'));
    expect(await refused({ signup_announcements_stream_id: 999999 })).toEqual(bad('Invalid channel ID'));
    expect(await refused({ can_access_all_users_group: { new: group('role:moderators') } })).toEqual(
      bad("'can_access_all_users_group' setting cannot be set to 'role:moderators' group."),
    );
    expect(await refused({ can_access_all_users_group: { new: named } })).toEqual(bad("'can_access_all_users_group' must be a system user group."));
    expect(await refused({ can_access_all_users_group: { new: { direct_members: [member.id], direct_subgroups: [] } } })).toEqual(
      bad("'can_access_all_users_group' must be a system user group."),
    );
    expect(await refused({ can_manage_all_groups: { new: { direct_members: [], direct_subgroups: [] } } })).toEqual(
      bad("'can_manage_all_groups' setting cannot be set to 'role:nobody' group."),
    );
    expect(await refused({ can_add_subscribers_group: { new: group('role:everyone') } })).toEqual(
      bad("'can_add_subscribers_group' setting cannot be set to 'role:everyone' group."),
    );
    expect(await refused({ can_resolve_topics_group: { new: group('role:internet') } })).toEqual(
      bad("'can_resolve_topics_group' setting cannot be set to 'role:internet' group."),
    );
    expect(await refused({ can_create_bots_group: { new: 999999 } })).toEqual(bad('Invalid user group'));
    expect(await refused({ can_create_bots_group: { new: { direct_members: [gone.id], direct_subgroups: [] } } })).toEqual(bad(`Invalid user ID: ${gone.id}`));
    expect(await refused({ can_create_bots_group: { new: { direct_members: [member.id], direct_subgroups: [999999] } } })).toEqual(
      bad('Invalid user group ID: 999999'),
    );
    expect(await refused({ can_create_bots_group: { new: named, old: group('role:moderators') } })).toEqual({
      msg: "'old' value does not match the expected value.",
      code: 'EXPECTATION_MISMATCH',
      status: 400,
    });
    // A bare group ID is an older servers' form: today's update_realm takes only {"new": ..., "old": ...}.
    const bare = await rawRequest(org, kind, { method: 'PATCH', path: '/realm', body: [['can_create_bots_group', String(named)]] });
    expect(bare.body).toEqual({ result: 'error', msg: 'can_create_bots_group is not a dict', code: 'BAD_REQUEST' });
    expect(stored()).toEqual(before);
  });

  it('lists parameters it does not know in ignored_parameters_unsupported, and still writes the rest', async () => {
    const res = await rawRequest(org, kind, {
      method: 'PATCH',
      path: '/realm',
      body: [
        ['mandatory_topics', 'true'],
        ['allow_edit_history', 'false'],
        ['enable_spectator_access', 'true'],
      ],
    });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      enable_spectator_access: true,
      ignored_parameters_unsupported: ['allow_edit_history', 'mandatory_topics'],
    });
    expect(await realmState()).toMatchObject({ realm_enable_spectator_access: true, realm_allow_edit_history: true });
  });

  it('grants what a group-valued setting names, named and anonymous groups included', async () => {
    const owner = await as(org.owner);
    const inGroup = org.addUser();
    const outside = org.addUser();
    const { group_id: inviters } = await owner.call(createUserGroup, { name: `inviters ${kind}`, description: '', members: [inGroup.id] });
    await owner.call(updateRealm, { can_invite_users_group: { new: inviters } });
    const invite = (user: TestUser, address: string) => as(user).then((c) => c.call(sendInvites, { invitee_emails: address, stream_ids: [] }));
    await invite(inGroup, `yes-${kind}@example.com`);
    expect(await flatFailure(invite(outside, `no-${kind}@example.com`))).toEqual(bad('Insufficient permission'));
    const mayInvite = async (user: TestUser) => (await (await as(user)).call(register, { fetch_event_types: ['realm_user'] })).can_invite_others_to_realm;
    expect([await mayInvite(inGroup), await mayInvite(outside)]).toEqual([true, false]);

    const channel = await ownerChannel(org, owner, [inGroup, outside]);
    const sent = await owner.call(sendMessage, { type: 'stream', to: channel.name, topic: 'question', content: 'how?' });
    await owner.call(updateRealm, { can_resolve_topics_group: { new: { direct_members: [outside.id], direct_subgroups: [] } } });
    expect(await flatFailure((await as(inGroup)).call(updateMessage, { message_id: sent.id, topic: '✔ question' }))).toEqual(
      bad("You don't have permission to resolve topics in this channel."),
    );
    await (await as(outside)).call(updateMessage, { message_id: sent.id, topic: '✔ question' });
    await owner.call(updateRealm, { can_invite_users_group: { new: group('role:members') }, can_resolve_topics_group: { new: group('role:everyone') } });
  });

  it('holds content edits to the limit it sets', async () => {
    const owner = await as(org.owner);
    const channel = await ownerChannel(org, owner, [member]);
    await owner.call(updateRealm, { message_content_edit_limit_seconds: 60 });
    const sent = await (await as(member)).call(sendMessage, { type: 'stream', to: channel.name, topic: 't', content: 'first' });
    org.clock.advance(100);
    expect(await flatFailure((await as(member)).call(updateMessage, { message_id: sent.id, content: 'second' }))).toEqual(
      bad('The time limit for editing this message has passed'),
    );
    await owner.call(updateRealm, { message_content_edit_limit_seconds: 'unlimited' });
    await (await as(member)).call(updateMessage, { message_id: sent.id, content: 'second' });
  });
});
