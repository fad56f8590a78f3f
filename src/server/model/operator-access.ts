/**
 * What whoever holds the embedded organization's data dir may do without a password, as a server's
 * operator does with manage.py: the files already give them everything. `chatctl login --embedded`
 * signs in as an account from here, and `chatctl server reset-password` sets a password.
 */
import { ROLE } from '../../api/roles.js';
import { userByEmail, type UserRow } from './users.js';
import { UnknownUserError } from './user-permissions.js';
import { hashPassword } from '../secrets.js';
import type { Db } from '../store/db.js';

export class InactiveAccountError extends Error {
  constructor(readonly email: string) {
    super(`${email} is deactivated`);
    this.name = 'InactiveAccountError';
  }
}

export class BotAccountError extends Error {
  constructor(readonly email: string) {
    super(`${email} is a bot: bots have no password, they use their API key`);
    this.name = 'BotAccountError';
  }
}

/** The account `email`, or with none given the organization's first active owner (the one `init` made). */
export function accountToSignInAs(db: Db, email?: string): UserRow {
  if (email !== undefined) {
    const user = userByEmail(db, email);
    if (!user) throw new UnknownUserError(email.trim());
    if (!user.is_active) throw new InactiveAccountError(user.email);
    return user;
  }
  const owner = db.prepare('SELECT * FROM users WHERE role = ? AND is_active = 1 AND is_bot = 0 ORDER BY id LIMIT 1').get(ROLE.owner) as UserRow | undefined;
  // The organization always keeps an active owner (the last one cannot be demoted or deactivated).
  if (!owner) throw new UnknownUserError('(the owner)');
  return owner;
}

/** Sets the password of the account `email` (deactivated accounts too: reactivating them needs it). */
export async function resetPassword(db: Db, email: string, password: string): Promise<UserRow> {
  const hash = await hashPassword(password);
  return db
    .transaction(() => {
      const user = userByEmail(db, email);
      if (!user) throw new UnknownUserError(email.trim());
      if (user.is_bot) throw new BotAccountError(user.email);
      db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(hash, user.id);
      return user;
    })
    .immediate();
}
