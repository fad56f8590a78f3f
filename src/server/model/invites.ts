/**
 * Invitations in the store: e-mail invitations (`invites`) and reusable links (`multiuse_invites`), and the
 * checks a Zulip server makes before sending them.
 */
import { ApiError } from '../../api/errors.js';
import type { EmailInvite, InvitationFailure, LinkInvite, sendInvites } from '../../api/operations/invites.js';
import type { HandlerParamsOf } from '../../api/operation.js';
import type { Role } from '../../api/roles.js';
import { randomString } from '../../random.js';
import type { EventSink } from '../context.js';
import { getSetting } from './realm.js';
import type { Db } from '../store/db.js';
import { adminIds, isAdmin, type UserRow } from './users.js';
import { newEmailProblem } from './validation.js';

/** What both kinds of invitation store. */
interface InvitationRow {
  id: number;
  referrer_id: number;
  invited_as: Role;
  invited: number;
  expiry_date: number | null;
  stream_ids: string;
  group_ids: string;
  include_realm_default_subscriptions: number;
  status: number;
}

export interface InviteRow extends InvitationRow {
  email: string;
  notify_referrer_on_join: number;
  welcome_message_custom_text: string | null;
}

export const INVITE_PENDING = 0;
export const INVITE_REVOKED = 2;

export interface LinkRow extends InvitationRow {
  link_key: string;
}

export const inviteToWire = (row: InviteRow): EmailInvite => ({
  id: row.id,
  invited_by_user_id: row.referrer_id,
  invited: row.invited,
  expiry_date: row.expiry_date,
  invited_as: row.invited_as,
  email: row.email,
  is_multiuse: false,
  notify_referrer_on_join: row.notify_referrer_on_join === 1,
});

/**
 * The addresses of an `invitee_emails` value: separated by commas or newlines, `Name <address>` reduced to
 * the address, stripped, each once. Empty entries (a trailing newline) are skipped, as a server skips them.
 */
export function parseInviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const email = namedAddress(part).trim();
    if (email) out.add(email);
  }
  return [...out];
}

/**
 * What `Name <address>` names: from the first `<` to the last `>` after it (a server's greedy `<(.*)>`),
 * else the whole text. Found with indexOf: the pattern backtracks quadratically on a run of `<`.
 */
function namedAddress(part: string): string {
  const open = part.indexOf('<');
  const close = part.lastIndexOf('>');
  return open >= 0 && close > open ? part.slice(open + 1, close) : part;
}

/** Why each address that already belongs to an account cannot be invited: [address, reason, deactivated]. */
function existingAccountErrors(db: Db, emails: readonly string[]): [string, string, boolean][] {
  const errors: [string, string, boolean][] = [];
  const lookup = db.prepare('SELECT is_active FROM users WHERE email = ? COLLATE NOCASE');
  for (const email of emails) {
    const user = lookup.get(email) as Pick<UserRow, 'is_active'> | undefined;
    if (!user) continue;
    errors.push(user.is_active ? [email, 'Already has an account.', false] : [email, 'Account has been deactivated.', true]);
  }
  return errors;
}

/** Invitations created in the last day, against the organization's daily limit. */
const recentInviteCount = (db: Db, now: number): number =>
  db
    .prepare('SELECT count(*) FROM invites WHERE invited > ?')
    .pluck()
    .get(now - 86400) as number;

const DAILY_LIMIT_MESSAGE =
  'To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.';

/** The INVITATION_FAILED error, with the fields a client needs to tell what happened to each address. */
export function invitationFailed(msg: string, failure: Partial<InvitationFailure> & Pick<InvitationFailure, 'errors' | 'sent_invitations'>): ApiError {
  return new ApiError(msg, 'INVITATION_FAILED', 400, { license_limit_reached: false, daily_limit_reached: false, ...failure });
}

type InvitationTable = 'invites' | 'multiuse_invites';

/** The columns both kinds of invitation have: who invited, when, until when, and what the new user joins. */
const JOIN_COLUMNS = 'referrer_id, invited_as, invited, expiry_date, stream_ids, group_ids, include_realm_default_subscriptions';

/** The values of JOIN_COLUMNS, in that order. */
type JoinValues = [number, number, number, number | null, string, string, number];

/** What a request says the new user joins as and with, for both kinds of invitation. */
type JoinRequest = Pick<
  HandlerParamsOf<typeof sendInvites>,
  'invite_as' | 'invite_expires_in_minutes' | 'stream_ids' | 'group_ids' | 'include_realm_default_subscriptions'
>;

/** The JoinValues of a request; the expiry defaults to the organization's validity. */
function joinValues(db: Db, referrerId: number, p: JoinRequest, now: number): JoinValues {
  const minutes = p.invite_expires_in_minutes === undefined ? getSetting(db, 'invite_validity_minutes') : p.invite_expires_in_minutes;
  return [
    referrerId,
    p.invite_as,
    now,
    minutes === null ? null : now + minutes * 60,
    JSON.stringify(p.stream_ids),
    JSON.stringify(p.group_ids),
    p.include_realm_default_subscriptions ? 1 : 0,
  ];
}

/** Refuses `count` more invitations today when they would pass the organization's daily limit, if it has one. */
export function checkDailyLimit(db: Db, now: number, count: number): void {
  const limit = getSetting(db, 'max_invites_per_day');
  if (limit !== null && recentInviteCount(db, now) + count > limit) {
    throw invitationFailed(DAILY_LIMIT_MESSAGE, { errors: [], sent_invitations: false, daily_limit_reached: true });
  }
}

/**
 * Checks and stores e-mail invitations from `referrer` to `emails` (parsed, at least one), the caller's
 * permissions already checked. Throws when nothing was sent; returns the error to report when some
 * addresses were skipped although the others were invited (the caller commits first, then reports it).
 */
export function sendInvitations(
  db: Db,
  sink: EventSink,
  referrer: UserRow,
  emails: readonly string[],
  p: HandlerParamsOf<typeof sendInvites>,
  now: number,
): ApiError | null {
  checkDailyLimit(db, now, emails.length);
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
  const welcomeMessage = isAdmin(referrer) ? (p.welcome_message_custom_text ?? null) : null;
  insertInvites(
    db,
    joinValues(db, referrer.id, p, now),
    valid.filter((email) => !skippedEmails.has(email)).map((email) => ({ email, notifyReferrerOnJoin: p.notify_referrer_on_join, welcomeMessage })),
  );
  notifyInvitesChanged(db, sink, referrer.id);
  if (!skipped.length) return null;
  return invitationFailed("Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!", {
    errors: skipped,
    sent_invitations: true,
  });
}

/** Creates a reusable invitation link of `referrerId`'s; returns its URL. */
export function createLink(db: Db, sink: EventSink, referrerId: number, p: JoinRequest, now: number, realmUrl: string): string {
  const key = newLinkKey();
  insertLink(db, joinValues(db, referrerId, p, now), key);
  notifyInvitesChanged(db, sink, referrerId);
  return linkUrl(realmUrl, key);
}

/** Stores e-mail invitations sharing `joins`, one per address. */
function insertInvites(db: Db, joins: JoinValues, invites: readonly { email: string; notifyReferrerOnJoin: boolean; welcomeMessage: string | null }[]): void {
  const insert = db.prepare(
    `INSERT INTO invites (${JOIN_COLUMNS}, email, notify_referrer_on_join, welcome_message_custom_text)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const i of invites) insert.run(...joins, i.email, i.notifyReferrerOnJoin ? 1 : 0, i.welcomeMessage);
}

function insertLink(db: Db, joins: JoinValues, key: string): void {
  db.prepare(`INSERT INTO multiuse_invites (${JOIN_COLUMNS}, link_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(...joins, key);
}

/** Pending, unexpired invitations of one kind: all of them when `all`, else those `referrerId` made. */
function pendingOf(db: Db, table: InvitationTable, now: number, all: boolean, referrerId: number): unknown[] {
  return db
    .prepare(`SELECT * FROM ${table} WHERE status = ? AND (expiry_date IS NULL OR expiry_date > ?) AND (? OR referrer_id = ?) ORDER BY id`)
    .all(INVITE_PENDING, now, all ? 1 : 0, referrerId);
}

export const pendingInvites = (db: Db, now: number, all: boolean, referrerId: number): InviteRow[] =>
  pendingOf(db, 'invites', now, all, referrerId) as InviteRow[];

export const pendingLinks = (db: Db, now: number, all: boolean, referrerId: number): LinkRow[] =>
  pendingOf(db, 'multiuse_invites', now, all, referrerId) as LinkRow[];

const revokeRow = (db: Db, table: InvitationTable, id: number): void => {
  db.prepare(`UPDATE ${table} SET status = ? WHERE id = ?`).run(INVITE_REVOKED, id);
};

/** Revokes an invitation of one kind and tells who may list it. */
function revoke(db: Db, sink: EventSink, table: InvitationTable, row: InviteRow | LinkRow): void {
  revokeRow(db, table, row.id);
  notifyInvitesChanged(db, sink, row.referrer_id);
}

export const revokeEmailInvitation = (db: Db, sink: EventSink, row: InviteRow): void => revoke(db, sink, 'invites', row);
export const revokeLinkInvitation = (db: Db, sink: EventSink, row: LinkRow): void => revoke(db, sink, 'multiuse_invites', row);

/** Revokes every pending invitation and link `referrerId` made; returns whether there were any. */
/** invites_changed goes to the administrators and to whoever made the invitation, if they are told apart. */
export function notifyInvitesChanged(db: Db, sink: EventSink, referrerId?: number): void {
  sink.emit({ type: 'invites_changed' }, referrerId === undefined ? adminIds(db) : [...adminIds(db), referrerId]);
}

export function revokeAllBy(db: Db, referrerId: number): boolean {
  const revoke = (table: InvitationTable) =>
    db.prepare(`UPDATE ${table} SET status = ? WHERE referrer_id = ? AND status = ?`).run(INVITE_REVOKED, referrerId, INVITE_PENDING).changes;
  const [emails, links] = [revoke('invites'), revoke('multiuse_invites')];
  return emails + links > 0;
}

export const inviteById = (db: Db, id: number): InviteRow | undefined => db.prepare('SELECT * FROM invites WHERE id = ?').get(id) as InviteRow | undefined;

export const linkById = (db: Db, id: number): LinkRow | undefined => db.prepare('SELECT * FROM multiuse_invites WHERE id = ?').get(id) as LinkRow | undefined;

const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A new link's key: 24 lower-case letters and digits, as a Zulip confirmation key. */
const newLinkKey = (): string => randomString(24, KEY_ALPHABET);

/** Where a link leads: the organization's /join/ page, at the URL the request reached the server by. */
const linkUrl = (realmUrl: string, key: string): string => `${realmUrl.replace(/\/+$/, '')}/join/${key}/`;

export const linkToWire = (row: LinkRow, realmUrl: string): LinkInvite => ({
  id: row.id,
  invited_by_user_id: row.referrer_id,
  invited: row.invited,
  expiry_date: row.expiry_date,
  invited_as: row.invited_as,
  link_url: linkUrl(realmUrl, row.link_key),
  is_multiuse: true,
});
