/** Failed password logins, kept for the fetch_api_key rate limit and no longer than its window. */
import { AUTHENTICATE_BY_USERNAME } from '../../api/rate-limits.js';
import type { Db } from '../store/db.js';

/** Failed password logins allowed per username in the window, as a Zulip server's `authenticate_by_username`. */
export const { calls: LOGIN_FAILURE_LIMIT, seconds: LOGIN_FAILURE_WINDOW_SECS } = AUTHENTICATE_BY_USERNAME;

/** Deletes up to `limit` failures older than the window, oldest first; returns how many. */
export function pruneLoginFailures(db: Db, now: number, limit: number): number {
  return db
    .prepare('DELETE FROM login_failures WHERE rowid IN (SELECT rowid FROM login_failures WHERE at <= ? ORDER BY at LIMIT ?)')
    .run(Math.floor(now) - LOGIN_FAILURE_WINDOW_SECS, limit).changes;
}
