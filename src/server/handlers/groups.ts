/**
 * User groups: creation, listing, editing, deactivation, membership and subgroups (model/groups.ts reads them,
 * model/group-changes.ts and model/group-edits.ts change them).
 */
import { badRequest } from '../../api/errors.js';
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
} from '../../api/operations/groups.js';
import { bind, callerOf, type Handlers } from '../context.js';
import { addMembers, addSubgroups, createGroup, removeMembers, removeSubgroups } from '../model/group-changes.js';
import { deactivateGroup, editGroup } from '../model/group-edits.js';
import { GroupGraph } from '../model/groups.js';
import { userById } from '../model/users.js';

export const handlers: Handlers<'groups'> = {
  createUserGroup: bind(createUserGroup, (ctx, p) => ({ group_id: createGroup(ctx.db, ctx, callerOf(ctx), p, ctx.nowSeconds()) })),

  getUserGroups: bind(getUserGroups, (ctx, p) => ({ user_groups: new GroupGraph(ctx.db).list(p.include_deactivated_groups) })),

  updateUserGroup: bind(updateUserGroup, (ctx, { user_group_id, ...edit }) => {
    editGroup(ctx.db, ctx, callerOf(ctx), user_group_id, edit);
    return {};
  }),

  deactivateUserGroup: bind(deactivateUserGroup, (ctx, p) => {
    deactivateGroup(ctx.db, ctx, callerOf(ctx), p.user_group_id);
    return {};
  }),

  getUserGroupMembers: bind(getUserGroupMembers, (ctx, p) => {
    const graph = new GroupGraph(ctx.db);
    const group = graph.forRead(p.user_group_id);
    return { members: p.direct_member_only ? graph.directMembers(group.id) : graph.recursiveMembers(group.id) };
  }),

  getIsUserGroupMember: bind(getIsUserGroupMember, (ctx, p) => {
    const graph = new GroupGraph(ctx.db);
    const group = graph.forRead(p.user_group_id);
    const target = userById(ctx.db, p.user_id);
    if (!target || target.is_bot) throw badRequest('No such user');
    if (!target.is_active) throw badRequest('User is deactivated');
    return { is_user_group_member: graph.isMember(target.id, group.id, p.direct_member_only) };
  }),

  getUserGroupSubgroups: bind(getUserGroupSubgroups, (ctx, p) => {
    const graph = new GroupGraph(ctx.db);
    const group = graph.forRead(p.user_group_id);
    if (p.direct_subgroup_only) return { subgroups: graph.directSubgroups(group.id) };
    const all = graph.recursiveSubgroups(graph.directSubgroups(group.id));
    return { subgroups: [...all].sort((a, b) => a - b) };
  }),

  updateUserGroupMembers: bind(updateUserGroupMembers, (ctx, p) => {
    const { add, delete: remove, add_subgroups: addSubs, delete_subgroups: removeSubs } = p;
    if (!add?.length && !remove?.length && !addSubs?.length && !removeSubs?.length) {
      throw badRequest('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    }
    // One transaction, in this order, as a Zulip server composes the four changes.
    const [db, me, group] = [ctx.db, callerOf(ctx), p.user_group_id];
    if (add?.length) addMembers(db, ctx, me, group, add);
    if (remove?.length) removeMembers(db, ctx, me, group, remove);
    if (addSubs?.length) addSubgroups(db, ctx, me, group, addSubs);
    if (removeSubs?.length) removeSubgroups(db, ctx, me, group, removeSubs);
    return {};
  }),

  updateUserGroupSubgroups: bind(updateUserGroupSubgroups, (ctx, p) => {
    if (!p.add?.length && !p.delete?.length) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
    if (p.add?.length) addSubgroups(ctx.db, ctx, callerOf(ctx), p.user_group_id, p.add);
    if (p.delete?.length) removeSubgroups(ctx.db, ctx, callerOf(ctx), p.user_group_id, p.delete);
    return {};
  }),
};
