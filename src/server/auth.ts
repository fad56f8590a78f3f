/**
 * HTTP Basic authentication and the access gate, with a real Zulip server's messages and order: every
 * failure of the key check is 401 UNAUTHORIZED with the Basic challenge; role gates are 400.
 */
import { ApiError, badRequest, mustBe, unauthorized } from '../api/errors.js';
import type { Access } from '../api/operation.js';
import { featureLevel, featureLevelFrom } from './feature-level.js';
import { isAdmin, isGuest, isOwner, userByEmailWithSetting, type UserRow } from './model/users.js';
import { secretsEqual } from './secrets.js';
import type { Db } from './store/db.js';

const API_KEY = /^[A-Za-z0-9]{32}$/;

/** What a request's credentials come to: its caller, or the error they are refused with; and the organization's feature level. */
export interface Credentials {
  caller: UserRow | ApiError;
  level: number;
}

/**
 * The caller a request's Authorization header names, and the organization's feature level, read with the
 * caller's row in one statement (the router needs both, and a statement each cost more than either row).
 * The level is read even for credentials refused unread, so that whoever routes by it can do so first.
 */
export function credentials(db: Db, authorization: string | undefined): Credentials {
  const given = parseBasic(authorization);
  if (given instanceof ApiError) return { caller: given, level: featureLevel(db) };
  if (!API_KEY.test(given.key)) return { caller: unauthorized('Malformed API key'), level: featureLevel(db) };
  // Read at every request: a row kept between requests cost two statements for the store's stamp, more than the
  // row itself now that rows are made from arrays (store/row-objects.ts), and every write emptied it anyway.
  const { user, stored } = userByEmailWithSetting(db, given.email, 'feature_level');
  return { caller: checkKey(user, given.key), level: featureLevelFrom(stored) };
}

/** The address and key of an HTTP Basic Authorization header, or what it is refused with. */
function parseBasic(authorization: string | undefined): { email: string; key: string } | ApiError {
  if (!authorization) return unauthorized('Not logged in: API authentication or user session required');
  const space = authorization.indexOf(' ');
  const scheme = space < 0 ? authorization : authorization.slice(0, space);
  if (scheme.toLowerCase() !== 'basic') return badRequest('This endpoint requires HTTP basic authentication.');
  const decoded = Buffer.from(authorization.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return unauthorized('Invalid authorization header for basic auth');
  return { email: decoded.slice(0, colon).trim(), key: decoded.slice(colon + 1) };
}

/** `user` if it is an active account whose API key is `key`, else the refusal, as a request's credentials are refused. */
function checkKey(user: UserRow | undefined, key: string): UserRow | ApiError {
  // Compare even when there is no such user, so timing does not reveal which addresses exist.
  // The system bots live in the server's internal realm (zerver/models/realms.py): no organization's
  // credentials are theirs, whoever learned the key of their row.
  if (!secretsEqual(user?.api_key ?? 'x'.repeat(32), key) || !user || user.is_system_bot) return unauthorized('Invalid API key');
  if (!user.is_active) return unauthorized('Account is deactivated');
  if (user.is_bot && user.bot_type === 2) return unauthorized('This API is not available to incoming webhook bots.');
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
