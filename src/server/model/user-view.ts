/** The wire form of users (the 2.1 user object) and their API e-mail, as a given viewer may see them. */
import { createHash } from 'node:crypto';
import type { User } from '../../api/types.js';
import { getSetting, realmHost } from './realm.js';
import type { Db } from '../store/db.js';
import { isAdmin, isGuest, isModeratorOrAbove, isOwner, type UserRow, type Viewer } from './users.js';

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
>;

export const listUsersForView = (db: Db): UserViewRow[] =>
  db
    .prepare(
      `SELECT id, email, full_name, role, is_active, is_bot, bot_type, bot_owner_id, date_joined, timezone, avatar_version,
         is_imported_stub FROM users ORDER BY id`,
    )
    .all() as UserViewRow[];

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

/** Whether `viewer` sees the real address of `target`: always a bot's and their own, else as the policy says. */
export const seesRealEmail = (policy: number, viewer: Viewer | null, target: Pick<UserRow, 'id' | 'is_bot'>): boolean =>
  target.is_bot === 1 || viewer?.id === target.id || policyLetsSee(policy, viewer);

export const gravatarUrl = (email: string, version: number): string =>
  `https://secure.gravatar.com/avatar/${createHash('md5').update(email.toLowerCase()).digest('hex')}?d=identicon&version=${version}`;

export interface UserViewOptions {
  clientGravatar: boolean;
  includeCustomProfileFields: boolean;
}

export function isoTime(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace('Z', '+00:00');
}

/** Profile values of many users at once, keyed by user ID then field ID. */
export function profileData(db: Db): Map<number, Record<string, { value: string; rendered_value?: string }>> {
  const rows = db.prepare('SELECT user_id, field_id, value, rendered_value FROM profile_values ORDER BY user_id, field_id').all() as {
    user_id: number;
    field_id: number;
    value: string;
    rendered_value: string | null;
  }[];
  const out = new Map<number, Record<string, { value: string; rendered_value?: string }>>();
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
 * values are read once, so listing ten thousand users stays one query each.
 */
export function userView(db: Db, viewer: Viewer | null, opts: UserViewOptions, realmUrl: string): (target: UserViewRow) => User {
  const policy = getSetting(db, 'email_address_visibility');
  const emailOf = emailerUnder(policy, realmUrl);
  const profiles = opts.includeCustomProfileFields ? profileData(db) : null;
  return (target) => {
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
      is_bot: target.is_bot === 1,
      bot_type: target.is_bot ? target.bot_type : null,
      role: target.role,
      timezone: target.timezone,
      // Avatars are Gravatar-hosted here: null when the client computes them itself and may see the address.
      avatar_url: opts.clientGravatar && seesReal ? null : gravatarUrl(target.email, target.avatar_version),
      avatar_version: target.avatar_version,
      is_imported_stub: target.is_imported_stub === 1,
    };
    if (target.is_bot) user.bot_owner_id = target.bot_owner_id;
    if (profiles && !target.is_bot) user.profile_data = profiles.get(target.id) ?? {};
    return user;
  };
}

/** The API e-mail of one user: the real address when everyone may see it, else `user{id}@{host}`. */
export const apiEmail = (db: Db, target: UserViewRow, realmUrl: string): string => apiEmailer(db, realmUrl)(target);

/** `apiEmail` for many users, the setting read once. */
export const apiEmailer = (db: Db, realmUrl: string): ((target: Pick<UserRow, 'id' | 'email' | 'is_bot'>) => string) =>
  emailerUnder(getSetting(db, 'email_address_visibility'), realmUrl);

/** `apiEmailer` under an email_address_visibility policy already read. */
function emailerUnder(policy: number, realmUrl: string): (target: Pick<UserRow, 'id' | 'email' | 'is_bot'>) => string {
  const everyoneSees = policy === 1;
  const host = realmHost(realmUrl);
  return (target) => (target.is_bot || everyoneSees ? target.email : `user${target.id}@${host}`);
}
