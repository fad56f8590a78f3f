/**
 * Per-user permissions a Zulip server keeps out of the API: nobody holds them until the server's operator
 * grants them (`manage.py change_user_role EMAIL can_create_users`). The embedded organization's operator
 * is whoever holds its data dir: `chatctl server grant|revoke` is its change_user_role.
 */
import { userByEmail, type UserRow } from './users.js';
import type { OperatorPermission } from '../operator-permissions.js';
import type { Db } from '../store/db.js';

export const holds = (user: UserRow, permission: OperatorPermission): boolean => user[permission] === 1;

export class UnknownUserError extends Error {
  constructor(readonly email: string) {
    super(`no user with the e-mail address ${email}`);
    this.name = 'UnknownUserError';
  }
}

/** Grants or revokes `permission` for user `userId`. */
export function setPermission(db: Db, userId: number, permission: OperatorPermission, granted: boolean): void {
  // The column name comes from the closed list above, never from input.
  db.prepare(`UPDATE users SET ${permission} = ? WHERE id = ?`).run(granted ? 1 : 0, userId);
}

/**
 * Grants or revokes `permission` for the account with `email` (any account: bots and deactivated users
 * too, as change_user_role allows). Returns the account, and whether anything changed.
 */
export function changePermission(db: Db, email: string, permission: OperatorPermission, granted: boolean): { user: UserRow; changed: boolean } {
  return db
    .transaction(() => {
      const user = userByEmail(db, email);
      if (!user) throw new UnknownUserError(email.trim());
      const changed = holds(user, permission) !== granted;
      if (changed) setPermission(db, user.id, permission, granted);
      return { user, changed };
    })
    .immediate();
}
