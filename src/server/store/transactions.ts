/**
 * Transactions by mode, through one wrapper per connection. `db.transaction(fn)` builds a new wrapper (and
 * its BEGIN/COMMIT plumbing) every call, which cost more than a request's whole read of `GET /users/me`;
 * the wrapper here is built once and given the work as its argument. Nested calls become savepoints, as
 * better-sqlite3's own wrappers do.
 */
import type { Transaction } from 'better-sqlite3';
import type { Db } from './db.js';

type Runner = Transaction<(work: () => void) => void>;

const runners = new WeakMap<Db, Runner>();

function runnerOf(db: Db): Runner {
  let runner = runners.get(db);
  if (!runner) {
    runner = db.transaction((work: () => void) => work());
    runners.set(db, runner);
  }
  return runner;
}

/**
 * Runs `fn`, which only reads, on one snapshot: the transaction under way's, else one of its own. A savepoint
 * (what a nested transaction is) would cost two statements and guard no write.
 */
export function inReadSnapshot<T>(db: Db, fn: () => T): T {
  return db.inTransaction ? fn() : inTransaction(db, 'deferred', fn);
}

/** Runs `fn` in a transaction: `deferred` takes a read snapshot first (a lock only once it writes), `immediate` the write lock at once. */
export function inTransaction<T>(db: Db, mode: 'deferred' | 'immediate', fn: () => T): T {
  let out: { value: T } | undefined;
  runnerOf(db)[mode](() => {
    out = { value: fn() };
  });
  if (!out) throw new Error('a transaction ended without running its work');
  return out.value;
}
