/**
 * Callers' rows by e-mail, kept while the store is unchanged (store/stamp.ts): every request over HTTP
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
import { storeStamp } from './store/stamp.js';

/** Entries kept at most: the cache is emptied when full, so its memory does not grow with the organization. */
const MAX_CALLERS = 1000;
const NO_KEY = 'x'.repeat(32);

interface Cached {
  stamp: string;
  rows: Map<string, UserRow>;
}

const caches = new WeakMap<Db, Cached>();

/**
 * The row of the user with this address as the store holds it now (a copy the caller may change), or
 * undefined; from the cache only when `key` is the key it holds. The caller still checks the key.
 */
export function callerByEmail(db: Db, email: string, key: string): UserRow | undefined {
  const stamp = storeStamp(db);
  let cached = caches.get(db);
  if (!cached || cached.stamp !== stamp) {
    cached = { stamp, rows: new Map() };
    caches.set(db, cached);
  }
  const hit = cached.rows.get(email);
  // Compared even without a cached row, so that a miss takes as long as a wrong key.
  if (secretsEqual(hit?.api_key ?? NO_KEY, key) && hit) return { ...hit };
  const row = userByEmail(db, email);
  if (!row) return undefined;
  // Kept only when the key matched: an unknown address, or a known one with a wrong key, leaves nothing behind.
  if (secretsEqual(row.api_key, key)) {
    if (cached.rows.size >= MAX_CALLERS) cached.rows.clear();
    cached.rows.set(email, row);
  }
  return { ...row };
}
