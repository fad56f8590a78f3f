import { randomToken, unique } from '../../helpers/names.js';
import type { Caller, Fixture, PermissionRows } from './matrix.js';

/** Guests and bots are turned away before anything else (Zulip's require_member_or_admin). */
const NOT_FOR = { guest: 'Not allowed for guest users', bot: 'This endpoint does not accept bot requests.' } as const;
const MEMBERS: readonly Caller[] = ['owner', 'admin', 'moderator', 'member'];
/** Groups whose settings name only their creator: managed by owners alone (the default can_manage_all_groups). */
const REFUSED_BELOW_OWNERS = { admin: 'Insufficient permission', moderator: 'Insufficient permission', member: 'Insufficient permission' } as const;

const systemId = (f: Fixture, name: string) => (f.org.db.prepare('SELECT id FROM user_groups WHERE name = ?').get(name) as { id: number }).id;

/** A group the organization's owner created, with the default permissions (settings stored as a new group's). */
function ownersGroup(f: Fixture, settings: Record<string, unknown> = {}): number {
  const owner = f.org.owner.id;
  const stored = {
    can_add_members_group: { direct_members: [owner], direct_subgroups: [] },
    can_join_group: systemId(f, 'role:nobody'),
    can_leave_group: systemId(f, 'role:everyone'),
    can_manage_group: { direct_members: [owner], direct_subgroups: [] },
    can_mention_group: systemId(f, 'role:everyone'),
    can_remove_members_group: systemId(f, 'role:nobody'),
    ...settings,
  };
  const id = Number(
    f.org.db
      .prepare('INSERT INTO user_groups (name, description, date_created, creator_id, settings) VALUES (?, ?, ?, ?, ?)')
      .run(`${unique('group', '-')}-${randomToken()}`, '', f.org.clock.now(), owner, JSON.stringify(stored)).lastInsertRowid,
  );
  f.org.db.prepare('INSERT INTO group_members (group_id, user_id) VALUES (?, ?)').run(id, f.others.admin.id);
  return id;
}

export const groupCases: PermissionRows<'groups'> = {
  getUserGroups: [
    {
      name: 'list user groups',
      request: () => ({ method: 'GET', path: '/user_groups' }),
      allowed: MEMBERS,
      denied: NOT_FOR,
    },
  ],
  createUserGroup: [
    {
      name: 'create a user group',
      request: (f) => ({
        method: 'POST',
        path: '/user_groups/create',
        body: [
          ['name', `${unique('new', '-')}-${randomToken()}`],
          ['description', ''],
          ['members', JSON.stringify([f.others.member.id])],
        ],
      }),
      allowed: MEMBERS,
      denied: NOT_FOR,
    },
  ],
  updateUserGroup: [
    {
      name: "rename the owner's group (only owners manage all groups)",
      request: (f) => ({ method: 'PATCH', path: `/user_groups/${ownersGroup(f)}`, body: [['name', `${unique('renamed', '-')}-${randomToken()}`]] }),
      allowed: ['owner'],
      denied: { ...NOT_FOR, ...REFUSED_BELOW_OWNERS },
    },
    {
      name: 'describe a group members manage',
      request: (f) => ({
        method: 'PATCH',
        path: `/user_groups/${ownersGroup(f, { can_manage_group: systemId(f, 'role:members') })}`,
        body: [['description', 'Managed by members']],
      }),
      allowed: MEMBERS,
      denied: NOT_FOR,
    },
  ],
  deactivateUserGroup: [
    {
      name: "deactivate the owner's group (no guest or bot may manage it)",
      request: (f) => ({ method: 'POST', path: `/user_groups/${ownersGroup(f)}/deactivate` }),
      allowed: ['owner'],
      denied: { ...REFUSED_BELOW_OWNERS, guest: 'Insufficient permission', bot: 'Insufficient permission' },
    },
  ],
  updateUserGroupMembers: [
    {
      name: "add a member to the owner's group (only owners manage all groups)",
      request: (f) => ({ method: 'POST', path: `/user_groups/${ownersGroup(f)}/members`, body: [['add', JSON.stringify([f.others.member.id])]] }),
      allowed: ['owner'],
      denied: { ...NOT_FOR, ...REFUSED_BELOW_OWNERS },
    },
    {
      name: 'join a group members may join',
      request: (f) => ({
        method: 'POST',
        path: `/user_groups/${ownersGroup(f, { can_join_group: systemId(f, 'role:members') })}/members`,
        body: [['add', JSON.stringify([f.caller?.id ?? 0])]],
      }),
      allowed: MEMBERS,
      denied: NOT_FOR,
    },
  ],
  updateUserGroupSubgroups: [
    {
      name: "add a subgroup to the owner's group",
      request: (f) => ({ method: 'POST', path: `/user_groups/${ownersGroup(f)}/subgroups`, body: [['add', JSON.stringify([ownersGroup(f)])]] }),
      allowed: ['owner'],
      denied: { ...NOT_FOR, ...REFUSED_BELOW_OWNERS },
    },
  ],
  getUserGroupMembers: [
    {
      name: 'list the members of a group',
      request: (f) => ({ method: 'GET', path: `/user_groups/${ownersGroup(f)}/members` }),
      allowed: MEMBERS,
      denied: NOT_FOR,
    },
  ],
  getIsUserGroupMember: [
    {
      name: 'check whether a user is in a group',
      request: (f) => ({ method: 'GET', path: `/user_groups/${ownersGroup(f)}/members/${f.others.admin.id}` }),
      allowed: MEMBERS,
      denied: NOT_FOR,
    },
  ],
  getUserGroupSubgroups: [
    {
      name: 'list the subgroups of a group',
      request: (f) => ({ method: 'GET', path: `/user_groups/${systemId(f, 'role:members')}/subgroups` }),
      allowed: MEMBERS,
      denied: NOT_FOR,
    },
  ],
};
