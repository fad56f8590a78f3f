/**
 * Callers' rows by e-mail, kept while the store is unchanged (store/stamped-cache.ts): every request over HTTP
 * authenticates, and reading the whole row of its caller took longer than the rest of a `GET /users/me`.
 * A real Zulip server caches the same lookup (user profiles by API key, in memcached). Any write to the
 * store, by this process or another, empties it, so a deactivated account or a new API key counts from the
 * next request on, as before. A row is kept, and answered from the cache, only for the key it holds (compared
 * in constant time): a wrong key reads the store as an unknown address does, so how fast an answer comes tells
 * nothing about which addresses exist or were used lately to whoever lacks their key.
 */
import { userByEmail, type UserRow } from './model/users.js';
import { secretsEqual } from './secrets.js';
import type { Db } from './store/db.js';
import { StampedCache } from './store/stamped-cache.js';

/** Entries kept at most, so that the memory does not grow with the organization. */
const MAX_CALLERS = 1000;
const NO_KEY = 'x'.repeat(32);

const caches = new WeakMap<Db, StampedCache<UserRow>>();

/**
 * The row of the user with this address as the store holds it now (a copy the caller may change), or
 * undefined; from the cache only when `key` is the key it holds. The caller still checks the key.
 */
export function callerByEmail(db: Db, email: string, key: string): UserRow | undefined {
  let cache = caches.get(db);
  if (!cache) {
    cache = new StampedCache<UserRow>(db, { entries: MAX_CALLERS });
    caches.set(db, cache);
  }
  // Read whether or not the address is held, so that a miss takes as long as a wrong key.
  const stamp = cache.stamp();
  const hit = cache.peek(email);
  if (secretsEqual(hit?.api_key ?? NO_KEY, key) && hit) return { ...hit };
  const row = userByEmail(db, email);
  if (!row) return undefined;
  // Kept only when the key matched: an unknown address, or a known one with a wrong key, leaves nothing behind.
  if (stamp !== undefined && secretsEqual(row.api_key, key)) cache.set(email, stamp, row);
  return { ...row };
}
