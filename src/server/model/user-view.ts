/** The wire form of users (the 2.1 user object) and their API e-mail, as a given viewer may see them. */
import { hash } from 'node:crypto';
import type { User } from '../../api/types.js';
import { getSetting } from './realm.js';
import type { Db } from '../store/db.js';
import { inReadSnapshot } from '../store/transactions.js';
import { systemBotAvatarUrl } from './system-bots.js';
import { isAdmin, isGuest, isModeratorOrAbove, isOwner, type UserRow, type Viewer } from './users.js';
import { limitClause } from '../store/limit-clause.js';

/** What the wire form of a user is made of: listing reads only these columns (10,000 users in a few ms). */
export type UserViewRow = Pick<
  UserRow,
  | 'id'
  | 'email'
  | 'full_name'
  | 'role'
  | 'is_active'
  | 'is_bot'
  | 'bot_type'
  | 'bot_owner_id'
  | 'date_joined'
  | 'timezone'
  | 'avatar_version'
  | 'is_imported_stub'
  | 'is_system_bot'
>;

/** The columns of UserViewRow: what kept renderings of users are made of (a change of any is logged: migration 17). */
export const USER_VIEW_COLUMNS = [
  'id',
  'email',
  'full_name',
  'role',
  'is_active',
  'is_bot',
  'bot_type',
  'bot_owner_id',
  'date_joined',
  'timezone',
  'avatar_version',
  'is_imported_stub',
  'is_system_bot',
] as const satisfies readonly (keyof UserViewRow)[];

const VIEW_COLUMNS = USER_VIEW_COLUMNS.join(', ');

/** The organization's users: the server's system bots are not among them (model/system-bots.ts). */
export const listUsersForView = (db: Db): UserViewRow[] =>
  db.prepare(`SELECT ${VIEW_COLUMNS} FROM users WHERE is_system_bot = 0 ORDER BY id`).all() as UserViewRow[];

/**
 * The users with these IDs (any order), read for their wire form only. One user (a message's sender, the user a
 * write just changed) is read by key: json_each's table costs more than the row.
 */
export const usersForView = (db: Db, ids: readonly number[]): UserViewRow[] =>
  ids.length === 1
    ? db.prepare<[number], UserViewRow>(`SELECT ${VIEW_COLUMNS} FROM users WHERE id = ?`).all(ids[0]!)
    : db.prepare<[string], UserViewRow>(`SELECT ${VIEW_COLUMNS} FROM users WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids));

/** Users per page of a streamed list: about 300 KB of JSON, read in a few milliseconds. */
export const USER_PAGE = 1000;

/** Whether `viewer` may see the real (delivery) e-mail addresses of humans under a visibility policy. */
export function policyLetsSee(policy: number, viewer: Pick<UserRow, 'role'> | null): boolean {
  if (!viewer) return false;
  switch (policy) {
    case 1:
      return true;
    case 2:
      return !isGuest(viewer);
    case 3:
      return isAdmin(viewer);
    case 5:
      return isModeratorOrAbove(viewer);
    default:
      return false;
  }
}

/** Whether everyone may see the real address of `target`: a bot's always, a human's when the policy says everyone. */
const addressPublic = (policy: number, target: Pick<UserRow, 'is_bot'>): boolean => target.is_bot === 1 || policy === 1;

/**
 * Whether a client that computes Gravatars itself (client_gravatar) is left this sender's: zerver/lib/
 * message_cache.py MessageDict.finalize_payload keeps client_gravatar only for a sender whose
 * email_address_visibility is "everyone" (a bot's always is: zerver/actions/create_user.py), whoever reads the
 * message, its sender and administrators included. A system bot's avatar is a file of the server.
 */
export const leavesGravatarToClient = (policy: number, sender: Pick<UserRow, 'is_bot' | 'is_system_bot'>): boolean =>
  !sender.is_system_bot && addressPublic(policy, sender);

/** Whether `viewer` sees the real address of `target`: always a bot's and their own, else as the policy says. */
export const seesRealEmail = (policy: number, viewer: Viewer | null, target: Pick<UserRow, 'id' | 'is_bot'>): boolean =>
  target.is_bot === 1 || viewer?.id === target.id || policyLetsSee(policy, viewer);

/** Gravatar URLs made lately, by version and address: an MD5 each cost a tenth of a `GET /users/me`. */
const gravatars = new Map<string, string>();
/** Entries each memo here keeps at most: emptied when full, so the memory stays bounded however many users are listed. */
const MAX_MEMOISED = 10_000;

export function gravatarUrl(email: string, version: number): string {
  const key = `${version}:${email}`;
  let url = gravatars.get(key);
  if (url === undefined) {
    // The one-shot hash: for 10,000 users in a fresh process, 13 ms against 30 ms with a hash object each.
    url = `https://secure.gravatar.com/avatar/${hash('md5', email.toLowerCase(), 'hex')}?d=identicon&version=${version}`;
    if (gravatars.size >= MAX_MEMOISED) gravatars.clear();
    gravatars.set(key, url);
  }
  return url;
}

export interface UserViewOptions {
  clientGravatar: boolean;
  includeCustomProfileFields: boolean;
}

/** ISO times made lately, by second: a Date and its ISO text per user were a tenth of a `GET /users`. Bounded as those are. */
const isoTimes = new Map<number, string>();

export function isoTime(unixSeconds: number): string {
  let text = isoTimes.get(unixSeconds);
  if (text === undefined) {
    text = new Date(unixSeconds * 1000).toISOString().replace('Z', '+00:00');
    if (isoTimes.size >= MAX_MEMOISED) isoTimes.clear();
    isoTimes.set(unixSeconds, text);
  }
  return text;
}

export type ProfileValues = Record<string, { value: string; rendered_value?: string }>;

/** Profile values of many users at once (all, or those with IDs in `ids`, inclusive), keyed by user ID then field ID. */
export function profileData(db: Db, ids?: { from: number; to: number }): Map<number, ProfileValues> {
  const columns = 'SELECT user_id, field_id, value, rendered_value FROM profile_values';
  const rows = (
    ids
      ? db.prepare(`${columns} WHERE user_id BETWEEN ? AND ? ORDER BY user_id, field_id`).all(ids.from, ids.to)
      : db.prepare(`${columns} ORDER BY user_id, field_id`).all()
  ) as {
    user_id: number;
    field_id: number;
    value: string;
    rendered_value: string | null;
  }[];
  const out = new Map<number, ProfileValues>();
  for (const r of rows) {
    const entry: { value: string; rendered_value?: string } = { value: r.value };
    if (r.rendered_value !== null) entry.rendered_value = r.rendered_value;
    const m = out.get(r.user_id) ?? {};
    m[String(r.field_id)] = entry;
    out.set(r.user_id, m);
  }
  return out;
}

/**
 * A function giving the 2.1 user object of any user as `viewer` sees it. The realm policy and the profile
 * values (of every user) are read once, so listing ten thousand users stays one query each; for one user, oneUserView.
 */
export function userView(db: Db, viewer: Viewer | null, opts: UserViewOptions, realmUrl: string): (target: UserViewRow) => User {
  const view = viewWithProfiles(db, viewer, opts, realmUrl);
  const profiles = opts.includeCustomProfileFields ? profileData(db) : null;
  return (target) => view(target, profiles);
}

/** The 2.1 user object of one user as `viewer` sees it, with that user's profile values only. */
export function oneUserView(db: Db, viewer: Viewer | null, opts: UserViewOptions, realmUrl: string, target: UserViewRow): User {
  return viewWithProfiles(db, viewer, opts, realmUrl)(target, profilesOf(db, opts, [target]));
}

/**
 * The wire form of every user after ID `from` (only those in `only`, when given) as `viewer` sees them, in ID
 * order, a page of USER_PAGE users at a time (keyset pages: the users after the last ID of the page before).
 * Each page is one short read of its own, made when the next page is asked for: nothing is held open between
 * pages, as a server shares its one connection among requests while a slow client reads.
 *
 * Consistency: each user is read whole, and once: IDs only grow and users are never deleted, so everyone
 * who existed throughout is listed exactly once, and someone created while the list is read is listed at
 * its end when their page is read after. But a page shows the users as they were when it was read, not when
 * the request came: a change made meanwhile to users on several pages (an owner deactivated with their bots)
 * may show on later pages only. Zulip's answer is one snapshot; this one is chosen anyway: a snapshot held
 * for the whole answer would have to last as long as the client takes to read it (minutes, for a slow or
 * stalled one), and a read transaction held that long on a second connection stops the WAL from being
 * checkpointed meanwhile, so the store's log would grow with the slowest reader. GET /users is no
 * consistency point in the API either (POST /register, with its event queue, is): its answer is stale the
 * moment it is sent. Who reads a list whole (not as a stream) still gets one snapshot: the router reads
 * every page inside the request's transaction.
 */
export function* userViewPages(
  db: Db,
  viewer: Viewer | null,
  opts: UserViewOptions,
  realmUrl: string,
  only?: ReadonlySet<number>,
  from = 0,
): Generator<User[]> {
  const view = viewWithProfiles(db, viewer, opts, realmUrl);
  const page = db.prepare<[number], UserViewRow>(`SELECT ${VIEW_COLUMNS} FROM users WHERE id > ? AND is_system_bot = 0 ORDER BY id ${limitClause(USER_PAGE)}`);
  const read = (after: number) =>
    inReadSnapshot(db, () => {
      const rows = page.all(after);
      return { rows, profiles: profilesOf(db, opts, rows) };
    });
  for (let after = from; ; ) {
    const { rows, profiles } = read(after);
    const users = (only ? rows.filter((u) => only.has(u.id)) : rows).map((u) => view(u, profiles));
    if (users.length) yield users;
    if (rows.length < USER_PAGE) return;
    after = rows.at(-1)!.id;
  }
}

/** The organization's settings a user's wire form depends on. */
export interface ViewSettings {
  policy: number;
  botDomain: string;
}

export const viewSettings = (db: Db): ViewSettings => ({ policy: getSetting(db, 'email_address_visibility'), botDomain: getSetting(db, 'bot_domain') });

/** The profile values of users read in ID order, when they are asked for. */
export const profilesOf = (db: Db, opts: UserViewOptions, rows: readonly UserViewRow[]): Map<number, ProfileValues> | null =>
  opts.includeCustomProfileFields && rows.length ? profileData(db, { from: rows[0]!.id, to: rows.at(-1)!.id }) : null;

/** `userView`, its profile values given per call (all of them, or a page's). */
export function viewWithProfiles(
  db: Db,
  viewer: Viewer | null,
  opts: UserViewOptions,
  realmUrl: string,
  { policy, botDomain }: ViewSettings = viewSettings(db),
): (target: UserViewRow, profiles: ReadonlyMap<number, ProfileValues> | null) => User {
  const emailOf = emailerUnder(policy, botDomain);
  return (target, profiles) => {
    const seesReal = seesRealEmail(policy, viewer, target);
    const user: User = {
      user_id: target.id,
      delivery_email: seesReal ? target.email : null,
      email: emailOf(target),
      full_name: target.full_name,
      date_joined: isoTime(target.date_joined),
      is_active: target.is_active === 1,
      is_owner: isOwner(target),
      is_admin: isAdmin(target),
      is_guest: isGuest(target),
      // zerver/lib/users.py format_user_row sends it on every user; nothing here grants it (no billing).
      is_billing_admin: false,
      is_bot: target.is_bot === 1,
      bot_type: target.is_bot ? target.bot_type : null,
      role: target.role,
      timezone: target.timezone,
      // Avatars are Gravatar-hosted here: null when the client computes them itself and may see the address.
      avatar_url: target.is_system_bot
        ? systemBotAvatarUrl(target.email, realmUrl)
        : opts.clientGravatar && seesReal
          ? null
          : gravatarUrl(target.email, target.avatar_version),
      avatar_version: target.avatar_version,
      is_imported_stub: target.is_imported_stub === 1,
    };
    if (target.is_system_bot) user.is_system_bot = true;
    if (target.is_bot) user.bot_owner_id = target.bot_owner_id;
    if (profiles && !target.is_bot) user.profile_data = profiles.get(target.id) ?? {};
    return user;
  };
}

/** The API e-mail of one user: the real address when everyone may see it, else `user{id}@{host}`. */
export const apiEmail = (db: Db, target: UserViewRow): string => apiEmailer(db)(target);

/** `apiEmail` for many users, the setting read once. */
export const apiEmailer = (db: Db): ((target: Pick<UserRow, 'id' | 'email' | 'is_bot'>) => string) =>
  emailerUnder(getSetting(db, 'email_address_visibility'), getSetting(db, 'bot_domain'));

/**
 * `apiEmailer` under an email_address_visibility policy already read. The placeholder's domain is the
 * organization's (zerver/lib/users.py get_fake_email_domain(realm.host), as bot addresses), never the host a
 * request reached `serve` by.
 */
function emailerUnder(policy: number, host: string): (target: Pick<UserRow, 'id' | 'email' | 'is_bot'>) => string {
  return (target) => (addressPublic(policy, target) ? target.email : `user${target.id}@${host}`);
}
