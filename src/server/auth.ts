/**
 * HTTP Basic authentication and the access gate, with a real Zulip server's messages and order: every
 * failure of the key check is 401 UNAUTHORIZED with the Basic challenge; role gates are 400.
 */
import { badRequest, mustBe, unauthorized } from '../api/errors.js';
import type { Access } from '../api/operation.js';
import { isAdmin, isGuest, isOwner, userByEmail, type UserRow } from './model/users.js';
import { secretsEqual } from './secrets.js';
import type { Db } from './store/db.js';

const API_KEY = /^[A-Za-z0-9]{32}$/;

export function authenticate(db: Db, authorization: string | undefined): UserRow {
  if (!authorization) throw unauthorized('Not logged in: API authentication or user session required');
  const space = authorization.indexOf(' ');
  const scheme = space < 0 ? authorization : authorization.slice(0, space);
  if (scheme.toLowerCase() !== 'basic') throw badRequest('This endpoint requires HTTP basic authentication.');
  let email: string;
  let key: string;
  try {
    const decoded = Buffer.from(authorization.slice(space + 1).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new Error('no colon');
    email = decoded.slice(0, colon).trim();
    key = decoded.slice(colon + 1);
  } catch {
    throw unauthorized('Invalid authorization header for basic auth');
  }
  return authenticateKey(db, email, key);
}

/** The active account `email` whose API key is `key`, with the same refusals as a request's credentials. */
export function authenticateKey(db: Db, email: string, key: string): UserRow {
  if (!API_KEY.test(key)) throw unauthorized('Malformed API key');
  // Read at every request: a row kept between requests cost two statements for the store's stamp, more than the
  // row itself now that rows are made from arrays (store/row-objects.ts), and every write emptied it anyway.
  const user = userByEmail(db, email);
  // Compare even when there is no such user, so timing does not reveal which addresses exist.
  // The system bots live in the server's internal realm (zerver/models/realms.py): no organization's
  // credentials are theirs, whoever learned the key of their row.
  if (!secretsEqual(user?.api_key ?? 'x'.repeat(32), key) || !user || user.is_system_bot) throw unauthorized('Invalid API key');
  if (!user.is_active) throw unauthorized('Account is deactivated');
  if (user.is_bot && user.bot_type === 2) throw unauthorized('This API is not available to incoming webhook bots.');
  return user;
}

/** The gate declared in the catalogue; handlers add the finer, per-target rules. */
export function checkAccess(user: UserRow, access: Access, botsAllowed: boolean): void {
  if (!botsAllowed && user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
  switch (access) {
    case 'member':
      if (isGuest(user)) throw badRequest('Not allowed for guest users');
      return;
    case 'admin':
      if (!isAdmin(user)) throw mustBe('administrator');
      return;
    case 'owner':
      if (!isOwner(user)) throw mustBe('owner');
      return;
    default:
      return;
  }
}
