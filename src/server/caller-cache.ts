/**
 * Callers' rows by e-mail, kept while the store is unchanged (store/stamp.ts): every request over HTTP
 * authenticates, and reading the whole row of its caller took longer than the rest of a `GET /users/me`.
 * A real Zulip server caches the same lookup (user profiles by API key, in memcached). Any write to the
 * store, by this process or another, empties it, so a deactivated account or a new API key counts from the
 * next request on, as before. The key itself is still compared with each request, in constant time: the
 * cache holds rows by address, never by key.
 */
import { userByEmail, type UserRow } from './model/users.js';
import type { Db } from './store/db.js';
import { storeStamp } from './store/stamp.js';

/** Entries kept at most: the cache is emptied when full, so its memory does not grow with the organization. */
const MAX_CALLERS = 1000;

interface Cached {
  stamp: string;
  rows: Map<string, UserRow>;
}

const caches = new WeakMap<Db, Cached>();

/** The row of the user with this address as the store holds it now (a copy the caller may change), or undefined. */
export function callerByEmail(db: Db, email: string): UserRow | undefined {
  const stamp = storeStamp(db);
  let cached = caches.get(db);
  if (!cached || cached.stamp !== stamp) {
    cached = { stamp, rows: new Map() };
    caches.set(db, cached);
  }
  let row = cached.rows.get(email);
  if (!row) {
    // Unknown addresses are not kept: anyone could fill the cache with them.
    row = userByEmail(db, email);
    if (!row) return undefined;
    if (cached.rows.size >= MAX_CALLERS) cached.rows.clear();
    cached.rows.set(email, row);
  }
  return { ...row };
}
