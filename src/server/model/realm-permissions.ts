/**
 * The organization's group-valued settings as the permissions they grant read them. Each is stored as its
 * group-setting value (a group ID, or `{direct_members, direct_subgroups}`); one never written is the
 * system group a new Zulip organization has (REALM_SETTINGS).
 */
import type { GroupSettingValue } from '../../api/operations/channels.js';
import { type GroupRule, type GroupSettingName, REALM_SETTINGS } from '../../api/realm-settings.js';
import type { Db } from '../store/db.js';
import { readStored } from './realm.js';
import { inSystemGroup, systemGroupId } from './system-groups.js';
import { isGuest, type UserRow } from './users.js';

/** A group-valued setting's value, as stored or by default. */
export function groupSetting(db: Db, name: GroupSettingName): GroupSettingValue {
  const json = readStored(db, name);
  if (json !== undefined) return JSON.parse(json) as GroupSettingValue;
  const id = systemGroupId(db, REALM_SETTINGS[name].setting.initial);
  if (id === undefined) throw new Error(`system group ${REALM_SETTINGS[name].setting.initial} is missing`);
  return id;
}

interface ReachedGroup {
  name: string;
  is_system_group: number;
  member: number;
}

/**
 * Whether a user is in the set a group-setting value names (zerver/lib/user_groups.py
 * user_has_permission_for_group_setting): guests never are where the setting refuses role:everyone. The
 * groups reached are read from the value's groups down through their subgroups, so the cost follows the
 * groups involved, not the organization.
 */
function inGroupValue(db: Db, user: Pick<UserRow, 'id' | 'role'>, value: GroupSettingValue, rule: GroupRule): boolean {
  if (!rule.allowEveryone && isGuest(user)) return false;
  if (typeof value !== 'number' && value.direct_members.includes(user.id)) return true;
  const roots = typeof value === 'number' ? [value] : value.direct_subgroups;
  const reached = db
    .prepare(
      `WITH RECURSIVE reached(id) AS (
         SELECT value FROM json_each(?)
         UNION SELECT s.subgroup_id FROM group_subgroups s JOIN reached r ON s.group_id = r.id
       )
       SELECT g.name, g.is_system_group, EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = g.id AND m.user_id = ?) AS member
       FROM user_groups g JOIN reached r ON r.id = g.id`,
    )
    .all(JSON.stringify(roots), user.id) as ReachedGroup[];
  return reached.some((g) => g.member === 1 || (g.is_system_group === 1 && inSystemGroup(user, g.name)));
}

/** Whether a user holds an organization-wide permission that a group-valued setting grants. */
export const mayUse = (db: Db, user: Pick<UserRow, 'id' | 'role'>, name: GroupSettingName): boolean =>
  inGroupValue(db, user, groupSetting(db, name), REALM_SETTINGS[name].setting.rule);

/** A group-setting value as the API shows it: anonymous groups list only active users, both lists ascending. */
export function groupValueForApi(db: Db, value: GroupSettingValue): GroupSettingValue {
  if (typeof value === 'number') return value;
  const active = new Set(
    (
      db.prepare('SELECT id FROM users WHERE is_active = 1 AND id IN (SELECT value FROM json_each(?))').all(JSON.stringify(value.direct_members)) as {
        id: number;
      }[]
    ).map((r) => r.id),
  );
  return {
    direct_members: value.direct_members.filter((id) => active.has(id)).sort((a, b) => a - b),
    direct_subgroups: [...value.direct_subgroups].sort((a, b) => a - b),
  };
}
