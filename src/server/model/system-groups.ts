/**
 * Zulip's role-based system groups (`role:*`). They store no membership: a user's role decides which of them
 * the user is in, directly or through a subgroup. Each group but `role:nobody` is a direct subgroup of the
 * next one in SYSTEM_GROUPS (owners ⊂ administrators ⊂ … ⊂ everyone ⊂ internet), as on a Zulip server.
 */
import { atLeast, ROLE, type RoleName } from '../../api/roles.js';
import type { Role } from '../../api/roles.js';
import type { Db } from '../store/db.js';
import type { UserRow } from './users.js';

interface SystemGroup {
  name: string;
  description: string;
  /** The least privileged role the group holds, directly or through its subgroups; null: nobody. */
  maxRole: RoleName | null;
  /** The role whose users are the group's direct members (new accounts count as full members here). */
  directRole: RoleName | null;
}

/** The system groups, most privileged first (`role:nobody` aside). */
export const SYSTEM_GROUPS: readonly SystemGroup[] = [
  { name: 'role:nobody', description: 'Nobody', maxRole: null, directRole: null },
  { name: 'role:owners', description: 'Owners of this organization', maxRole: 'owner', directRole: 'owner' },
  { name: 'role:administrators', description: 'Administrators of this organization, including owners', maxRole: 'admin', directRole: 'admin' },
  { name: 'role:moderators', description: 'Moderators of this organization, including administrators', maxRole: 'moderator', directRole: 'moderator' },
  { name: 'role:fullmembers', description: 'Members of this organization, not including new accounts and guests', maxRole: 'member', directRole: 'member' },
  { name: 'role:members', description: 'Members of this organization, not including guests', maxRole: 'member', directRole: 'member' },
  { name: 'role:everyone', description: 'Everyone in this organization, including guests', maxRole: 'guest', directRole: 'guest' },
  { name: 'role:internet', description: 'Everyone on the Internet', maxRole: 'guest', directRole: null },
];

/** The groups of the subgroup chain, narrowest first: each is a direct subgroup of the one after it. */
export const SYSTEM_CHAIN: readonly string[] = SYSTEM_GROUPS.filter((g) => g.maxRole !== null).map((g) => g.name);

/** The role whose users are direct members of a system group, or null for one with none. */
export function directRoleOf(groupName: string): Role | null {
  const role = SYSTEM_GROUPS.find((g) => g.name === groupName)?.directRole;
  return role ? ROLE[role] : null;
}

/**
 * Whether a user belongs to the system group a permission setting names (`role:members` ...): members and
 * above for `role:members`, guests too for `role:everyone`.
 */
export function inSystemGroup(user: Pick<UserRow, 'role'>, groupName: string): boolean {
  const group = SYSTEM_GROUPS.find((g) => g.name === groupName);
  return group?.maxRole != null && atLeast(user.role, group.maxRole);
}

/**
 * The system groups a role makes a user a DIRECT member of (the others hold it through subgroups): what
 * `user_group` member events report when the role changes. The wider group comes first, as a server sends them.
 */
export const directSystemGroups = (role: Role): string[] =>
  SYSTEM_GROUPS.filter((g) => g.directRole !== null && ROLE[g.directRole] === role)
    .map((g) => g.name)
    .reverse();

/** The ID of a system group by name (every organization has them all). */
export const systemGroupId = (db: Db, name: string): number | undefined =>
  db.prepare('SELECT id FROM user_groups WHERE name = ? AND is_system_group = 1').pluck().get(name) as number | undefined;

/** Creates the system groups of a new organization, those it lacks (a mirror copies the others' IDs). */
export function insertSystemGroups(db: Db, now: number): void {
  // Group names are unique: a system group already there is left as it is.
  const insert = db.prepare('INSERT OR IGNORE INTO user_groups (name, description, is_system_group, date_created) VALUES (?, ?, 1, ?)');
  for (const g of SYSTEM_GROUPS) insert.run(g.name, g.description, now);
}
