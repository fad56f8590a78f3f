/** User groups: creation, listing, membership and subgroups, with a Zulip server's checks and messages. */
import { badRequest, insufficientPermission } from '../../api/errors.js';
import type { GroupSettingValue } from '../../api/operations/channels.js';
import {
  createUserGroup,
  getIsUserGroupMember,
  getUserGroupMembers,
  getUserGroups,
  getUserGroupSubgroups,
  GROUP_PERMISSION_SETTINGS,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
  type GroupPermissionSetting,
} from '../../api/operations/groups.js';
import { bind, callerOf, type Binding, type HandlerContext } from '../context.js';
import { activeUserIds, activeUsersOrFail, checkGroupName, checkSettingValue, GROUP_SETTING_RULES, GroupGraph } from '../model/groups.js';
import { userById } from '../model/users.js';

const emitGroupEvent = (ctx: HandlerContext, event: Record<string, unknown>) =>
  ctx.emit({ type: 'user_group', ...event }, activeUserIds(ctx.db));

/** Joining (only oneself) falls back from can_join_group to can_add_members_group, as leaving does for removal. */
function forMembershipChange(ctx: HandlerContext, groupId: number, userIds: readonly number[], self: GroupPermissionSetting, others: GroupPermissionSetting) {
  const me = callerOf(ctx);
  const graph = new GroupGraph(ctx.db);
  if (userIds.length === 1 && userIds[0] === me.id) {
    try {
      return graph.forUpdate(me, groupId, self);
    } catch {
      return graph.forUpdate(me, groupId, others);
    }
  }
  return graph.forUpdate(me, groupId, others);
}

function addMembers(ctx: HandlerContext, groupId: number, ids: readonly number[]): void {
  const group = forMembershipChange(ctx, groupId, ids, 'can_join_group', 'can_add_members_group');
  const users = activeUsersOrFail(ctx.db, ids);
  const existing = new GroupGraph(ctx.db).directMembers(group.id);
  for (const id of users) if (existing.includes(id)) throw badRequest(`User ${id} is already a member of this group`);
  const insert = ctx.db.prepare('INSERT INTO group_members (group_id, user_id) VALUES (?, ?)');
  for (const id of users) insert.run(group.id, id);
  emitGroupEvent(ctx, { op: 'add_members', group_id: group.id, user_ids: users });
}

function removeMembers(ctx: HandlerContext, groupId: number, ids: readonly number[]): void {
  const users = activeUsersOrFail(ctx.db, ids);
  const group = forMembershipChange(ctx, groupId, ids, 'can_leave_group', 'can_remove_members_group');
  const members = new GroupGraph(ctx.db).directMembers(group.id);
  for (const id of ids) if (!members.includes(id)) throw badRequest(`There is no member '${id}' in this user group`);
  const remove = ctx.db.prepare('DELETE FROM group_members WHERE group_id = ? AND user_id = ?');
  for (const id of users) remove.run(group.id, id);
  emitGroupEvent(ctx, { op: 'remove_members', group_id: group.id, user_ids: users });
}

/** The subgroups named, which must exist and be active (Zulip's lock_subgroups_with_respect_to_supergroup). */
function checkSubgroups(graph: GroupGraph, ids: readonly number[]): number[] {
  for (const id of ids) if (!graph.get(id)) throw badRequest(`Invalid user group ID: ${id}`);
  for (const id of ids) if (graph.get(id)!.deactivated) throw badRequest('User group is deactivated.');
  return [...new Set(ids)];
}

function addSubgroups(ctx: HandlerContext, groupId: number, ids: readonly number[]): void {
  const graph = new GroupGraph(ctx.db);
  const group = graph.forUpdate(callerOf(ctx), groupId, 'can_add_members_group');
  const subgroups = checkSubgroups(graph, ids);
  const direct = graph.directSubgroups(group.id);
  for (const id of subgroups) if (direct.includes(id)) throw badRequest(`User group ${id} is already a subgroup of this group.`);
  // A group may not become its own descendant.
  if (graph.recursiveSubgroups(subgroups).has(group.id)) {
    throw badRequest(`User group ${group.id} is already a subgroup of one of the passed subgroups.`);
  }
  const insert = ctx.db.prepare('INSERT INTO group_subgroups (group_id, subgroup_id) VALUES (?, ?)');
  for (const id of subgroups) insert.run(group.id, id);
  emitGroupEvent(ctx, { op: 'add_subgroups', group_id: group.id, direct_subgroup_ids: subgroups });
}

function removeSubgroups(ctx: HandlerContext, groupId: number, ids: readonly number[]): void {
  const graph = new GroupGraph(ctx.db);
  const group = graph.forUpdate(callerOf(ctx), groupId, 'can_manage_group');
  const subgroups = checkSubgroups(graph, ids);
  const direct = graph.directSubgroups(group.id);
  for (const id of subgroups) if (!direct.includes(id)) throw badRequest(`User group ${id} is not a subgroup of this group.`);
  const remove = ctx.db.prepare('DELETE FROM group_subgroups WHERE group_id = ? AND subgroup_id = ?');
  for (const id of subgroups) remove.run(group.id, id);
  emitGroupEvent(ctx, { op: 'remove_subgroups', group_id: group.id, direct_subgroup_ids: subgroups });
}

export const bindings: Binding[] = [
  bind(createUserGroup, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    const graph = new GroupGraph(db);
    if (!graph.realmAllows(me, 'can_create_groups')) throw insufficientPermission();
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
            ? { direct_members: [me.id], direct_subgroups: [] }
            : graph.systemId(fallback);
    }
    if (db.prepare('SELECT 1 FROM user_groups WHERE name = ?').get(name)) throw badRequest(`User group '${name}' already exists.`);
    const info = db
      .prepare('INSERT INTO user_groups (name, description, date_created, creator_id, settings) VALUES (?, ?, ?, ?, ?)')
      .run(name, p.description, ctx.nowSeconds(), me.id, JSON.stringify(settings));
    const id = Number(info.lastInsertRowid);
    const insert = db.prepare('INSERT INTO group_members (group_id, user_id) VALUES (?, ?)');
    for (const userId of members) insert.run(id, userId);
    const created = new GroupGraph(db);
    emitGroupEvent(ctx, { op: 'add', group: created.view(created.get(id)!) });
    if (p.subgroups?.length) {
      // The creator may add subgroups to the new group whatever its other permissions.
      const subgroups = checkSubgroups(created, p.subgroups);
      const insertSub = db.prepare('INSERT INTO group_subgroups (group_id, subgroup_id) VALUES (?, ?)');
      for (const sub of subgroups) insertSub.run(id, sub);
      emitGroupEvent(ctx, { op: 'add_subgroups', group_id: id, direct_subgroup_ids: subgroups });
    }
    return { group_id: id };
  }),

  bind(getUserGroups, (ctx, p) => ({ user_groups: new GroupGraph(ctx.db).list(p.include_deactivated_groups) })),

  bind(getUserGroupMembers, (ctx, p) => {
    const graph = new GroupGraph(ctx.db);
    const group = graph.forRead(p.user_group_id);
    return { members: p.direct_member_only ? graph.directMembers(group.id) : graph.recursiveMembers(group.id) };
  }),

  bind(getIsUserGroupMember, (ctx, p) => {
    const graph = new GroupGraph(ctx.db);
    const group = graph.forRead(p.user_group_id);
    const target = userById(ctx.db, p.user_id);
    if (!target || target.is_bot) throw badRequest('No such user');
    if (!target.is_active) throw badRequest('User is deactivated');
    return { is_user_group_member: graph.isMember(target.id, group.id, p.direct_member_only) };
  }),

  bind(getUserGroupSubgroups, (ctx, p) => {
    const graph = new GroupGraph(ctx.db);
    const group = graph.forRead(p.user_group_id);
    if (p.direct_subgroup_only) return { subgroups: graph.directSubgroups(group.id) };
    const all = graph.recursiveSubgroups(graph.directSubgroups(group.id));
    return { subgroups: [...all].sort((a, b) => a - b) };
  }),

  bind(updateUserGroupMembers, (ctx, p) => {
    const { add, delete: remove, add_subgroups: addSubs, delete_subgroups: removeSubs } = p;
    if (!add?.length && !remove?.length && !addSubs?.length && !removeSubs?.length) {
      throw badRequest('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    }
    // One transaction, in this order, as a Zulip server composes the four changes.
    if (add?.length) addMembers(ctx, p.user_group_id, add);
    if (remove?.length) removeMembers(ctx, p.user_group_id, remove);
    if (addSubs?.length) addSubgroups(ctx, p.user_group_id, addSubs);
    if (removeSubs?.length) removeSubgroups(ctx, p.user_group_id, removeSubs);
    return {};
  }),

  bind(updateUserGroupSubgroups, (ctx, p) => {
    if (!p.add?.length && !p.delete?.length) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
    if (p.add?.length) addSubgroups(ctx, p.user_group_id, p.add);
    if (p.delete?.length) removeSubgroups(ctx, p.user_group_id, p.delete);
    return {};
  }),
];
