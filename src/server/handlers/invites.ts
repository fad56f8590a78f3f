/**
 * Invitations of both kinds, with a Zulip server's checks in its order: e-mail invitations (send, resend,
 * revoke) and reusable links (create, revoke), listed together. No e-mail leaves the embedded server; an
 * invitation is a stored row its maker and the administrators can list, resend and revoke.
 */
import { ApiError, badRequest, insufficientPermission, mustBe } from '../../api/errors.js';
import {
  createInviteLink,
  getInvites,
  resendInvite,
  revokeInvite,
  revokeInviteLink,
  sendInvites,
} from '../../api/operations/invites.js';
import type { HandlerParamsOf } from '../../api/operation.js';
import { ROLE } from '../../api/roles.js';
import type { Role } from '../../api/types.js';
import { bind, bindAsync, callerOf, type Binding, type HandlerContext } from '../context.js';
import { accessStream } from '../model/channels.js';
import { GroupGraph } from '../model/groups.js';
import {
  DAILY_LIMIT_MESSAGE,
  existingAccountErrors,
  INVITE_PENDING,
  INVITE_REVOKED,
  insertInvites,
  insertLink,
  inviteById,
  inviteToWire,
  invitationFailed,
  linkById,
  linkToWire,
  linkUrl,
  newLinkKey,
  notifyInvitesChanged,
  parseInviteeEmails,
  pendingInvites,
  pendingLinks,
  recentInviteCount,
  revokeInviteRow,
  revokeLinkRow,
  type InviteRow,
  type JoinValues,
} from '../model/invites.js';
import { inSystemGroup } from '../model/system-groups.js';
import { isAdmin, isOwner, type UserRow } from '../model/users.js';
import { newEmailProblem } from '../model/validation.js';
import { getSetting } from '../realm.js';
import type { Db } from '../store/db.js';

/** What both kinds of invitation store for a request (model's JoinValues); the expiry defaults to the organization's validity. */
function joinValues(
  ctx: HandlerContext,
  caller: UserRow,
  p: Pick<HandlerParamsOf<typeof sendInvites>, 'invite_as' | 'invite_expires_in_minutes' | 'stream_ids' | 'group_ids' | 'include_realm_default_subscriptions'>,
): JoinValues {
  const now = ctx.nowSeconds();
  const minutes = p.invite_expires_in_minutes === undefined ? getSetting(ctx.db, 'invite_validity_minutes') : p.invite_expires_in_minutes;
  return [
    caller.id,
    p.invite_as,
    now,
    minutes === null ? null : now + minutes * 60,
    JSON.stringify(p.stream_ids),
    JSON.stringify(p.group_ids),
    p.include_realm_default_subscriptions ? 1 : 0,
  ];
}

/** Whether `count` more invitations today would pass the organization's daily limit, if it has one. */
function overDailyLimit(db: Db, now: number, count: number): boolean {
  const limit = getSetting(db, 'max_invites_per_day');
  return limit !== null && recentInviteCount(db, now) + count > limit;
}

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
  if (streams.some((s) => !s.is_default) && !inSystemGroup(caller, getSetting(db, 'can_add_subscribers_group'))) {
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

/**
 * Checks and stores the invitations. Throws when nothing was sent; returns the error to report when some
 * addresses were skipped although the others were invited (the caller commits first, then reports it).
 */
function invite(ctx: HandlerContext, p: HandlerParamsOf<typeof sendInvites>): ApiError | null {
  const db = ctx.db;
  const caller = callerOf(ctx);
  const now = ctx.nowSeconds();
  if (!inSystemGroup(caller, getSetting(db, 'can_invite_users_group'))) throw insufficientPermission();
  checkInviteRole(caller, p.invite_as);
  const emails = parseInviteeEmails(p.invitee_emails);
  if (emails.length === 0) throw badRequest('You must specify at least one email address.');
  checkJoinTargets(ctx, caller, p.stream_ids, p.group_ids);

  if (overDailyLimit(db, now, emails.length)) {
    throw invitationFailed(DAILY_LIMIT_MESSAGE, { errors: [], sent_invitations: false, daily_limit_reached: true });
  }
  const invalid: [string, string, boolean][] = [];
  const valid: string[] = [];
  for (const email of emails) {
    const problem = newEmailProblem(db, email);
    if (problem) invalid.push([email, problem, false]);
    else valid.push(email);
  }
  const skipped = existingAccountErrors(db, valid);
  if (invalid.length) {
    throw invitationFailed("Some emails did not validate, so we didn't send any invitations.", { errors: [...invalid, ...skipped], sent_invitations: false });
  }
  if (skipped.length === emails.length) {
    throw invitationFailed("We weren't able to invite anyone.", { errors: skipped, sent_invitations: false });
  }

  const skippedEmails = new Set(skipped.map(([email]) => email));
  // Only administrators choose the welcome message; for others it is the organization's (the API
  // document's rule; a Zulip server refuses theirs).
  const welcomeMessage = isAdmin(caller) ? (p.welcome_message_custom_text ?? null) : null;
  insertInvites(
    db,
    joinValues(ctx, caller, p),
    valid.filter((email) => !skippedEmails.has(email)).map((email) => ({ email, notifyReferrerOnJoin: p.notify_referrer_on_join, welcomeMessage })),
  );
  notifyInvitesChanged(db, ctx, caller.id);
  if (!skipped.length) return null;
  return invitationFailed(
    "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
    { errors: skipped, sent_invitations: true },
  );
}

export const bindings: Binding[] = [
  // Async only to commit the invitations that were sent before reporting the addresses that were skipped.
  bindAsync(sendInvites, (ctx, p) => {
    const partial = ctx.tx(() => invite(ctx, p));
    if (partial) throw partial;
    return {};
  }),

  bind(getInvites, (ctx) => {
    const caller = callerOf(ctx);
    // Pending and unexpired: all of them for administrators, one's own for others. E-mail invitations first.
    const [now, all] = [ctx.nowSeconds(), isAdmin(caller)];
    const emails = pendingInvites(ctx.db, now, all, caller.id).map(inviteToWire);
    const links = pendingLinks(ctx.db, now, all, caller.id).map((row) => linkToWire(row, ctx.realmUrl));
    return { invites: [...emails, ...links] };
  }),

  bind(revokeInvite, (ctx, p) => {
    const row = managedInvite(ctx, p.invite_id);
    revokeInviteRow(ctx.db, row.id);
    notifyInvitesChanged(ctx.db, ctx, row.referrer_id);
    return {};
  }),

  bind(resendInvite, (ctx, p) => {
    managedInvite(ctx, p.invite_id);
    // A resent e-mail counts against the daily limit as a new one would; nothing else changes.
    if (overDailyLimit(ctx.db, ctx.nowSeconds(), 1)) {
      throw invitationFailed(DAILY_LIMIT_MESSAGE, { errors: [], sent_invitations: false, daily_limit_reached: true });
    }
    return {};
  }),

  bind(createInviteLink, (ctx, p) => {
    const caller = callerOf(ctx);
    if (!inSystemGroup(caller, getSetting(ctx.db, 'can_create_multiuse_invite_group'))) throw insufficientPermission();
    checkInviteRole(caller, p.invite_as);
    checkJoinTargets(ctx, caller, p.stream_ids, p.group_ids);
    const key = newLinkKey();
    insertLink(ctx.db, joinValues(ctx, caller, p), key);
    notifyInvitesChanged(ctx.db, ctx, caller.id);
    return { invite_link: linkUrl(ctx.realmUrl, key) };
  }),

  bind(revokeInviteLink, (ctx, p) => {
    const row = linkById(ctx.db, p.invite_id);
    if (!row) throw badRequest('No such invitation');
    checkManage(callerOf(ctx), row);
    if (row.status === INVITE_REVOKED) throw badRequest('Invitation has already been revoked');
    revokeLinkRow(ctx.db, row.id);
    notifyInvitesChanged(ctx.db, ctx, row.referrer_id);
    return {};
  }),
];
