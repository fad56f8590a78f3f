import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEvents, register } from '../../src/api/operations/events.js';
import {
  createUserGroup,
  deactivateUserGroup,
  getIsUserGroupMember,
  getUserGroupMembers,
  getUserGroups,
  getUserGroupSubgroups,
  updateUserGroup,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
} from '../../src/api/operations/groups.js';
import type { CallParamsOf } from '../../src/api/operation.js';
import { updateRealm } from '../../src/api/operations/server.js';
import type { ChatClient } from '../../src/client/client.js';
import { bad, failure, flatFailure, flatFailureWithExtra } from '../helpers/api.js';
import { openQueue, takeEvents } from '../helpers/events.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('user groups over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const systemId = (name: string) => (org.db.prepare('SELECT id FROM user_groups WHERE name = ?').get(name) as { id: number }).id;

  /** A group created by `creator` (default the owner) with these members. */
  async function group(members: number[] = [], creator: ChatClient = owner): Promise<number> {
    return (await creator.call(createUserGroup, { name: unique('group', '-'), description: 'A group', members })).group_id;
  }

  describe('GET /user_groups', () => {
    it('lists the system groups with members derived from roles and chained subgroups', async () => {
      const fresh = createTestOrg();
      try {
        const admin = fresh.addUser({ role: 200 });
        const guest = fresh.addUser({ role: 600 });
        const member = fresh.addUser();
        fresh.addUser({ role: 200, active: false });
        const res = await (await clientFor(fresh, kind)).call(getUserGroups, {});
        expect(openapiErrors('get', '/user_groups', 200, res)).toEqual([]);
        const byName = new Map(res.user_groups.map((g) => [g.name, g]));
        const id = (name: string) => byName.get(name)!.id;
        expect(byName.get('role:owners')).toMatchObject({ members: [fresh.owner.id], direct_subgroup_ids: [], is_system_group: true, deactivated: false });
        expect(byName.get('role:administrators')).toMatchObject({ members: [admin.id], direct_subgroup_ids: [id('role:owners')] });
        expect(byName.get('role:members')).toMatchObject({ members: [member.id], direct_subgroup_ids: [id('role:fullmembers')] });
        expect(byName.get('role:everyone')).toMatchObject({ members: [guest.id], direct_subgroup_ids: [id('role:members')] });
        expect(byName.get('role:nobody')).toMatchObject({ members: [], direct_subgroup_ids: [] });
        expect(byName.get('role:owners')!.can_manage_group).toBe(id('role:nobody'));
        const everyone = await (await clientFor(fresh, kind)).call(getUserGroupMembers, { user_group_id: id('role:everyone') });
        expect(everyone.members).toEqual([fresh.owner.id, admin.id, guest.id, member.id].sort((a, b) => a - b));
      } finally {
        await fresh.close();
      }
    });

    it('is refused to guests and bots', async () => {
      const guest = await as(org.addUser({ role: 600 }));
      expect((await failure(guest.call(getUserGroups, {}))).msg).toBe('Not allowed for guest users');
      const bot = await as(org.addUser({ bot: { type: 1, ownerId: org.owner.id } }));
      expect((await failure(bot.call(getUserGroups, {}))).msg).toBe('This endpoint does not accept bot requests.');
    });
  });

  describe('POST /user_groups/create', () => {
    it('creates a group with members, subgroups and default permissions, announced with user_group events', async () => {
      const a = org.addUser();
      const b = org.addUser();
      const sub = await group([b.id]);
      const listener = await as(org.addUser());
      const { queue_id } = await listener.call(register, { event_types: ['user_group'], fetch_event_types: [] });
      const name = unique('team', '-');
      const res = await owner.call(createUserGroup, { name, description: 'The team', members: [a.id], subgroups: [sub] });
      expect(typeof res.group_id).toBe('number');
      // group_id is newer (feature level 317) than the description, whose other groups use the name.
      expect(openapiErrors('post', '/user_groups/create', 200, res)).toEqual([]);
      const created = (await owner.call(getUserGroups, {})).user_groups.find((g) => g.id === res.group_id)!;
      expect(created).toEqual({
        id: res.group_id,
        name,
        description: 'The team',
        members: [a.id],
        direct_subgroup_ids: [sub],
        is_system_group: false,
        date_created: org.clock.now(),
        creator_id: org.owner.id,
        deactivated: false,
        can_add_members_group: { direct_members: [org.owner.id], direct_subgroups: [] },
        can_join_group: systemId('role:nobody'),
        can_leave_group: systemId('role:everyone'),
        can_manage_group: { direct_members: [org.owner.id], direct_subgroups: [] },
        can_mention_group: systemId('role:everyone'),
        can_remove_members_group: systemId('role:nobody'),
      });
      expect((await owner.call(getUserGroupMembers, { user_group_id: res.group_id })).members).toEqual([a.id, b.id].sort((x, y) => x - y));
      const { events } = await listener.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true });
      expect(events.map((e) => e.op)).toEqual(['add', 'add_subgroups']);
      expect(events[1]).toEqual({ type: 'user_group', op: 'add_subgroups', group_id: res.group_id, direct_subgroup_ids: [sub], id: 1 });
    });

    it('takes permission settings as group IDs or anonymous groups, in canonical form', async () => {
      const m = org.addUser();
      const admins = systemId('role:administrators');
      const { group_id } = await owner.call(createUserGroup, {
        name: unique('configured', '-'),
        description: '',
        members: [],
        can_join_group: { direct_members: [], direct_subgroups: [admins] },
        can_manage_group: { direct_members: [m.id], direct_subgroups: [admins] },
        can_mention_group: { direct_members: [], direct_subgroups: [] },
      });
      const g = (await owner.call(getUserGroups, {})).user_groups.find((x) => x.id === group_id)!;
      expect(g).toMatchObject({
        can_join_group: admins,
        can_manage_group: { direct_members: [m.id], direct_subgroups: [admins] },
        can_mention_group: systemId('role:nobody'),
      });
      const internet = await failure(
        owner.call(createUserGroup, { name: unique('x', '-'), description: '', members: [], can_mention_group: systemId('role:internet') }),
      );
      expect(internet.msg).toBe("'can_mention_group' setting cannot be set to 'role:internet' group.");
      const everyone = await failure(
        owner.call(createUserGroup, { name: unique('x', '-'), description: '', members: [], can_join_group: systemId('role:everyone') }),
      );
      expect(everyone.msg).toBe("'can_join_group' setting cannot be set to 'role:everyone' group.");
      expect((await failure(owner.call(createUserGroup, { name: unique('x', '-'), description: '', members: [], can_join_group: 99999 }))).msg).toBe(
        'Invalid user group',
      );
    });

    it('refuses bad names, duplicates, unknown or deactivated members and subgroups', async () => {
      const name = unique('dup', '-');
      await owner.call(createUserGroup, { name, description: '', members: [] });
      const gone = org.addUser({ active: false });
      const cases: [Parameters<typeof owner.call<typeof createUserGroup>>[1], string][] = [
        [{ name, description: '', members: [] }, `User group '${name}' already exists.`],
        [{ name: '  ', description: '', members: [] }, "User group name can't be empty!"],
        [{ name: 'g'.repeat(101), description: '', members: [] }, 'User group name cannot exceed 100 characters.'],
        [{ name: 'role:mine', description: '', members: [] }, "User group name cannot start with 'role:'."],
        [{ name: '@all', description: '', members: [] }, "User group name cannot start with '@'."],
        [{ name: unique('m', '-'), description: '', members: [424242] }, 'Invalid user ID: 424242'],
        [{ name: unique('m', '-'), description: '', members: [gone.id] }, `Invalid user ID: ${gone.id}`],
        [{ name: unique('m', '-'), description: '', members: [], subgroups: [777777] }, 'Invalid user group ID: 777777'],
      ];
      for (const [params, msg] of cases) {
        expect(await failure(owner.call(createUserGroup, params))).toMatchObject({ msg, code: 'BAD_REQUEST' });
      }
      // Nothing of a refused request stays.
      expect(org.db.prepare("SELECT count(*) AS n FROM user_groups WHERE name LIKE 'm-%'").get()).toEqual({ n: 0 });
    });
  });

  describe('POST /user_groups/{id}/members', () => {
    it('adds and removes members in one request, with add_members and remove_members events', async () => {
      const [a, b, c] = [org.addUser(), org.addUser(), org.addUser()];
      const id = await group([a.id]);
      const listener = await as(org.addUser({ role: 600 }));
      const { queue_id } = await listener.call(register, { event_types: ['user_group'], fetch_event_types: [] });
      const res = await owner.call(updateUserGroupMembers, { user_group_id: id, add: [b.id, c.id], delete: [a.id] });
      expect(res).toEqual({ result: 'success', msg: '' });
      expect((await owner.call(getUserGroupMembers, { user_group_id: id, direct_member_only: true })).members).toEqual([b.id, c.id]);
      const { events } = await listener.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true });
      expect(events).toEqual([
        { type: 'user_group', op: 'add_members', group_id: id, user_ids: [b.id, c.id], id: 0 },
        { type: 'user_group', op: 'remove_members', group_id: id, user_ids: [a.id], id: 1 },
      ]);
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events })).toEqual([]);
    });

    it('gives each documented error', async () => {
      const a = org.addUser();
      const id = await group([a.id]);
      const msg = async (params: Omit<Parameters<typeof owner.call<typeof updateUserGroupMembers>>[1], 'user_group_id'>, groupId = id) =>
        (await failure(owner.call(updateUserGroupMembers, { user_group_id: groupId, ...params }))).msg;
      expect(await msg({})).toBe('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
      expect(await msg({ add: [], delete: [] })).toBe('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
      expect(await msg({ add: [a.id] }, 99999)).toBe('Invalid user group');
      expect(await msg({ add: [a.id] }, systemId('role:members'))).toBe('Insufficient permission');
      expect(await msg({ add: [a.id] })).toBe(`User ${a.id} is already a member of this group`);
      expect(await msg({ add: [313131] })).toBe('Invalid user ID: 313131');
      const gone = org.addUser({ active: false });
      expect(await msg({ add: [gone.id] })).toBe(`Invalid user ID: ${gone.id}`);
      const outsider = org.addUser();
      expect(await msg({ delete: [outsider.id] })).toBe(`There is no member '${outsider.id}' in this user group`);
      expect(await msg({ add_subgroups: [424242] })).toBe('Invalid user group ID: 424242');
    });

    it('follows the permission rules: creator and owners manage; joining and leaving have their own settings', async () => {
      const creatorUser = org.addUser();
      const creator = await as(creatorUser);
      const id = await group([], creator);
      const other = org.addUser();
      const otherClient = await as(other);
      const admin = await as(org.addUser({ role: 200 }));
      // Administrators are not in can_manage_all_groups (owners) by default.
      expect((await failure(admin.call(updateUserGroupMembers, { user_group_id: id, add: [other.id] }))).msg).toBe('Insufficient permission');
      expect((await failure(otherClient.call(updateUserGroupMembers, { user_group_id: id, add: [other.id] }))).msg).toBe('Insufficient permission');
      await creator.call(updateUserGroupMembers, { user_group_id: id, add: [other.id] });
      // can_leave_group is role:everyone: a member may leave on their own, but not remove others.
      expect((await failure(otherClient.call(updateUserGroupMembers, { user_group_id: id, delete: [creatorUser.id, other.id] }))).msg).toBe(
        'Insufficient permission',
      );
      await otherClient.call(updateUserGroupMembers, { user_group_id: id, delete: [other.id] });
      await owner.call(updateUserGroupMembers, { user_group_id: id, add: [other.id] });
      // Joining is allowed by can_join_group.
      const joiner = org.addUser();
      const joinable = (
        await owner.call(createUserGroup, { name: unique('open', '-'), description: '', members: [], can_join_group: systemId('role:members') })
      ).group_id;
      await (await as(joiner)).call(updateUserGroupMembers, { user_group_id: joinable, add: [joiner.id] });
      expect((await owner.call(getIsUserGroupMember, { user_group_id: joinable, user_id: joiner.id })).is_user_group_member).toBe(true);
    });

    it('changes members of a deactivated group', async () => {
      const a = org.addUser();
      const id = await group();
      org.db.prepare('UPDATE user_groups SET deactivated = 1 WHERE id = ?').run(id);
      await owner.call(updateUserGroupMembers, { user_group_id: id, add: [a.id] });
      const listed = await owner.call(getUserGroups, {});
      expect(listed.user_groups.map((g) => g.id)).not.toContain(id);
      const all = await owner.call(getUserGroups, { include_deactivated_groups: true });
      expect(all.user_groups.find((g) => g.id === id)).toMatchObject({ deactivated: true, members: [a.id] });
    });

    it('adds and removes subgroups, refusing duplicates, cycles and non-subgroups', async () => {
      const top = await group();
      const middle = await group();
      const bottom = await group();
      await owner.call(updateUserGroupMembers, { user_group_id: top, add_subgroups: [middle] });
      await owner.call(updateUserGroupSubgroups, { user_group_id: middle, add: [bottom] });
      const msg = async (groupId: number, params: { add_subgroups?: number[]; delete_subgroups?: number[] }) =>
        (await failure(owner.call(updateUserGroupMembers, { user_group_id: groupId, ...params }))).msg;
      expect(await msg(top, { add_subgroups: [middle] })).toBe(`User group ${middle} is already a subgroup of this group.`);
      expect(await msg(bottom, { add_subgroups: [top] })).toBe(`User group ${bottom} is already a subgroup of one of the passed subgroups.`);
      expect(await msg(top, { add_subgroups: [top] })).toBe(`User group ${top} is already a subgroup of one of the passed subgroups.`);
      expect(await msg(top, { delete_subgroups: [bottom] })).toBe(`User group ${bottom} is not a subgroup of this group.`);
      expect((await owner.call(getUserGroupSubgroups, { user_group_id: top })).subgroups).toEqual([middle, bottom]);
      expect((await owner.call(getUserGroupSubgroups, { user_group_id: top, direct_subgroup_only: true })).subgroups).toEqual([middle]);
      await owner.call(updateUserGroupMembers, { user_group_id: top, delete_subgroups: [middle] });
      const sub = await owner.call(getUserGroupSubgroups, { user_group_id: top });
      expect(openapiErrors('get', '/user_groups/{user_group_id}/subgroups', 200, sub)).toEqual([]);
      expect(sub.subgroups).toEqual([]);
      expect((await failure(owner.call(updateUserGroupSubgroups, { user_group_id: top }))).msg).toBe(
        'Nothing to do. Specify at least one of "add" or "delete".',
      );
      const deactivated = await group();
      org.db.prepare('UPDATE user_groups SET deactivated = 1 WHERE id = ?').run(deactivated);
      expect(await msg(top, { add_subgroups: [deactivated] })).toBe('User group is deactivated.');
      // System groups may be subgroups.
      await owner.call(updateUserGroupMembers, { user_group_id: top, add_subgroups: [systemId('role:administrators')] });
    });
  });

  describe('GET /user_groups/{id}/members[/{user_id}]', () => {
    it('lists members with or without those of subgroups, and answers membership', async () => {
      const [a, b] = [org.addUser(), org.addUser()];
      const inner = await group([b.id]);
      const outer = await group([a.id]);
      await owner.call(updateUserGroupSubgroups, { user_group_id: outer, add: [inner] });
      const all = await owner.call(getUserGroupMembers, { user_group_id: outer });
      expect(openapiErrors('get', '/user_groups/{user_group_id}/members', 200, all)).toEqual([]);
      expect(all.members).toEqual([a.id, b.id]);
      const viaSub = await owner.call(getIsUserGroupMember, { user_group_id: outer, user_id: b.id });
      expect(openapiErrors('get', '/user_groups/{user_group_id}/members/{user_id}', 200, viaSub)).toEqual([]);
      expect(viaSub.is_user_group_member).toBe(true);
      expect((await owner.call(getIsUserGroupMember, { user_group_id: outer, user_id: b.id, direct_member_only: true })).is_user_group_member).toBe(false);
      expect((await failure(owner.call(getIsUserGroupMember, { user_group_id: outer, user_id: 999999 }))).msg).toBe('No such user');
      expect((await failure(owner.call(getUserGroupMembers, { user_group_id: 999999 }))).msg).toBe('Invalid user group');
      const raw = await rawRequest(org, kind, { method: 'GET', path: `/user_groups/${outer}/members`, query: [['direct_member_only', 'yes']] });
      expect(raw.body).toMatchObject({ msg: 'direct_member_only is not valid JSON' });
    });
  });
  const view = async (id: number) => (await owner.call(getUserGroups, { include_deactivated_groups: true })).user_groups.find((g) => g.id === id)!;

  describe('PATCH /user_groups/{id}', () => {
    it('renames, describes and changes settings, each with a user_group update event', async () => {
      const id = await group();
      const q = openQueue(org, org.owner);
      const name = unique('renamed', '-');
      const admins = systemId('role:administrators');
      const everyone = systemId('role:everyone');
      const res = await owner.call(updateUserGroup, {
        user_group_id: id,
        name,
        description: 'New words',
        can_mention_group: { new: admins, old: everyone },
        // A value equal to the current one changes nothing and says nothing.
        can_leave_group: { new: everyone },
      });
      expect(openapiErrors('patch', '/user_groups/{user_group_id}', 200, res)).toEqual([]);
      expect(takeEvents(org, q)).toEqual([
        { type: 'user_group', op: 'update', group_id: id, data: { name } },
        { type: 'user_group', op: 'update', group_id: id, data: { description: 'New words' } },
        { type: 'user_group', op: 'update', group_id: id, data: { can_mention_group: admins } },
      ]);
      expect(await view(id)).toMatchObject({ name, description: 'New words', can_mention_group: admins, can_leave_group: everyone });
    });

    it("refuses Zulip's way, changing nothing", async () => {
      const taken = unique('taken', '-');
      await owner.call(createUserGroup, { name: taken, description: '', members: [] });
      const id = await group();
      const before = await view(id);
      const admins = systemId('role:administrators');
      const refusals: [CallParamsOf<typeof updateUserGroup>, Record<string, unknown>][] = [
        [{ user_group_id: id }, bad('No new data supplied')],
        [{ user_group_id: 99999, name: 'x' }, bad('Invalid user group')],
        [{ user_group_id: systemId('role:members'), description: 'x' }, bad('Insufficient permission')],
        [{ user_group_id: id, name: taken }, bad(`User group '${taken}' already exists.`)],
        [{ user_group_id: id, name: ' ' }, bad("User group name can't be empty!")],
        [{ user_group_id: id, name: 'n'.repeat(101) }, bad('User group name cannot exceed 100 characters.')],
        [{ user_group_id: id, name: '@here' }, bad("User group name cannot start with '@'.")],
        [{ user_group_id: id, can_join_group: { new: systemId('role:everyone') } }, bad("'can_join_group' setting cannot be set to 'role:everyone' group.")],
        [
          { user_group_id: id, can_mention_group: { new: admins, old: systemId('role:nobody') } },
          { msg: "'old' value does not match the expected value.", code: 'EXPECTATION_MISMATCH', status: 400 },
        ],
      ];
      for (const [params, refusal] of refusals) expect(await flatFailure(owner.call(updateUserGroup, params)), refusal.msg as string).toEqual(refusal);
      expect(await view(id)).toEqual(before);
      const member = await as(org.addUser());
      expect(await flatFailure(member.call(updateUserGroup, { user_group_id: id, description: 'mine now' }))).toEqual(bad('Insufficient permission'));
      expect((await view(id)).description).toBe(before.description);
    });

    it('is no longer DELETE: groups are deactivated instead (feature level 294)', async () => {
      const id = await group();
      const res = await rawRequest(org, kind, { method: 'DELETE', path: `/user_groups/${id}` });
      expect(res.status).toBe(405);
      expect(res.body).toMatchObject({ result: 'error', msg: 'Method Not Allowed', allowed_methods: ['PATCH'] });
      expect((await view(id)).deactivated).toBe(false);
    });
  });

  describe('POST /user_groups/{id}/deactivate', () => {
    const listed = async (includeDeactivated: boolean) =>
      (await owner.call(getUserGroups, { include_deactivated_groups: includeDeactivated })).user_groups.map((g) => g.id);

    it('deactivates and reactivates, telling each client in the form it understands', async () => {
      const id = await group([org.addUser().id]);
      const keeps = openQueue(org, org.owner, { options: { client_capabilities: { include_deactivated_groups: true } } });
      const plain = openQueue(org, org.owner);
      expect(await owner.call(deactivateUserGroup, { user_group_id: id })).toEqual({ result: 'success', msg: '' });
      expect(await listed(false)).not.toContain(id);
      expect(await listed(true)).toContain(id);
      expect(takeEvents(org, keeps)).toEqual([{ type: 'user_group', op: 'update', group_id: id, data: { deactivated: true } }]);
      expect(takeEvents(org, plain)).toEqual([{ type: 'user_group', op: 'remove', group_id: id }]);
      expect(await flatFailure(owner.call(deactivateUserGroup, { user_group_id: id }))).toEqual(bad('User group is deactivated.'));
      // A deactivated group's new name reaches only the clients that keep deactivated groups.
      const name = unique('dormant', '-');
      await owner.call(updateUserGroup, { user_group_id: id, name });
      expect(takeEvents(org, keeps)).toEqual([{ type: 'user_group', op: 'update', group_id: id, data: { name } }]);
      expect(takeEvents(org, plain)).toEqual([]);
      await owner.call(updateUserGroup, { user_group_id: id, deactivated: false });
      expect(await listed(false)).toContain(id);
      expect(takeEvents(org, keeps)).toEqual([{ type: 'user_group', op: 'update', group_id: id, data: { deactivated: false } }]);
      expect(takeEvents(org, plain)).toEqual([{ type: 'user_group', op: 'add', group: await view(id) }]);
    });

    it('refuses a group still in use, saying where', async () => {
      const sub = await group();
      const parent = await group();
      await owner.call(updateUserGroupMembers, { user_group_id: parent, add_subgroups: [sub] });
      const user = await group();
      await owner.call(updateUserGroup, { user_group_id: user, can_mention_group: { new: { direct_members: [org.owner.id], direct_subgroups: [sub] } } });
      const err = await flatFailureWithExtra(owner.call(deactivateUserGroup, { user_group_id: sub }));
      expect(err).toEqual({
        msg: 'Cannot deactivate user group in use.',
        code: 'CANNOT_DEACTIVATE_GROUP_IN_USE',
        status: 400,
        objections: [
          { type: 'subgroup', supergroup_ids: [parent] },
          { type: 'user_group', group_id: user, settings: ['can_mention_group'] },
        ],
      });
      expect(await listed(false)).toContain(sub);
      // Once its users are deactivated themselves, it may go.
      await owner.call(deactivateUserGroup, { user_group_id: parent });
      await owner.call(deactivateUserGroup, { user_group_id: user });
      await owner.call(deactivateUserGroup, { user_group_id: sub });
      expect(await listed(false)).not.toContain(sub);
    });

    it('refuses a group an organization setting names, directly or as a subgroup, saying which', async () => {
      const named = await group();
      const nested = await group();
      const members = systemId('role:members');
      await owner.call(updateRealm, { can_create_groups: { new: named }, can_invite_users_group: { new: { direct_members: [], direct_subgroups: [nested] } } });
      for (const [id, setting] of [
        [named, 'can_create_groups'],
        [nested, 'can_invite_users_group'],
      ] as const) {
        expect(await flatFailureWithExtra(owner.call(deactivateUserGroup, { user_group_id: id }))).toEqual({
          msg: 'Cannot deactivate user group in use.',
          code: 'CANNOT_DEACTIVATE_GROUP_IN_USE',
          status: 400,
          objections: [{ type: 'realm', settings: [setting] }],
        });
      }
      await owner.call(updateRealm, { can_create_groups: { new: members }, can_invite_users_group: { new: members } });
      await owner.call(deactivateUserGroup, { user_group_id: named });
      await owner.call(deactivateUserGroup, { user_group_id: nested });
      expect(await listed(false)).not.toContain(named);
    });

    it('is for those who manage the group', async () => {
      const id = await group();
      const member = await as(org.addUser());
      expect(await flatFailure(member.call(deactivateUserGroup, { user_group_id: id }))).toEqual(bad('Insufficient permission'));
      expect(await flatFailure(owner.call(deactivateUserGroup, { user_group_id: systemId('role:members') }))).toEqual(bad('Insufficient permission'));
      expect(await listed(false)).toContain(id);
    });
  });
});
