/** Users in the store: their rows, lookups, creation, and who may act on whom. */
import { badRequest, insufficientPermission } from '../../api/errors.js';
import { atLeast, isAdminRole, isGuest as isGuestRole, isOwner as isOwnerRole, ROLE } from '../../api/roles.js';
import type { Role } from '../../api/roles.js';
import type { BotType } from '../../api/types.js';
import { newApiKey } from '../secrets.js';
import type { Db } from '../store/db.js';
import { nameKey } from '../store/name-key.js';
import { objectFrom } from '../store/row-objects.js';
import type { RealmKey } from './realm.js';

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
  /** Set for accounts made through the API: date_joined becomes the time of the first login. */
  date_joined_at_first_login: number;
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
  /** Per-user permissions a server's operator grants (see model/user-permissions.ts); 0 or 1. */
  can_create_users: number;
  can_change_user_emails: number;
  /** 1 for the server's system bots (model/system-bots.ts), which belong to no organization. */
  is_system_bot: number;
}

export const isAdmin = (u: Pick<UserRow, 'role'>): boolean => isAdminRole(u.role);
export const isOwner = (u: Pick<UserRow, 'role'>): boolean => isOwnerRole(u.role);
export const isModeratorOrAbove = (u: Pick<UserRow, 'role'>): boolean => atLeast(u.role, 'moderator');
export const isGuest = (u: Pick<UserRow, 'role'>): boolean => isGuestRole(u.role);

export const userById = (db: Db, id: number): UserRow | undefined => db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;

export const userByEmail = (db: Db, email: string): UserRow | undefined =>
  db.prepare('SELECT * FROM users WHERE email = ? COLLATE NOCASE').get(email.trim()) as UserRow | undefined;

/**
 * The user with this address (undefined: none), and the stored JSON of the organization setting `key`
 * (undefined: never set), in one statement: every request reads its organization's feature level and its
 * caller first, and a statement each cost more than what either reads.
 */
export function userByEmailWithSetting(db: Db, email: string, key: RealmKey): { user: UserRow | undefined; stored: string | undefined } {
  const statement = db.prepare('SELECT (SELECT value FROM realm_settings WHERE key = ?), u.* FROM (SELECT 1) LEFT JOIN users u ON u.email = ? COLLATE NOCASE');
  const values = statement.raw().get(key, email.trim()) as unknown[];
  const stored = values[0] === null ? undefined : String(values[0]);
  // No such user: every column of theirs is null, the ID too.
  return { user: values[1] === null ? undefined : (objectFrom(statement, values, 1) as unknown as UserRow), stored };
}

/** What a list of users is checked and addressed by (typing notifications): the columns, not whole rows. */
export type UserBrief = Pick<UserRow, 'id' | 'email' | 'is_bot' | 'is_active' | 'receives_typing_notifications'>;

/** The users of `ids` that exist, each looked up by key. */
export const usersByIds = (db: Db, ids: readonly number[]): UserBrief[] =>
  db
    .prepare('SELECT u.id, u.email, u.is_bot, u.is_active, u.receives_typing_notifications FROM json_each(?) j JOIN users u ON u.id = j.value')
    .all(JSON.stringify(ids)) as UserBrief[];

/** Whether `caller` may administer `target`, as a server's can_admin_user: administrators, and a bot's owner. */
export const canAdminUser = (caller: UserRow, target: UserRow): boolean => target.bot_owner_id === caller.id || isAdmin(caller);

export interface AccessOptions {
  allowDeactivated?: boolean;
  allowBots?: boolean;
  /** Administrative access: the caller must be able to administer the target. */
  forAdmin: boolean;
}

/** The target of an operation on a user, with a server's checks and messages in its order (access_user_by_id). */
export function accessUser(caller: UserRow, target: UserRow | undefined, o: AccessOptions): UserRow {
  // A system bot belongs to the server's internal realm: in the organization it is no user at all.
  if (!target || target.is_system_bot) throw badRequest('No such user');
  if (target.is_bot && !o.allowBots) throw badRequest('No such user');
  if (!target.is_active && !o.allowDeactivated) throw badRequest('User is deactivated');
  if (o.forAdmin && !canAdminUser(caller, target)) throw insufficientPermission();
  return target;
}

/** The user an `{email}` path names: the real address, or the `user{id}@host` placeholder newer servers accept too. */
export function userByPathEmail(db: Db, email: string): UserRow | undefined {
  const placeholder = /^user(\d+)@/i.exec(email);
  return userByEmail(db, email) ?? (placeholder ? userById(db, Number(placeholder[1])) : undefined);
}

/** Whether `user` is the only active human owner: the owner role must stay with someone. */
export function isLastOwner(db: Db, user: Pick<UserRow, 'id' | 'role' | 'is_bot'>): boolean {
  if (!isOwner(user) || user.is_bot) return false;
  const others = db
    .prepare('SELECT count(*) FROM users WHERE role = ? AND is_bot = 0 AND is_active = 1 AND id != ?')
    .pluck()
    .get(ROLE.owner, user.id) as number;
  return others === 0;
}

/** Active human administrators, owners included. */
export const adminIds = (db: Db): number[] =>
  db.prepare('SELECT id FROM users WHERE role <= ? AND is_bot = 0 AND is_active = 1').pluck().all(ROLE.admin) as number[];

/** Who administers a bot, and so gets its `realm_bot` events: its owner and the human administrators. */
export function botAdminIds(db: Db, bot: Pick<UserRow, 'bot_owner_id'>): number[] {
  const ids = new Set(adminIds(db));
  if (bot.bot_owner_id !== null) ids.add(bot.bot_owner_id);
  return [...ids];
}

/** Who sees users, as far as what they may see of them goes. */
export type Viewer = Pick<UserRow, 'id' | 'role'>;

/** Whether an account other than `exceptId` has this address (compared without case, as sign-in does). */
export function emailTaken(db: Db, email: string, exceptId?: number): boolean {
  const holder = userByEmail(db, email);
  return holder !== undefined && holder.id !== exceptId;
}

export interface NewUser {
  email: string;
  full_name: string;
  role?: Role;
  /** From `hashPassword`, computed before the write transaction opens (it takes ~50 ms off the event loop). */
  password_hash?: string | null;
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
    .prepare(`INSERT INTO users (email, full_name, name_key, role, is_bot, bot_type, bot_owner_id, api_key, password_hash, date_joined,
         timezone, service_base_url, service_interface, service_token)
       VALUES (@email, @full_name, @name_key, @role, @is_bot, @bot_type, @bot_owner_id, @api_key, @password_hash, @date_joined,
         @timezone, @service_base_url, @service_interface, @service_token)`)
    .run({
      email: u.email.trim(),
      full_name: u.full_name,
      name_key: nameKey(u.full_name),
      role: u.role ?? ROLE.member,
      is_bot: u.is_bot ? 1 : 0,
      bot_type: u.bot_type ?? null,
      bot_owner_id: u.bot_owner_id ?? null,
      api_key: newApiKey(),
      password_hash: u.password_hash ?? null,
      date_joined: u.date_joined ?? now,
      timezone: u.timezone ?? '',
      service_base_url: u.service_base_url ?? null,
      service_interface: u.service_interface ?? null,
      service_token: u.service_token ?? null,
    });
  return userById(db, Number(info.lastInsertRowid))!;
}

/** An account made through the API joins, as far as date_joined tells, at its first login (2.1). */
export function recordLogin(db: Db, userId: number, now: number): void {
  db.prepare('UPDATE users SET date_joined = ?, date_joined_at_first_login = 0 WHERE id = ? AND date_joined_at_first_login = 1').run(now, userId);
}

/** The newest message a user has a copy of, or -1 (GET /users/me's max_message_id). */
export const newestMessageIdOf = (db: Db, userId: number): number =>
  (db.prepare('SELECT coalesce(max(message_id), -1) AS id FROM user_messages WHERE user_id = ?').get(userId) as { id: number }).id;
