/** Users named in a request by ID or e-mail address, as a Zulip server resolves them. */
import { badRequest } from '../../api/errors.js';
import type { HandlerContext } from '../context.js';
import { userByEmail, userById, type UserRow } from '../model/users.js';

/**
 * Principals as a Zulip server resolves them (bulk_access_users_by_*): any unknown one → `No such user`,
 * then each must be active. Bots are users here, whoever owns them.
 */
export function resolvePrincipals(ctx: HandlerContext, principals: readonly (number | string)[]): UserRow[] {
  const users = principals.map((p) => (typeof p === 'number' ? userById(ctx.db, p) : userByEmail(ctx.db, p)));
  if (users.some((u) => !u)) throw badRequest('No such user');
  const unique = [...new Map((users as UserRow[]).map((u) => [u.id, u])).values()];
  for (const u of unique) if (!u.is_active) throw badRequest('User is deactivated');
  return unique.sort((a, b) => a.id - b.id);
}
