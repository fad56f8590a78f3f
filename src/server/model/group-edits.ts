/**
 * Changes to a named user group itself, with a Zulip server's checks, messages and events in its order
 * (zerver/views/user_groups.py edit_user_group and deactivate_user_group, zerver/actions/user_groups.py):
 * its name, description and permission settings, deactivation and reactivation.
 *
 * Clients that did not declare the `include_deactivated_groups` capability never see deactivated groups: a
 * deactivation reaches them as a `remove`, a reactivation as an `add`, and a deactivated group's new name not
 * at all; `keeps_deactivated_groups` on an event chooses the queues (event-queues.ts).
 */
import { ApiError, badRequest } from '../../api/errors.js';
import type { GroupSettingValue } from '../../api/operations/channels.js';
import type { GroupSettingChange } from '../../api/group-setting.js';
import { GROUP_PERMISSION_SETTINGS, type GroupPermissionSetting } from '../../api/operations/groups.js';
import { GROUP_SETTING_ORDER } from '../../api/realm-settings.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { emitGroupEvent } from './group-changes.js';
import { canonicalSetting, checkGroupName, checkSettingValue, expectationMismatch, GroupGraph, type GroupRow, sameSetting } from './groups.js';
import { groupSetting } from './realm-permissions.js';
import type { UserRow } from './users.js';

type Actor = Pick<UserRow, 'id' | 'role'>;

export type GroupEdit = { name?: string; description?: string; deactivated?: boolean } & Partial<Record<GroupPermissionSetting, GroupSettingChange>>;

const updateEvent = (group: GroupRow, data: Record<string, unknown>, audience: Record<string, boolean> = {}) => ({
  op: 'update',
  group_id: group.id,
  data,
  ...audience,
});

/** Edits a group the actor may manage (deactivated ones too), each part only where it differs from what is stored. */
export function editGroup(db: Db, sink: EventSink, actor: Actor, groupId: number, edit: GroupEdit): void {
  const asked = edit.name !== undefined || edit.description !== undefined || edit.deactivated !== undefined || GROUP_PERMISSION_SETTINGS.some((s) => edit[s]);
  if (!asked) throw badRequest('No new data supplied');
  const group = new GroupGraph(db).forUpdate(actor, groupId, 'can_manage_group');
  if (edit.name !== undefined && edit.name !== group.name) {
    const name = checkGroupName(edit.name);
    if (db.prepare('SELECT 1 FROM user_groups WHERE name = ? AND id != ?').get(name, group.id)) throw badRequest(`User group '${name}' already exists.`);
    db.prepare('UPDATE user_groups SET name = ? WHERE id = ?').run(name, group.id);
    emitGroupEvent(db, sink, updateEvent(group, { name }, group.deactivated ? { keeps_deactivated_groups: true } : {}));
  }
  if (edit.description !== undefined && edit.description !== group.description) {
    db.prepare('UPDATE user_groups SET description = ? WHERE id = ?').run(edit.description, group.id);
    emitGroupEvent(db, sink, updateEvent(group, { description: edit.description }));
  }
  if (edit.deactivated === false && group.deactivated) reactivate(db, sink, group);
  for (const setting of GROUP_PERMISSION_SETTINGS) {
    const change = edit[setting];
    if (change) changeSetting(db, sink, group.id, setting, change);
  }
}

/**
 * zerver/lib/user_groups.py validate_group_setting_value_change: a stale `old` is refused before anything of
 * the new value is checked; a value equal to the current one changes nothing and sends nothing.
 */
function changeSetting(db: Db, sink: EventSink, groupId: number, setting: GroupPermissionSetting, change: GroupSettingChange): void {
  const graph = new GroupGraph(db);
  const group = graph.get(groupId)!;
  const current = graph.apiValue(graph.setting(group, setting));
  const nobody = graph.systemId('role:nobody');
  if (change.old !== undefined && !sameSetting(canonicalSetting(change.old, nobody), current)) throw expectationMismatch();
  if (sameSetting(canonicalSetting(change.new, nobody), current)) return;
  const value = checkSettingValue(db, graph, setting, change.new);
  const settings = { ...(JSON.parse(group.settings) as Partial<Record<GroupPermissionSetting, GroupSettingValue>>), [setting]: value };
  db.prepare('UPDATE user_groups SET settings = ? WHERE id = ?').run(JSON.stringify(settings), group.id);
  emitGroupEvent(db, sink, updateEvent(group, { [setting]: graph.apiValue(value) }));
}

function reactivate(db: Db, sink: EventSink, group: GroupRow): void {
  db.prepare('UPDATE user_groups SET deactivated = 0 WHERE id = ?').run(group.id);
  emitGroupEvent(db, sink, updateEvent(group, { deactivated: false }, { keeps_deactivated_groups: true }));
  const graph = new GroupGraph(db);
  emitGroupEvent(db, sink, { op: 'add', group: graph.view(graph.get(group.id)!), keeps_deactivated_groups: false });
}

/**
 * Where a group is still used, as zerver/lib/user_groups.py access_user_group_for_deactivation lists it: as a
 * subgroup of an active group, in the permission settings of active groups and in the organization's
 * (directly, or as a subgroup of the setting's members). Channels here hold no group-valued settings, so they
 * cannot object.
 */
function objectionsTo(db: Db, graph: GroupGraph, groupId: number): Record<string, unknown>[] {
  const names = (value: GroupSettingValue) => (typeof value === 'number' ? value === groupId : value.direct_subgroups.includes(groupId));
  const active = [...graph.groups.values()].filter((g) => !g.deactivated);
  const supergroupIds = active.filter((g) => graph.directSubgroups(g.id).includes(groupId)).map((g) => g.id);
  const objections: Record<string, unknown>[] = supergroupIds.length ? [{ type: 'subgroup', supergroup_ids: supergroupIds }] : [];
  for (const g of active) {
    const settings = GROUP_PERMISSION_SETTINGS.filter((name) => names(graph.setting(g, name)));
    if (settings.length) objections.push({ type: 'user_group', group_id: g.id, settings });
  }
  const realm = GROUP_SETTING_ORDER.filter((name) => names(groupSetting(db, name)));
  if (realm.length) objections.push({ type: 'realm', settings: realm });
  return objections;
}

/** zerver/actions/user_groups.py do_deactivate_user_group, after the checks of its view. */
export function deactivateGroup(db: Db, sink: EventSink, actor: Actor, groupId: number): void {
  const graph = new GroupGraph(db);
  const group = graph.forUpdate(actor, groupId, 'can_manage_group', false);
  const objections = objectionsTo(db, graph, group.id);
  if (objections.length) throw new ApiError('Cannot deactivate user group in use.', 'CANNOT_DEACTIVATE_GROUP_IN_USE', 400, { objections });
  db.prepare('UPDATE user_groups SET deactivated = 1 WHERE id = ?').run(group.id);
  emitGroupEvent(db, sink, updateEvent(group, { deactivated: true }, { keeps_deactivated_groups: true }));
  emitGroupEvent(db, sink, { op: 'remove', group_id: group.id, keeps_deactivated_groups: false });
}
