/**
 * WAL checkpoints for `chatctl serve`, on a thread of their own. SQLite copies the write-ahead log back
 * into the database every 1,000 pages, inside whichever commit crosses that mark, and syncs the file to
 * disk there: on the event loop, a stall of every request for as long as the disk takes (the worst
 * latencies of `bench:serve` while messages are sent). Here the serving connection stops checkpointing and
 * this worker's own connection does it every second, PASSIVE: it never waits for, nor blocks, a reader
 * or a writer. Other processes on the same data dir keep SQLite's automatic checkpoints.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BUSY_TIMEOUT_MS } from './busy.js';
import type { Db } from './db.js';

const EVERY_MS = 1000;

/** The worker's code: a connection of its own that checkpoints what it can, every second. */
const WORKER = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or locked: the next round tries again.
  }
}, workerData.everyMs);
`;

/** Starts checkpointing `db`'s file off the event loop; the returned function stops it. */
export function checkpointOffLoop(db: Db): () => Promise<void> {
  db.pragma('wal_autocheckpoint = 0');
  // The same driver as this process's, by path: the worker's code has no module of its own to resolve from.
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { file: db.name, driver, everyMs: EVERY_MS, busyTimeoutMs: BUSY_TIMEOUT_MS } });
  worker.unref();
  return async () => {
    await worker.terminate();
  };
}
