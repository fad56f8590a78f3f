/** Users in the store, and their wire form as a given viewer may see it. */
import { createHash } from 'node:crypto';
import type { BotType, Role, User } from '../../api/types.js';
import { getSetting, realmHost } from '../realm.js';
import { hashPassword, newApiKey } from '../secrets.js';
import type { Db } from '../store/db.js';

export interface UserRow {
  id: number;
  email: string;
  full_name: string;
  role: Role;
  is_active: number;
  is_bot: number;
  bot_type: BotType | null;
  bot_owner_id: number | null;
  api_key: string;
  password_hash: string | null;
  date_joined: number;
  timezone: string;
  avatar_version: number;
  is_imported_stub: number;
  presence_enabled: number;
  send_stream_typing_notifications: number;
  send_private_typing_notifications: number;
  receives_typing_notifications: number;
  status_text: string;
  status_emoji_name: string;
  status_emoji_code: string;
  status_reaction_type: string;
  service_base_url: string | null;
  service_interface: number | null;
  service_token: string | null;
}

export const isAdmin = (u: Pick<UserRow, 'role'>): boolean => u.role <= 200;
export const isOwner = (u: Pick<UserRow, 'role'>): boolean => u.role === 100;
export const isModeratorOrAbove = (u: Pick<UserRow, 'role'>): boolean => u.role <= 300;
export const isGuest = (u: Pick<UserRow, 'role'>): boolean => u.role === 600;

export const userById = (db: Db, id: number): UserRow | undefined =>
  db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;

export const userByEmail = (db: Db, email: string): UserRow | undefined =>
  db.prepare('SELECT * FROM users WHERE email = ? COLLATE NOCASE').get(email.trim()) as UserRow | undefined;

export const allUsers = (db: Db): UserRow[] => db.prepare('SELECT * FROM users ORDER BY id').all() as UserRow[];

/** What the wire form of a user is made of: listing reads only these columns (10,000 users in a few ms). */
export type UserViewRow = Pick<
  UserRow,
  'id' | 'email' | 'full_name' | 'role' | 'is_active' | 'is_bot' | 'bot_type' | 'bot_owner_id' | 'date_joined' | 'timezone' | 'avatar_version' | 'is_imported_stub'
>;

export const listUsersForView = (db: Db): UserViewRow[] =>
  db
    .prepare(
      `SELECT id, email, full_name, role, is_active, is_bot, bot_type, bot_owner_id, date_joined, timezone, avatar_version,
         is_imported_stub FROM users ORDER BY id`,
    )
    .all() as UserViewRow[];

export const activeUserIds = (db: Db): number[] =>
  (db.prepare('SELECT id FROM users WHERE is_active = 1').pluck().all() as number[]);

export interface NewUser {
  email: string;
  full_name: string;
  role?: Role;
  password?: string | null;
  is_bot?: boolean;
  bot_type?: BotType | null;
  bot_owner_id?: number | null;
  timezone?: string;
  date_joined?: number;
  service_base_url?: string | null;
  service_interface?: number | null;
  service_token?: string | null;
}

export function insertUser(db: Db, u: NewUser, now: number): UserRow {
  const info = db
    .prepare(
      `INSERT INTO users (email, full_name, role, is_bot, bot_type, bot_owner_id, api_key, password_hash, date_joined,
         timezone, service_base_url, service_interface, service_token)
       VALUES (@email, @full_name, @role, @is_bot, @bot_type, @bot_owner_id, @api_key, @password_hash, @date_joined,
         @timezone, @service_base_url, @service_interface, @service_token)`,
    )
    .run({
      email: u.email.trim(),
      full_name: u.full_name,
      role: u.role ?? 400,
      is_bot: u.is_bot ? 1 : 0,
      bot_type: u.bot_type ?? null,
      bot_owner_id: u.bot_owner_id ?? null,
      api_key: newApiKey(),
      password_hash: u.password ? hashPassword(u.password) : null,
      date_joined: u.date_joined ?? now,
      timezone: u.timezone ?? '',
      service_base_url: u.service_base_url ?? null,
      service_interface: u.service_interface ?? null,
      service_token: u.service_token ?? null,
    });
  return userById(db, Number(info.lastInsertRowid))!;
}

/** Whether `viewer` may see the real (delivery) e-mail addresses of humans under a visibility policy. */
function policyLetsSee(policy: number, viewer: UserRow | null): boolean {
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

const gravatarUrl = (email: string, version: number): string =>
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
  const rows = db
    .prepare('SELECT user_id, field_id, value, rendered_value FROM profile_values ORDER BY user_id, field_id')
    .all() as { user_id: number; field_id: number; value: string; rendered_value: string | null }[];
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
export function userView(db: Db, viewer: UserRow | null, opts: UserViewOptions, realmUrl: string): (target: UserViewRow) => User {
  const policy = getSetting(db, 'email_address_visibility');
  const viewerSeesAll = policyLetsSee(policy, viewer);
  const host = realmHost(realmUrl);
  const profiles = opts.includeCustomProfileFields ? profileData(db) : null;
  return (target) => {
    const seesReal = target.is_bot === 1 || viewer?.id === target.id || viewerSeesAll;
    const user: User = {
      user_id: target.id,
      delivery_email: seesReal ? target.email : null,
      email: target.is_bot || policy === 1 ? target.email : `user${target.id}@${host}`,
      full_name: target.full_name,
      date_joined: isoTime(target.date_joined),
      is_active: target.is_active === 1,
      is_owner: target.role === 100,
      is_admin: target.role <= 200,
      is_guest: target.role === 600,
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
export function apiEmail(db: Db, target: UserViewRow, realmUrl: string): string {
  if (target.is_bot || getSetting(db, 'email_address_visibility') === 1) return target.email;
  return `user${target.id}@${realmHost(realmUrl)}`;
}
