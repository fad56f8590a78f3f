/**
 * User groups. The role-based system groups (`role:*`) store no membership: their direct members are the
 * active users holding the matching role, and each is a direct subgroup of the next less privileged one
 * (owners ⊂ administrators ⊂ moderators ⊂ full members ⊂ members ⊂ everyone ⊂ internet), as on a Zulip
 * server. Named groups keep their members and subgroups in `group_members` and `group_subgroups`.
 */
import { ApiError, badRequest, insufficientPermission } from '../../api/errors.js';
import type { GroupSettingValue } from '../../api/operations/channels.js';
import { GROUP_PERMISSION_SETTINGS, type GroupPermissionSetting, type UserGroup } from '../../api/operations/groups.js';
import { mayUse } from './realm-permissions.js';
import type { Db } from '../store/db.js';
import { directRoleOf, SYSTEM_CHAIN } from './system-groups.js';
import { isGuest, type UserRow } from './users.js';

export interface GroupRow {
  id: number;
  name: string;
  description: string;
  is_system_group: number;
  date_created: number | null;
  creator_id: number | null;
  deactivated: number;
  settings: string;
}

export const MAX_GROUP_NAME_LENGTH = 100;
export const GROUP_DEACTIVATED = 'User group is deactivated.';

/** A group-setting change whose `old` is not the value the server holds (zerver/lib/user_groups.py). */
export const expectationMismatch = (): ApiError => new ApiError("'old' value does not match the expected value.", 'EXPECTATION_MISMATCH', 400);
const INVALID_NAME_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'];

interface SettingRules {
  /** Default for named groups: a system group's name, or `creator` (an anonymous group of the creator). */
  default: string;
  allowEveryone: boolean;
}

/** Zulip's GROUP_PERMISSION_SETTINGS: defaults, and which may hold `role:everyone` (none take `role:internet`). */
export const GROUP_SETTING_RULES: Record<GroupPermissionSetting, SettingRules> = {
  can_add_members_group: { default: 'creator', allowEveryone: false },
  can_join_group: { default: 'role:nobody', allowEveryone: false },
  can_leave_group: { default: 'role:everyone', allowEveryone: true },
  can_manage_group: { default: 'creator', allowEveryone: false },
  can_mention_group: { default: 'role:everyone', allowEveryone: true },
  can_remove_members_group: { default: 'role:nobody', allowEveryone: false },
};

/**
 * The organization's groups for one request: every group's row (as many as the organization has groups), and
 * each group's direct members and subgroups read when first asked for, so that a request costs what it looks at,
 * not the organization's size (a system group's membership is its role: asking whether someone is in it reads
 * that one user's role, never the list).
 */
export class GroupGraph {
  readonly groups = new Map<number, GroupRow>();
  private readonly byName = new Map<string, GroupRow>();
  private readonly members = new Map<number, number[]>();
  private readonly subgroups = new Map<number, number[]>();
  /** Active users' roles, by ID, as read (undefined: not read yet; null: not an active user). */
  private readonly roles = new Map<number, number | null>();

  constructor(private readonly db: Db) {
    for (const g of db.prepare('SELECT * FROM user_groups ORDER BY id').all() as GroupRow[]) {
      this.groups.set(g.id, g);
      this.byName.set(g.name, g);
    }
  }

  /** An active user's role; null for a deactivated or unknown user (not a member of anything). */
  private roleOf(userId: number): number | null {
    let role = this.roles.get(userId);
    if (role === undefined) {
      const row = this.db.prepare('SELECT role FROM users WHERE id = ? AND is_active = 1 AND is_system_bot = 0').get(userId) as { role: number } | undefined;
      role = row?.role ?? null;
      this.roles.set(userId, role);
    }
    return role;
  }

  /** Direct members: a system group's are the active users of its role, a named group's its active members. */
  private membersOf(id: number): number[] {
    let list = this.members.get(id);
    if (list) return list;
    const group = this.groups.get(id);
    if (group?.is_system_group) {
      const role = directRoleOf(group.name);
      list =
        role === null
          ? []
          : (this.db.prepare('SELECT id FROM users WHERE role = ? AND is_active = 1 AND is_system_bot = 0 ORDER BY id').pluck().all(role) as number[]);
    } else {
      list = this.db
        .prepare(
          'SELECT m.user_id FROM group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id = ? AND u.is_active = 1 AND u.is_system_bot = 0 ORDER BY m.user_id',
        )
        .pluck()
        .all(id) as number[];
    }
    this.members.set(id, list);
    return list;
  }

  /** Direct subgroups: the next system group down the chain for a system group, the stored ones for a named group. */
  private subgroupsOf(id: number): number[] {
    let list = this.subgroups.get(id);
    if (list) return list;
    const group = this.groups.get(id);
    if (group?.is_system_group) {
      const at = SYSTEM_CHAIN.indexOf(group.name);
      const below = at > 0 ? this.byName.get(SYSTEM_CHAIN[at - 1]!) : undefined;
      list = below ? [below.id] : [];
    } else {
      list = this.db.prepare('SELECT subgroup_id FROM group_subgroups WHERE group_id = ? ORDER BY subgroup_id').pluck().all(id) as number[];
    }
    this.subgroups.set(id, list);
    return list;
  }

  /** Whether a user is a direct member, read without listing the group. */
  private directlyIn(userId: number, id: number): boolean {
    const cached = this.members.get(id);
    if (cached) return cached.includes(userId);
    const group = this.groups.get(id);
    if (!group) return false;
    const role = this.roleOf(userId);
    if (role === null) return false;
    if (group.is_system_group) return directRoleOf(group.name) === role;
    return this.db.prepare('SELECT 1 FROM group_members WHERE group_id = ? AND user_id = ?').get(id, userId) !== undefined;
  }

  get(id: number): GroupRow | undefined {
    return this.groups.get(id);
  }

  /** The ID of a system group, which every organization has. */
  systemId(name: string): number {
    const g = this.byName.get(name);
    if (!g?.is_system_group) throw new Error(`system group ${name} is missing`);
    return g.id;
  }

  directMembers(id: number): number[] {
    return [...this.membersOf(id)];
  }

  directSubgroups(id: number): number[] {
    return [...this.subgroupsOf(id)];
  }

  /** The groups and all their subgroups, transitively (the groups themselves included). */
  recursiveSubgroups(ids: Iterable<number>): Set<number> {
    const seen = new Set<number>();
    const todo = [...ids];
    while (todo.length) {
      const id = todo.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      todo.push(...this.subgroupsOf(id));
    }
    return seen;
  }

  /** Active users in the group or any of its subgroups, ascending. */
  recursiveMembers(id: number): number[] {
    const out = new Set<number>();
    for (const g of this.recursiveSubgroups([id])) for (const u of this.membersOf(g)) out.add(u);
    return [...out].sort((a, b) => a - b);
  }

  isMember(userId: number, groupId: number, direct = false): boolean {
    if (direct) return this.directlyIn(userId, groupId);
    for (const g of this.recursiveSubgroups([groupId])) if (this.directlyIn(userId, g)) return true;
    return false;
  }

  /** The value of a permission setting of a group, as stored or by default. */
  setting(group: GroupRow, name: GroupPermissionSetting): GroupSettingValue {
    const stored = (JSON.parse(group.settings) as Partial<Record<GroupPermissionSetting, GroupSettingValue>>)[name];
    if (stored !== undefined) return stored;
    const rule = GROUP_SETTING_RULES[name];
    if (group.is_system_group) return this.systemId('role:nobody');
    if (rule.default === 'creator') return { direct_members: group.creator_id ? [group.creator_id] : [], direct_subgroups: [] };
    return this.systemId(rule.default);
  }

  /** Whether the user is in the set a setting value names; guests never are where `role:everyone` is refused. */
  allows(user: Pick<UserRow, 'id' | 'role'>, value: GroupSettingValue, allowEveryone: boolean): boolean {
    if (!allowEveryone && isGuest(user)) return false;
    if (typeof value === 'number') return this.isMember(user.id, value);
    return value.direct_members.includes(user.id) || value.direct_subgroups.some((g) => this.isMember(user.id, g));
  }

  /** A setting value as the API shows it: anonymous groups list only active users, ascending. */
  apiValue(value: GroupSettingValue): GroupSettingValue {
    if (typeof value === 'number') return value;
    return {
      direct_members: value.direct_members.filter((id) => this.roleOf(id) !== null).sort((a, b) => a - b),
      direct_subgroups: [...value.direct_subgroups].sort((a, b) => a - b),
    };
  }

  view(group: GroupRow): UserGroup {
    const settings = Object.fromEntries(GROUP_PERMISSION_SETTINGS.map((name) => [name, this.apiValue(this.setting(group, name))])) as Record<
      GroupPermissionSetting,
      GroupSettingValue
    >;
    return {
      id: group.id,
      name: group.name,
      description: group.description,
      members: this.directMembers(group.id),
      direct_subgroup_ids: this.directSubgroups(group.id),
      is_system_group: group.is_system_group === 1,
      date_created: group.date_created,
      creator_id: group.creator_id,
      deactivated: group.deactivated === 1,
      ...settings,
    };
  }

  /** Every group as GET /user_groups lists it, by ID. */
  list(includeDeactivated: boolean): UserGroup[] {
    return [...this.groups.values()].filter((g) => includeDeactivated || !g.deactivated).map((g) => this.view(g));
  }

  /**
   * The group a user may change under `permission`, as Zulip's access_user_group_for_update: unknown →
   * `Invalid user group`; deactivated, where not allowed → `User group is deactivated.`; system groups →
   * `Insufficient permission`; then the organization's
   * can_manage_all_groups, the group's can_manage_group, or the named permission.
   */
  forUpdate(user: Pick<UserRow, 'id' | 'role'>, groupId: number, permission: GroupPermissionSetting, allowDeactivated = true): GroupRow {
    const group = this.groups.get(groupId);
    if (!group) throw badRequest('Invalid user group');
    if (!allowDeactivated && group.deactivated) throw badRequest(GROUP_DEACTIVATED);
    if (group.is_system_group) throw insufficientPermission();
    if (mayUse(this.db, user, 'can_manage_all_groups')) return group;
    if (this.allows(user, this.setting(group, 'can_manage_group'), false)) return group;
    if (permission !== 'can_manage_group' && this.allows(user, this.setting(group, permission), GROUP_SETTING_RULES[permission].allowEveryone)) {
      return group;
    }
    throw insufficientPermission();
  }

  /** A group looked up to read its membership (any group of the organization). */
  forRead(groupId: number): GroupRow {
    const group = this.groups.get(groupId);
    if (!group) throw badRequest('Invalid user group');
    return group;
  }
}

export function checkGroupName(name: string): string {
  if (name.trim() === '') throw badRequest("User group name can't be empty!");
  if ([...name].length > MAX_GROUP_NAME_LENGTH) throw badRequest(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  for (const prefix of INVALID_NAME_PREFIXES) {
    if (name.startsWith(prefix)) throw badRequest(`User group name cannot start with '${prefix}'.`);
  }
  return name;
}

/**
 * zerver/lib/user_groups.py parse_group_setting_value: an anonymous group of no users and one subgroup is
 * that subgroup, an empty one is `role:nobody`.
 */
export function canonicalSetting(value: GroupSettingValue, nobodyId: number): GroupSettingValue {
  if (typeof value === 'number' || value.direct_members.length > 0 || value.direct_subgroups.length > 1) return value;
  return value.direct_subgroups[0] ?? nobodyId;
}

/** are_both_group_setting_values_equal: the same group, or the same members and subgroups in any order. */
export function sameSetting(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  const same = (x: readonly number[], y: readonly number[]) => new Set(x).size === new Set(y).size && x.every((id) => y.includes(id));
  return same(a.direct_members, b.direct_members) && same(a.direct_subgroups, b.direct_subgroups);
}

/**
 * Checks a requested value of a group permission setting and returns it in canonical form (an anonymous
 * group of no users and one subgroup is that subgroup; an empty one is `role:nobody`).
 */
export function checkSettingValue(db: Db, graph: GroupGraph, name: GroupPermissionSetting, requested: GroupSettingValue): GroupSettingValue {
  const value = canonicalSetting(requested, graph.systemId('role:nobody'));
  if (typeof value === 'number') {
    const group = graph.get(value);
    if (!group) throw badRequest('Invalid user group');
    // zerver/lib/user_groups.py get_user_group_by_id_in_realm: a deactivated group holds no permission.
    if (group.deactivated) throw badRequest(GROUP_DEACTIVATED);
    if (group.name === 'role:internet') throw badRequest(`'${name}' setting cannot be set to 'role:internet' group.`);
    if (group.name === 'role:everyone' && !GROUP_SETTING_RULES[name].allowEveryone) {
      throw badRequest(`'${name}' setting cannot be set to 'role:everyone' group.`);
    }
    return value;
  }
  activeUsersOrFail(db, value.direct_members);
  for (const id of value.direct_subgroups) if (!graph.get(id)) throw badRequest(`Invalid user group ID: ${id}`);
  for (const id of value.direct_subgroups) if (graph.get(id)!.deactivated) throw badRequest(GROUP_DEACTIVATED);
  return { direct_members: [...new Set(value.direct_members)], direct_subgroups: [...new Set(value.direct_subgroups)] };
}

/** Zulip's user_ids_to_users without deactivated users: the first unknown or deactivated ID is refused. */
export function activeUsersOrFail(db: Db, ids: readonly number[]): number[] {
  const active = new Set(
    (db.prepare('SELECT id FROM users WHERE is_active = 1 AND id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as { id: number }[]).map(
      (r) => r.id,
    ),
  );
  for (const id of ids) if (!active.has(id)) throw badRequest(`Invalid user ID: ${id}`);
  return [...new Set(ids)];
}
