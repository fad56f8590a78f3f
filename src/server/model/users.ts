/** Users in the store, and their wire form as a given viewer may see it. */
import { createHash } from 'node:crypto';
import { badRequest, insufficientPermission, mustBe } from '../../api/errors.js';
import type { ReactionType } from '../../api/operations/messages.js';
import type { UserStatus } from '../../api/operations/status.js';
import type { BotType, Role, User } from '../../api/types.js';
import type { EventSink } from '../context.js';
import { getSetting, realmHost } from '../realm.js';
import { newApiKey } from '../secrets.js';
import { inSystemGroup } from './system-groups.js';
import type { Db } from '../store/db.js';
import { statement } from '../store/statements.js';

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
  /** Per-user permissions a server's operator grants (see server/permissions.ts); 0 or 1. */
  can_create_users: number;
  can_change_user_emails: number;
}

export const isAdmin = (u: Pick<UserRow, 'role'>): boolean => u.role <= 200;
export const isOwner = (u: Pick<UserRow, 'role'>): boolean => u.role === 100;
export const isModeratorOrAbove = (u: Pick<UserRow, 'role'>): boolean => u.role <= 300;
export const isGuest = (u: Pick<UserRow, 'role'>): boolean => u.role === 600;

export const userById = (db: Db, id: number): UserRow | undefined =>
  statement(db, 'SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;

export const userByEmail = (db: Db, email: string): UserRow | undefined =>
  statement(db, 'SELECT * FROM users WHERE email = ? COLLATE NOCASE').get(email.trim()) as UserRow | undefined;

/** What a list of users is checked and addressed by (typing notifications): the columns, not whole rows. */
export type UserBrief = Pick<UserRow, 'id' | 'email' | 'is_bot' | 'is_active' | 'receives_typing_notifications'>;

/** The users of `ids` that exist, each looked up by key. */
export const usersByIds = (db: Db, ids: readonly number[]): UserBrief[] =>
  statement(db, 'SELECT u.id, u.email, u.is_bot, u.is_active, u.receives_typing_notifications FROM json_each(?) j JOIN users u ON u.id = j.value').all(
    JSON.stringify(ids),
  ) as UserBrief[];

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
      password_hash: u.password_hash ?? null,
      date_joined: u.date_joined ?? now,
      timezone: u.timezone ?? '',
      service_base_url: u.service_base_url ?? null,
      service_interface: u.service_interface ?? null,
      service_token: u.service_token ?? null,
    });
  return userById(db, Number(info.lastInsertRowid))!;
}

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
export function userView(db: Db, viewer: Viewer | null, opts: UserViewOptions, realmUrl: string): (target: UserViewRow) => User {
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
export const apiEmail = (db: Db, target: UserViewRow, realmUrl: string): string => apiEmailer(db, realmUrl)(target);

/** `apiEmail` for many users, the setting read once. */
export function apiEmailer(db: Db, realmUrl: string): (target: Pick<UserRow, 'id' | 'email' | 'is_bot'>) => string {
  const everyoneSees = getSetting(db, 'email_address_visibility') === 1;
  const host = realmHost(realmUrl);
  return (target) => (target.is_bot || everyoneSees ? target.email : `user${target.id}@${host}`);
}

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
  if (!target) throw badRequest('No such user');
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
  if (user.role !== 100 || user.is_bot) return false;
  const others = db.prepare('SELECT count(*) FROM users WHERE role = 100 AND is_bot = 0 AND is_active = 1 AND id != ?').pluck().get(user.id) as number;
  return others === 0;
}

/** Active human administrators, owners included. */
export const adminIds = (db: Db): number[] =>
  db.prepare('SELECT id FROM users WHERE role <= 200 AND is_bot = 0 AND is_active = 1').pluck().all() as number[];

/** Who administers a bot, and so gets its `realm_bot` events: its owner and the human administrators. */
export function botAdminIds(db: Db, bot: Pick<UserRow, 'bot_owner_id'>): number[] {
  const ids = new Set(adminIds(db));
  if (bot.bot_owner_id !== null) ids.add(bot.bot_owner_id);
  return [...ids];
}

/** Who sees users, as far as what they may see of them goes. */
export type Viewer = Pick<UserRow, 'id' | 'role'>;

/** The active users as viewers: two columns, not whole rows, for events that go to everyone. */
export const activeViewers = (db: Db): Viewer[] => statement(db, 'SELECT id, role FROM users WHERE is_active = 1').all() as Viewer[];

export const activeUsers = (db: Db): UserRow[] => db.prepare('SELECT * FROM users WHERE is_active = 1').all() as UserRow[];

/**
 * Sends an event carrying a user object (`realm_user` add ...) to every active user, each seeing the real
 * e-mail address only where the organization's visibility policy lets them.
 */
export function emitWithPerson(
  db: Db,
  sink: EventSink,
  realmUrl: string,
  target: UserRow,
  event: (person: User) => Record<string, unknown> & { type: string },
): void {
  const policy = getSetting(db, 'email_address_visibility');
  const groups = new Map<boolean, Viewer[]>();
  for (const viewer of activeViewers(db)) {
    const sees = target.is_bot === 1 || viewer.id === target.id || policyLetsSee(policy, viewer);
    // Appended in place: copying the list per viewer made one new account cost the square of the users.
    const group = groups.get(sees);
    if (group) group.push(viewer);
    else groups.set(sees, [viewer]);
  }
  for (const viewers of groups.values()) {
    const person = userView(db, viewers[0]!, { clientGravatar: false, includeCustomProfileFields: !target.is_bot }, realmUrl)(target);
    sink.emit(event(person), viewers.map((v) => v.id));
  }
}

/** Sends a `realm_user` update about one user to every active user (everyone may see every user here). */
export function notifyPersonUpdate(db: Db, sink: EventSink, person: { user_id: number } & Record<string, unknown>): void {
  sink.emit({ type: 'realm_user', op: 'update', person }, activeUserIds(db));
}

/** Whether the realm's bot permissions let `caller` create a bot of this type (administrators always). */
export function canCreateBot(db: Db, caller: UserRow, botType: number): boolean {
  if (isAdmin(caller) || inSystemGroup(caller, getSetting(db, 'can_create_bots_group'))) return true;
  // Incoming-webhook bots can only post, so a realm may let more people create them.
  return botType === 2 && inSystemGroup(caller, getSetting(db, 'can_create_write_only_bots_group'));
}

/** A server's check_bot_creation_policy. */
export function checkBotCreationPolicy(db: Db, caller: UserRow, botType: number): void {
  if (!canCreateBot(db, caller, botType)) throw mustBe('administrator');
}

/** Two active accounts with one name would be confusing; bots are refused one (a server's check_bot_name_available). */
export function checkBotNameAvailable(db: Db, fullName: string, isActivation: boolean): void {
  const taken = db.prepare('SELECT 1 FROM users WHERE full_name = ? AND is_active = 1').get(fullName.trim());
  if (!taken) return;
  if (isActivation) {
    throw badRequest(
      `There is already an active bot named "${fullName}" in this organization. To reactivate this bot, you must rename or deactivate the other one first.`,
    );
  }
  throw badRequest('Name is already in use!');
}

/**
 * A user's status as GET /users/{id}/status and register's `user_status` show it: only what is set (a user
 * with none gets `{}`), with the legacy `away` for a user who shares no presence.
 */
export function statusOf(
  user: Pick<UserRow, 'presence_enabled' | 'status_text' | 'status_emoji_name' | 'status_emoji_code' | 'status_reaction_type'>,
): UserStatus {
  const status: UserStatus = {};
  if (!user.presence_enabled) status.away = true;
  if (user.status_text) status.status_text = user.status_text;
  if (user.status_emoji_name) {
    status.emoji_name = user.status_emoji_name;
    status.emoji_code = user.status_emoji_code;
    status.reaction_type = user.status_reaction_type as ReactionType;
  }
  return status;
}
