/**
 * Waiting for another process's write lock. Kept free of the SQLite binding, so the CLI's error mapping
 * can recognise the failure without loading it.
 */

/**
 * How long a writer waits for another process's write transaction. Every transaction is short (requests
 * are bounded and long work is split), so running into this means something held the lock far too long.
 */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * True for SQLite's "the lock is held" failures (SQLITE_BUSY, SQLITE_LOCKED and their extended codes),
 * which better-sqlite3 throws once the busy timeout has run out: a temporary condition, never a bug to
 * show with a stack trace.
 */
export function isBusy(e: unknown): boolean {
  const code = e instanceof Error && e.name === 'SqliteError' ? (e as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code);
}

export const BUSY_MESSAGE = `the data dir is busy: another process held its write lock for over ${BUSY_TIMEOUT_MS / 1000} s; try again`;

/**
 * True for a store that cannot grow: SQLITE_FULL (the disk, or the database's page limit) and ENOSPC from a
 * file write. Temporary too: the request is refused, and the next one works once space is freed.
 */
export function isStorageFull(e: unknown): boolean {
  const code = e instanceof Error ? (e as Error & { code?: unknown }).code : undefined;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}
