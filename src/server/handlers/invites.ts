/**
 * Invitations: sending (with a Zulip server's checks in its order), listing and revoking. No e-mail leaves
 * the embedded server; an invitation is a stored row an administrator can list and revoke.
 */
import { ApiError, badRequest, insufficientPermission, mustBe } from '../../api/errors.js';
import { getInvites, revokeInvite, sendInvites } from '../../api/operations/invites.js';
import type { HandlerParamsOf } from '../../api/operation.js';
import { bind, bindAsync, callerOf, type Binding, type HandlerContext } from '../context.js';
import { accessStream } from '../model/channels.js';
import { GroupGraph } from '../model/groups.js';
import {
  DAILY_LIMIT_MESSAGE,
  existingAccountErrors,
  INVITE_PENDING,
  INVITE_REVOKED,
  inviteById,
  inviteToWire,
  invitationFailed,
  parseInviteeEmails,
  recentInviteCount,
  type InviteRow,
} from '../model/invites.js';
import { adminIds, inSystemGroup, isAdmin, isOwner } from '../model/users.js';
import { newEmailProblem } from '../model/validation.js';
import { getSetting } from '../realm.js';

/** invites_changed goes to the administrators and to whoever made the invitation. */
function notifyInvitesChanged(ctx: HandlerContext, referrerId: number): void {
  ctx.emit({ type: 'invites_changed' }, [...adminIds(ctx.db), referrerId]);
}

/**
 * Checks and stores the invitations. Throws when nothing was sent; returns the error to report when some
 * addresses were skipped although the others were invited (the caller commits first, then reports it).
 */
function invite(ctx: HandlerContext, p: HandlerParamsOf<typeof sendInvites>): ApiError | null {
  const db = ctx.db;
  const caller = callerOf(ctx);
  const now = ctx.now();
  if (!inSystemGroup(caller, getSetting(db, 'can_invite_users_group'))) throw insufficientPermission();
  // One may invite only to one's own role or a more restricted one.
  if (p.invite_as === 100 && !isOwner(caller)) throw mustBe('owner');
  if (p.invite_as < caller.role) throw badRequest('Must be an organization administrator');
  const emails = parseInviteeEmails(p.invitee_emails);
  if (emails.length === 0) throw badRequest('You must specify at least one email address.');
  const streams = p.stream_ids.map((id) => {
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
  if (p.group_ids.length) {
    const graph = new GroupGraph(db);
    for (const id of p.group_ids) graph.forUpdate(caller, id, 'can_add_members_group');
  }

  if (recentInviteCount(db, now) + emails.length > getSetting(db, 'max_invites_per_day')) {
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

  const minutes = p.invite_expires_in_minutes === undefined ? getSetting(db, 'invite_validity_minutes') : p.invite_expires_in_minutes;
  const insert = db.prepare(
    `INSERT INTO invites (email, referrer_id, invited_as, invited, expiry_date, stream_ids, group_ids,
       include_realm_default_subscriptions, notify_referrer_on_join, welcome_message_custom_text)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const skippedEmails = new Set(skipped.map(([email]) => email));
  for (const email of valid) {
    if (skippedEmails.has(email)) continue;
    insert.run(
      email,
      caller.id,
      p.invite_as,
      now,
      minutes === null ? null : now + minutes * 60,
      JSON.stringify(p.stream_ids),
      JSON.stringify(p.group_ids),
      p.include_realm_default_subscriptions ? 1 : 0,
      p.notify_referrer_on_join ? 1 : 0,
      // Only administrators choose the welcome message; for others it is the organization's.
      isAdmin(caller) ? (p.welcome_message_custom_text ?? null) : null,
    );
  }
  notifyInvitesChanged(ctx, caller.id);
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
    const rows = ctx.db
      .prepare(
        `SELECT * FROM invites WHERE status = ? AND (expiry_date IS NULL OR expiry_date > ?) AND (? OR referrer_id = ?) ORDER BY id`,
      )
      .all(INVITE_PENDING, ctx.now(), isAdmin(caller) ? 1 : 0, caller.id) as InviteRow[];
    return { invites: rows.map(inviteToWire) };
  }),

  bind(revokeInvite, (ctx, p) => {
    const caller = callerOf(ctx);
    const row = inviteById(ctx.db, p.invite_id);
    if (!row || row.status !== INVITE_PENDING) throw badRequest('No such invitation');
    if (row.referrer_id !== caller.id) {
      if (row.invited_as === 100 && !isOwner(caller)) throw mustBe('owner');
      if (!isAdmin(caller)) throw badRequest('Must be an organization administrator');
    }
    ctx.db.prepare('UPDATE invites SET status = ? WHERE id = ?').run(INVITE_REVOKED, row.id);
    notifyInvitesChanged(ctx, row.referrer_id);
    return {};
  }),
];
