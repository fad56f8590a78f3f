/**
 * Cleanup nobody's request should pay for: queues that expired or were dropped, login failures past their
 * window, and upload files no row names. Requests do a small bounded share as they go; `serve` runs the
 * rest every minute (as often as a Zulip server collects its idle queues), each batch its own short
 * transaction so no writer of another process waits long.
 */
import { wholeSeconds, type Clock } from './context.js';
import { expireQueues } from './model/event-queues.js';
import { pruneLoginFailures } from './model/login-failures.js';
import { sweepUploads } from './model/uploads.js';
import type { Db } from './store/db.js';

export const SWEEP_INTERVAL_MS = 60_000;
/** Rows per cleanup transaction. Queues come in smaller batches: each may hold up to MAX_PENDING_EVENTS references. */
const BATCH = 100;
const QUEUE_BATCH = 10;

export interface SweepCounts {
  queues: number;
  loginFailures: number;
  files: number;
}

/** One full sweep, in batches of bounded transactions; `shard` picks which 1/256 of the upload files to check. */
export function sweep(db: Db, dataDir: string, clock: Clock, shard: number): SweepCounts {
  const counts: SweepCounts = { queues: 0, loginFailures: 0, files: 0 };
  for (let n = QUEUE_BATCH; n === QUEUE_BATCH; ) {
    n = db.transaction(() => expireQueues(db, wholeSeconds(clock), QUEUE_BATCH)).immediate();
    counts.queues += n;
  }
  for (let n = BATCH; n === BATCH; ) {
    n = db.transaction(() => pruneLoginFailures(db, wholeSeconds(clock), BATCH)).immediate();
    counts.loginFailures += n;
  }
  counts.files = sweepUploads(db, dataDir, clock.nowMs(), shard);
  return counts;
}

/** Sweeps now and every minute until stopped; a failed sweep (a busy store) is logged and tried again later. */
export function startHousekeeping(db: Db, dataDir: string, clock: Clock, log: (line: string) => void): () => void {
  let shard = Math.floor(Math.random() * 256);
  const run = () => {
    try {
      sweep(db, dataDir, clock, shard++);
    } catch (e) {
      log(`cleanup failed, will try again: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  run();
  const timer = setInterval(run, SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
