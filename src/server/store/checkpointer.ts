/**
 * WAL checkpoints for `chatctl serve`, on a thread of their own. SQLite copies the write-ahead log back
 * into the database every 1,000 pages, inside whichever commit crosses that mark, and syncs the file to
 * disk there: on the event loop, a stall of every request for as long as the disk takes (the worst
 * latencies of `bench:serve` while messages are sent). Here the serving connection stops checkpointing and
 * this worker's own connection does it, PASSIVE every second: it never waits for, nor blocks, a reader or
 * a writer. Other processes on the same data dir keep SQLite's automatic checkpoints.
 *
 * A passive checkpoint never lets the log start over while writes keep coming (the writer restarts the log
 * only once everything in it was copied back), so under steady writes the file grew without end: 958 MB
 * after 3,000 typing requests. Past WAL_LIMIT_BYTES the worker runs a TRUNCATE checkpoint, which takes the
 * write lock (serve's writers wait for it on the event loop's timers, store/busy-retry.ts), copies the rest
 * and empties the file; a quiet server's log is emptied the same way once a passive round copied all of it.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BUSY_TIMEOUT_MS } from './busy.js';
import type { Db } from './db.js';
import { WAL_LIMIT_BYTES } from './wal-limit.js';

const PASSIVE_EVERY_MS = 1000;
/** How often the log's size is looked at: at most this much writing goes past the limit. */
const SIZE_EVERY_MS = 20;

/** The worker's code: a connection of its own that checkpoints what it can, and empties the log when it is too long or all copied. */
const WORKER = `
const { workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
const walSize = () => {
  try {
    return statSync(workerData.file + '-wal').size;
  } catch {
    return 0;
  }
};
let sincePassive = 0;
setInterval(() => {
  try {
    const size = walSize();
    if (size > workerData.limitBytes) {
      db.pragma('wal_checkpoint(TRUNCATE)');
      return;
    }
    sincePassive += workerData.sizeEveryMs;
    if (sincePassive < workerData.passiveEveryMs) return;
    sincePassive = 0;
    const [round] = db.pragma('wal_checkpoint(PASSIVE)');
    if (size > 0 && round.busy === 0 && round.log === round.checkpointed) db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // Busy or locked: the next round tries again.
  }
}, workerData.sizeEveryMs);
`;

/** Starts checkpointing `db`'s file off the event loop; the returned function stops it. */
export function checkpointOffLoop(db: Db): () => Promise<void> {
  db.pragma('wal_autocheckpoint = 0');
  // The same driver as this process's, by path: the worker's code has no module of its own to resolve from.
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      file: db.name,
      driver,
      passiveEveryMs: PASSIVE_EVERY_MS,
      sizeEveryMs: SIZE_EVERY_MS,
      limitBytes: WAL_LIMIT_BYTES,
      busyTimeoutMs: BUSY_TIMEOUT_MS,
    },
  });
  worker.unref();
  return async () => {
    await worker.terminate();
  };
}
