/**
 * Invitations of both kinds, with a Zulip server's checks in its order: e-mail invitations (send, resend,
 * revoke) and reusable links (create, revoke), listed together. No e-mail leaves the embedded server; an
 * invitation is a stored row its maker and the administrators can list, resend and revoke.
 */
import { ApiError, badRequest, insufficientPermission, mustBe } from '../../api/errors.js';
import { createInviteLink, getInvites, resendInvite, revokeInvite, revokeInviteLink, sendInvites } from '../../api/operations/invites.js';
import type { HandlerParamsOf } from '../../api/operation.js';
import { ROLE } from '../../api/roles.js';
import type { Role } from '../../api/roles.js';
import { bind, bindAsync, callerOf, type Handlers, type HandlerContext } from '../context.js';
import { accessStream } from '../model/channels.js';
import { GroupGraph } from '../model/groups.js';
import {
  checkDailyLimit,
  createLink,
  INVITE_PENDING,
  INVITE_REVOKED,
  inviteById,
  inviteToWire,
  linkById,
  linkToWire,
  parseInviteeEmails,
  pendingInvites,
  pendingLinks,
  revokeEmailInvitation,
  revokeLinkInvitation,
  sendInvitations,
  type InviteRow,
} from '../model/invites.js';
import { isAdmin, isOwner, type UserRow } from '../model/users.js';
import { mayUse } from '../model/realm-permissions.js';

/**
 * One may invite only to one's own role or a more restricted one (the API document's rule; a Zulip server
 * also asks an administrator for moderators).
 */
function checkInviteRole(caller: UserRow, role: Role): void {
  if (role === ROLE.owner && !isOwner(caller)) throw mustBe('owner');
  if (role < caller.role) throw badRequest('Must be an organization administrator');
}

/**
 * The channels and groups a new user would join: each channel accessible to the caller, and one the caller
 * may subscribe others to unless it is a default channel; each group one the caller may add members to.
 */
function checkJoinTargets(ctx: HandlerContext, caller: UserRow, streamIds: readonly number[], groupIds: readonly number[]): void {
  const db = ctx.db;
  const streams = streamIds.map((id) => {
    try {
      return accessStream(db, caller, id);
    } catch (e) {
      if (e instanceof ApiError) throw badRequest(`Invalid channel ID ${id}. No invites were sent.`);
      throw e;
    }
  });
  // Default channels are every new user's anyway; subscribing people to others is a permission.
  if (streams.some((s) => !s.is_default) && !mayUse(db, caller, 'can_add_subscribers_group')) {
    throw badRequest('You do not have permission to subscribe other users to channels.');
  }
  if (groupIds.length) {
    const graph = new GroupGraph(db);
    for (const id of groupIds) graph.forUpdate(caller, id, 'can_add_members_group');
  }
}

/** Someone else's invitation: its maker may manage it; otherwise an administrator (an owner for an owner's). */
function checkManage(caller: UserRow, row: Pick<InviteRow, 'referrer_id' | 'invited_as'>): void {
  if (row.referrer_id === caller.id) return;
  if (row.invited_as === ROLE.owner && !isOwner(caller)) throw mustBe('owner');
  if (!isAdmin(caller)) throw badRequest('Must be an organization administrator');
}

/** A pending e-mail invitation the caller may manage (revoke, resend). */
function managedInvite(ctx: HandlerContext, id: number): InviteRow {
  const row = inviteById(ctx.db, id);
  if (!row || row.status !== INVITE_PENDING) throw badRequest('No such invitation');
  checkManage(callerOf(ctx), row);
  return row;
}

/** The caller's permissions and the request's addresses and targets, in a server's order; returns the addresses. */
function checkInvite(ctx: HandlerContext, caller: UserRow, p: HandlerParamsOf<typeof sendInvites>): string[] {
  if (!mayUse(ctx.db, caller, 'can_invite_users_group')) throw insufficientPermission();
  checkInviteRole(caller, p.invite_as);
  const emails = parseInviteeEmails(p.invitee_emails);
  if (emails.length === 0) throw badRequest('You must specify at least one email address.');
  checkJoinTargets(ctx, caller, p.stream_ids, p.group_ids);
  return emails;
}

export const handlers: Handlers<'invites'> = {
  // Async only to commit the invitations that were sent before reporting the addresses that were skipped.
  sendInvites: bindAsync(sendInvites, (ctx, p) => {
    const caller = callerOf(ctx);
    const partial = ctx.tx(() => {
      const emails = checkInvite(ctx, caller, p);
      return sendInvitations(ctx.db, ctx, caller, emails, p, ctx.nowSeconds());
    });
    if (partial) throw partial;
    return {};
  }),

  getInvites: bind(getInvites, (ctx) => {
    const caller = callerOf(ctx);
    // Pending and unexpired: all of them for administrators, one's own for others. E-mail invitations first.
    const [now, all] = [ctx.nowSeconds(), isAdmin(caller)];
    const emails = pendingInvites(ctx.db, now, all, caller.id).map(inviteToWire);
    const links = pendingLinks(ctx.db, now, all, caller.id).map((row) => linkToWire(row, ctx.realmUrl));
    return { invites: [...emails, ...links] };
  }),

  revokeInvite: bind(revokeInvite, (ctx, p) => {
    revokeEmailInvitation(ctx.db, ctx, managedInvite(ctx, p.invite_id));
    return {};
  }),

  resendInvite: bind(resendInvite, (ctx, p) => {
    managedInvite(ctx, p.invite_id);
    // A resent e-mail counts against the daily limit as a new one would; nothing else changes.
    checkDailyLimit(ctx.db, ctx.nowSeconds(), 1);
    return {};
  }),

  createInviteLink: bind(createInviteLink, (ctx, p) => {
    const caller = callerOf(ctx);
    if (!mayUse(ctx.db, caller, 'create_multiuse_invite_group')) throw insufficientPermission();
    checkInviteRole(caller, p.invite_as);
    checkJoinTargets(ctx, caller, p.stream_ids, p.group_ids);
    return { invite_link: createLink(ctx.db, ctx, caller.id, p, ctx.nowSeconds(), ctx.realmUrl) };
  }),

  revokeInviteLink: bind(revokeInviteLink, (ctx, p) => {
    const row = linkById(ctx.db, p.invite_id);
    if (!row) throw badRequest('No such invitation');
    checkManage(callerOf(ctx), row);
    if (row.status === INVITE_REVOKED) throw badRequest('Invitation has already been revoked');
    revokeLinkInvitation(ctx.db, ctx, row);
    return {};
  }),
};
