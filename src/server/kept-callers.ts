/**
 * Callers kept across requests, by the Authorization header they were accepted with: reading the caller's row
 * (a wide one, made into an object) was the costliest statement most requests run, and of all the work before
 * a handler the one that moved `bench:serve-everyday` most (kept: GET /messages ×1.95 → ×1.87 of the floor,
 * GET /users/me ×1.71 → ×1.64, side by side in one run). A kept caller holds while nothing of their account
 * changed (migration 19 logs any column of their row: a new key, a deactivation, a setting) nor the
 * organization's settings (its feature level is read with the row), as the change log read at each request
 * says (store/changes.ts).
 *
 * Only callers accepted are kept, and by the whole header: a wrong key never finds an entry, so it goes the
 * whole way through the constant-time check as before, and how fast an answer comes tells nobody without the
 * credentials whether they were used (as the answer cache, answer-cache.ts). The rows are shared between
 * requests: whoever gets one only reads it.
 */
import { ApiError } from '../api/errors.js';
import type { Credentials } from './auth.js';
import type { UserRow } from './model/users.js';
import { BoundedMap } from './store/bounded-map.js';
import { changeLog, dependency, type Dependency } from './store/changes.js';
import type { Db } from './store/db.js';

/** Callers kept per connection at most: the oldest makes room. About 1.5 KB each. */
export const KEPT_CALLERS = 4096;

/** Credentials accepted: their caller. */
type Accepted = Credentials & { caller: UserRow };

interface KeptCaller extends Accepted {
  /** The change the row and level are known to be as of. */
  at: number;
  made: readonly Dependency[];
}

const kept = new WeakMap<Db, BoundedMap<string, KeptCaller>>();

/**
 * The credentials `authorization` comes to: kept, when they were accepted before and nothing they depend on
 * changed since, else as `read` finds them (and kept when accepted). Inside a transaction nothing is kept or
 * taken: the change log may be read only outside one or in a read's (store/changes.ts), and credentials are
 * read before the handler's.
 */
export function keptCredentials(db: Db, authorization: string | undefined, read: () => Credentials): Credentials {
  if (authorization === undefined || db.inTransaction) return read();
  // Read before the row, so that the row is at least as new as the change it is kept as of.
  const log = changeLog(db);
  const seen = log.sync();
  let callers = kept.get(db);
  const found = callers?.get(authorization);
  if (found) {
    const at = log.confirmed(found.at, found.made);
    if (at !== undefined) {
      found.at = at;
      return found;
    }
    callers?.delete(authorization);
  }
  const given = read();
  if (isUser(given)) {
    if (!callers) {
      callers = new BoundedMap({ entries: KEPT_CALLERS, size: KEPT_CALLERS }, () => 1);
      kept.set(db, callers);
    }
    callers.set(authorization, { caller: given.caller, level: given.level, at: seen, made: [dependency('account', given.caller.id), REALM] });
  }
  return given;
}

const REALM = dependency('realm', 0);

const isUser = (given: Credentials): given is Accepted => !(given.caller instanceof ApiError);
