/**
 * The server's system bots: Zulip's cross-realm bots (zproject/default_settings.py NOTIFICATION_BOT,
 * WELCOME_BOT, EMAIL_GATEWAY_BOT), added by migration 14. They live in the server's internal realm, so an
 * organization's lists (GET /users, realm_users, realm_bots, system groups, name checks) leave them out and
 * `POST /register` lists them in `cross_realm_bots`; clients meet them as senders of notices.
 */
import type { User } from '../../api/types.js';
import type { Db } from '../store/db.js';
import type { UserRow } from './users.js';

export const NOTIFICATION_BOT = 'notification-bot@zulip.com';
export const WELCOME_BOT = 'welcome-bot@zulip.com';
export const EMAIL_GATEWAY_BOT = 'emailgateway@zulip.com';

/** The realm name messages from them carry as `sender_realm_str` (zerver/lib/server_initialization.py). */
export const SYSTEM_BOT_REALM = 'zulipinternal';

/** zerver/lib/avatar.py SYSTEM_BOTS_AVATAR_FILES: static images, never Gravatar. */
const AVATAR_FILES: Record<string, string> = {
  [NOTIFICATION_BOT]: 'notification-bot',
  [WELCOME_BOT]: 'welcome-bot',
  [EMAIL_GATEWAY_BOT]: 'emailgateway',
};

export const systemBotAvatarUrl = (email: string, realmUrl: string): string =>
  `${realmUrl.replace(/\/+$/, '')}/static/images/static_avatars/${AVATAR_FILES[email.toLowerCase()] ?? 'notification-bot'}.png`;

/** A system bot by address; undefined when a data dir had that address taken before migration 14. */
export const systemBot = (db: Db, email: string): UserRow | undefined =>
  db.prepare('SELECT * FROM users WHERE email = ? AND is_system_bot = 1').get(email) as UserRow | undefined;

/**
 * `cross_realm_bots` of POST /register (zerver/lib/users.py get_cross_realm_dicts): every system bot as
 * `view` shows a user, with no owner, as clients are not to learn that they own themselves.
 */
export function crossRealmBots(db: Db, view: (row: UserRow) => User): User[] {
  const rows = db.prepare('SELECT * FROM users WHERE is_system_bot = 1 ORDER BY id').all() as UserRow[];
  return rows.map((row) => ({ ...view(row), bot_owner_id: null }));
}
