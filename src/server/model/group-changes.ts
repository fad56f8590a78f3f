/**
 * Changes to named user groups, with a Zulip server's checks and messages in its order: creating one, and
 * adding or removing its members and subgroups. Each change is a `user_group` event to every active user.
 */
import { badRequest, insufficientPermission } from '../../api/errors.js';
import type { GroupSettingValue } from '../../api/operations/channels.js';
import { GROUP_PERMISSION_SETTINGS, type createUserGroup, type GroupPermissionSetting } from '../../api/operations/groups.js';
import type { HandlerParamsOf } from '../../api/operation.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { activeUsersOrFail, checkGroupName, checkSettingValue, GROUP_SETTING_RULES, GroupGraph } from './groups.js';
import { mayUse } from './realm-permissions.js';
import type { UserRow } from './users.js';
import { listeningUserIds } from './event-queues.js';

type Actor = Pick<UserRow, 'id' | 'role'>;

export const emitGroupEvent = (db: Db, sink: EventSink, event: Record<string, unknown>): void =>
  sink.emit({ type: 'user_group', ...event }, listeningUserIds(db));

const insertMembers = (db: Db, groupId: number, userIds: readonly number[]): void => {
  const insert = db.prepare('INSERT INTO group_members (group_id, user_id) VALUES (?, ?)');
  for (const id of userIds) insert.run(groupId, id);
};

const insertSubgroups = (db: Db, groupId: number, subgroupIds: readonly number[]): void => {
  const insert = db.prepare('INSERT INTO group_subgroups (group_id, subgroup_id) VALUES (?, ?)');
  for (const id of subgroupIds) insert.run(groupId, id);
};

/** The subgroups named, which must exist and be active (Zulip's lock_subgroups_with_respect_to_supergroup). */
function checkSubgroups(graph: GroupGraph, ids: readonly number[]): number[] {
  for (const id of ids) if (!graph.get(id)) throw badRequest(`Invalid user group ID: ${id}`);
  for (const id of ids) if (graph.get(id)!.deactivated) throw badRequest('User group is deactivated.');
  return [...new Set(ids)];
}

/** Creates a group of `creator`'s, with its settings (or their defaults), members and subgroups; returns its ID. */
export function createGroup(db: Db, sink: EventSink, creator: Actor, p: HandlerParamsOf<typeof createUserGroup>, now: number): number {
  const graph = new GroupGraph(db);
  if (!mayUse(db, creator, 'can_create_groups')) throw insufficientPermission();
  const members = activeUsersOrFail(db, p.members);
  const name = checkGroupName(p.name);
  const settings = {} as Record<GroupPermissionSetting, GroupSettingValue>;
  for (const setting of GROUP_PERMISSION_SETTINGS) {
    const requested = p[setting];
    const fallback = GROUP_SETTING_RULES[setting].default;
    settings[setting] =
      requested !== undefined
        ? checkSettingValue(db, graph, setting, requested)
        : fallback === 'creator'
          ? { direct_members: [creator.id], direct_subgroups: [] }
          : graph.systemId(fallback);
  }
  if (db.prepare('SELECT 1 FROM user_groups WHERE name = ?').get(name)) throw badRequest(`User group '${name}' already exists.`);
  const info = db
    .prepare('INSERT INTO user_groups (name, description, date_created, creator_id, settings) VALUES (?, ?, ?, ?, ?)')
    .run(name, p.description, now, creator.id, JSON.stringify(settings));
  const id = Number(info.lastInsertRowid);
  insertMembers(db, id, members);
  const created = new GroupGraph(db);
  emitGroupEvent(db, sink, { op: 'add', group: created.view(created.get(id)!) });
  if (p.subgroups?.length) {
    // The creator may add subgroups to the new group whatever its other permissions.
    const subgroups = checkSubgroups(created, p.subgroups);
    insertSubgroups(db, id, subgroups);
    emitGroupEvent(db, sink, { op: 'add_subgroups', group_id: id, direct_subgroup_ids: subgroups });
  }
  return id;
}

/** Joining (only oneself) falls back from can_join_group to can_add_members_group, as leaving does for removal. */
function forMembershipChange(
  graph: GroupGraph,
  actor: Actor,
  groupId: number,
  userIds: readonly number[],
  self: GroupPermissionSetting,
  others: GroupPermissionSetting,
) {
  if (userIds.length === 1 && userIds[0] === actor.id) {
    try {
      return graph.forUpdate(actor, groupId, self);
    } catch {
      return graph.forUpdate(actor, groupId, others);
    }
  }
  return graph.forUpdate(actor, groupId, others);
}

export function addMembers(db: Db, sink: EventSink, actor: Actor, groupId: number, ids: readonly number[]): void {
  const group = forMembershipChange(new GroupGraph(db), actor, groupId, ids, 'can_join_group', 'can_add_members_group');
  const users = activeUsersOrFail(db, ids);
  const existing = new GroupGraph(db).directMembers(group.id);
  for (const id of users) if (existing.includes(id)) throw badRequest(`User ${id} is already a member of this group`);
  insertMembers(db, group.id, users);
  emitGroupEvent(db, sink, { op: 'add_members', group_id: group.id, user_ids: users });
}

export function removeMembers(db: Db, sink: EventSink, actor: Actor, groupId: number, ids: readonly number[]): void {
  const users = activeUsersOrFail(db, ids);
  const group = forMembershipChange(new GroupGraph(db), actor, groupId, ids, 'can_leave_group', 'can_remove_members_group');
  const members = new GroupGraph(db).directMembers(group.id);
  for (const id of ids) if (!members.includes(id)) throw badRequest(`There is no member '${id}' in this user group`);
  const remove = db.prepare('DELETE FROM group_members WHERE group_id = ? AND user_id = ?');
  for (const id of users) remove.run(group.id, id);
  emitGroupEvent(db, sink, { op: 'remove_members', group_id: group.id, user_ids: users });
}

/** The group to change under `permission`, the subgroups named (checked), and the group's direct subgroups now. */
function forSubgroupChange(db: Db, actor: Actor, groupId: number, permission: GroupPermissionSetting, ids: readonly number[]) {
  const graph = new GroupGraph(db);
  const group = graph.forUpdate(actor, groupId, permission);
  return { graph, group, subgroups: checkSubgroups(graph, ids), direct: graph.directSubgroups(group.id) };
}

export function addSubgroups(db: Db, sink: EventSink, actor: Actor, groupId: number, ids: readonly number[]): void {
  const { graph, group, subgroups, direct } = forSubgroupChange(db, actor, groupId, 'can_add_members_group', ids);
  for (const id of subgroups) if (direct.includes(id)) throw badRequest(`User group ${id} is already a subgroup of this group.`);
  // A group may not become its own descendant.
  if (graph.recursiveSubgroups(subgroups).has(group.id)) {
    throw badRequest(`User group ${group.id} is already a subgroup of one of the passed subgroups.`);
  }
  insertSubgroups(db, group.id, subgroups);
  emitGroupEvent(db, sink, { op: 'add_subgroups', group_id: group.id, direct_subgroup_ids: subgroups });
}

export function removeSubgroups(db: Db, sink: EventSink, actor: Actor, groupId: number, ids: readonly number[]): void {
  const { group, subgroups, direct } = forSubgroupChange(db, actor, groupId, 'can_manage_group', ids);
  for (const id of subgroups) if (!direct.includes(id)) throw badRequest(`User group ${id} is not a subgroup of this group.`);
  const remove = db.prepare('DELETE FROM group_subgroups WHERE group_id = ? AND subgroup_id = ?');
  for (const id of subgroups) remove.run(group.id, id);
  emitGroupEvent(db, sink, { op: 'remove_subgroups', group_id: group.id, direct_subgroup_ids: subgroups });
}
