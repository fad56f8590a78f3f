/**
 * WAL checkpoints for `chatctl serve`, on a thread of their own. SQLite copies the write-ahead log back
 * into the database every 1,000 pages, inside whichever commit crosses that mark, and syncs the file to
 * disk there: on the event loop, a stall of every request for as long as the disk takes (the worst
 * latencies of `bench:serve` while messages are sent). Here the serving connection stops checkpointing and
 * this worker's own connection does it, PASSIVE: it never waits for, nor blocks, a reader or a writer.
 * Other processes on the same data dir keep SQLite's automatic checkpoints.
 *
 * A passive checkpoint alone never lets the log start over under steady writes (a writer starts it over only
 * when everything in it was copied back as the writer began), so the file grew without end: 958 MB after
 * 3,000 typing requests. A TRUNCATE checkpoint empties it, but it holds the write lock while it waits for
 * the readers still on the log's pages and while it copies and syncs: run by this thread whenever the log
 * passed WAL_LIMIT_BYTES, with SQLite's usual 10 s of waiting, it made serve's writers find the store busy
 * and retry on the event loop's timers (store/busy-retry.ts) for 2-8 s under reads (bench:serve-overload,
 * messages to a channel of 3,000 members: up to 24 tries each).
 *
 * So serve's writes take part: once the log is past the limit, a write asks for a checkpoint and waits for it
 * (beforeWrite; on the event loop's queue, reads going on meanwhile, every write that comes meanwhile
 * waiting for the same one). The worker copies passively, then truncates what little is left with no writer
 * to hold out. On its own it copies passively (each SIZE_EVERY_MS past the limit, so that a write that asks
 * finds little left, and every PASSIVE_EVERY_MS), and truncates only a quiet log (nothing written for a whole
 * PASSIVE_EVERY_MS, and all of it copied), to give an idle server's disk back, waiting CHECKPOINT_WAIT_MS at
 * most for the lock. Another process on the data dir checkpoints its own writes (SQLite's automatic
 * checkpoints), and a writer after its checkpoint starts the log over.
 */
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BUSY_TIMEOUT_MS } from './busy.js';
import type { Db } from './db.js';
import { WAL_LIMIT_BYTES } from './wal-limit.js';

const PASSIVE_EVERY_MS = 1000;
/** How often the log's size is looked at: at most this much writing goes past the limit. */
const SIZE_EVERY_MS = 20;
/** The longest a checkpoint waits for a writer or the readers before it gives up for the round (see above). */
const CHECKPOINT_WAIT_MS = 20;
/**
 * The longest a write waits for the checkpoint it asked for, as long as it would wait for the write lock: the
 * checkpoint holds that lock, so a write let go sooner only finds the store busy, and so do all the others
 * let go with it (a 200 ms bound let fifty writes retry on the event loop's timers at once).
 */
const COPY_WAIT_MS = BUSY_TIMEOUT_MS;

/** The worker's code: a connection of its own that copies the log back, and empties it when quiet or when a write asks. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = ' + workerData.checkpointWaitMs);
const walSize = () => {
  try {
    return statSync(workerData.file + '-wal').size;
  } catch {
    return 0;
  }
};
let sinceTimed = 0;
let logAtTimed = -1;
setInterval(() => {
  try {
    const size = walSize();
    sinceTimed += workerData.sizeEveryMs;
    const timed = sinceTimed >= workerData.passiveEveryMs;
    if (!timed && size <= workerData.limitBytes) return;
    const [round] = db.pragma('wal_checkpoint(PASSIVE)');
    if (!timed) return;
    sinceTimed = 0;
    const quiet = round.log === logAtTimed && round.busy === 0 && round.log === round.checkpointed;
    logAtTimed = round.log;
    if (quiet && size > 0) db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // Busy or locked: the next round tries again.
  }
}, workerData.sizeEveryMs);
parentPort.on('message', () => {
  try {
    // Serve's writes wait meanwhile: the copy under the lock holds none of them out, and finds little left.
    db.pragma('wal_checkpoint(PASSIVE)');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // Busy or locked: the write goes on all the same.
  }
  parentPort.postMessage('copied');
});
`;

/** The checkpoints of a store being served. */
export interface Checkpoints {
  /**
   * What a write must wait for before it starts: nothing (undefined), or the copy of a log past its limit, asked
   * for now or by an earlier write (the copy holds the write lock while it empties the log).
   */
  beforeWrite(): Promise<void> | undefined;
  /** The copy under way, if any, without asking for one: what a write whose turn came meanwhile waits for. */
  pending(): Promise<void> | undefined;
  stop(): Promise<void>;
}

const walBytes = (file: string): number => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

/** Starts checkpointing `db`'s file off the event loop. */
export function checkpointOffLoop(db: Db): Checkpoints {
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
      checkpointWaitMs: CHECKPOINT_WAIT_MS,
    },
  });
  worker.unref();
  const waiting: (() => void)[] = [];
  worker.on('message', () => waiting.shift()?.());
  // A worker that fails (its driver would not load, say) leaves the checkpoints to this connection again, as
  // SQLite makes them on its own: the log stays bounded, at the cost of the stalls the worker was there to avoid.
  let stopping = false;
  let gone = false;
  const fallBack = () => {
    if (stopping || gone) return;
    gone = true;
    db.pragma('wal_autocheckpoint = 1000');
    for (const release of waiting.splice(0)) release();
  };
  worker.on('error', fallBack);
  worker.on('exit', fallBack);
  // Every write that comes while a copy is asked for waits for that one.
  let copying: Promise<void> | null = null;
  const askToCopy = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, COPY_WAIT_MS);
      waiting.push(() => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage('copy');
    }).finally(() => {
      copying = null;
    });
  const wal = `${db.name}-wal`;
  return {
    beforeWrite() {
      if (gone) return undefined;
      copying ??= walBytes(wal) > WAL_LIMIT_BYTES ? askToCopy() : null;
      return copying ?? undefined;
    },
    pending() {
      return copying ?? undefined;
    },
    async stop() {
      stopping = true;
      await worker.terminate();
    },
  };
}
