/**
 * Waiting for another process's write lock without holding the event loop. SQLite's busy timeout waits by
 * sleeping in the calling thread: in `serve`, the only thread, so one process holding the lock for 12 s made
 * every request wait, reads included. `serve`'s connection gives up at once instead (busy timeout 0) and a
 * request that found the lock taken tries again after a pause on the event loop's timers, meanwhile the
 * other requests run; reads in WAL mode never need the lock, so they go through. After BUSY_TIMEOUT_MS the
 * request fails as before (503 with Retry-After).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BUSY_TIMEOUT_MS, isBusy } from './busy.js';
import type { Db } from './db.js';

/** Pauses between tries: short at first (a commit takes a millisecond or two), never long enough to be felt. */
const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 50;

/** Whether a busy failure on `db` came at once (serve's connection) rather than after SQLite's own wait. */
const failsAtOnce = (db: Db): boolean => db.pragma('busy_timeout', { simple: true }) === 0;

/** Makes `db` fail at once on a held lock, for retryWhileBusy; the returned function restores SQLite's own wait. */
export function neverWaitInline(db: Db): () => void {
  db.pragma('busy_timeout = 0');
  return () => db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
}

export interface RetryOptions {
  /** The clock the deadline is kept by (ms). */
  nowMs: () => number;
  /** False once the attempt has committed work of its own: running it again would do that twice. */
  mayRepeat?: () => boolean;
  signal?: AbortSignal;
}

/**
 * Runs `attempt` until it ends in anything but a busy store. On a connection that waits itself (the CLI's),
 * its busy failure already took BUSY_TIMEOUT_MS, so it is final.
 */
export function retryWhileBusy<T>(db: Db, attempt: () => T | Promise<T>, o: RetryOptions): Promise<T> {
  return tries(db, attempt, o, o.nowMs(), 0);
}

/**
 * Runs a synchronous `attempt` now, and answers what it returns; on a busy store, a promise of what it returns
 * once tried again as retryWhileBusy tries (`serve` answers a read in the turn it came, as a rule).
 */
export function tryNowThenWhileBusy<T>(db: Db, attempt: () => T, o: RetryOptions): T | Promise<T> {
  const started = o.nowMs();
  try {
    return attempt();
  } catch (e) {
    if (!mayTryAgain(db, e, o, started)) throw e;
  }
  return tries(db, attempt, o, started, FIRST_PAUSE_MS);
}

/** Whether `failure` of an attempt begun at `started` is a busy store to try again after a pause. */
const mayTryAgain = (db: Db, failure: unknown, o: RetryOptions, started: number): boolean =>
  isBusy(failure) && failsAtOnce(db) && o.nowMs() - started < BUSY_TIMEOUT_MS && o.mayRepeat?.() !== false && o.signal?.aborted !== true;

/** Tries `attempt` until it ends in anything but a busy store: after `pause` (0: at once), then after pauses twice as long each. */
async function tries<T>(db: Db, attempt: () => T | Promise<T>, o: RetryOptions, started: number, pause: number): Promise<T> {
  for (let wait = pause; ; wait = Math.min(Math.max(wait * 2, FIRST_PAUSE_MS), LONGEST_PAUSE_MS)) {
    if (wait > 0) await sleep(wait);
    try {
      return await attempt();
    } catch (e) {
      if (!mayTryAgain(db, e, o, started)) throw e;
    }
  }
}
