/**
 * What changed in the store, row by row, for values kept across writes (model/rendered-cache.ts). The store
 * stamp (stamp.ts) says only that something changed, and under everyday traffic something always has: a
 * message sent between two reads of the user list would empty a cache kept by the stamp. Here SQLite triggers
 * (migration 17) log every change of the rows renderings are made of, by subject and ID (a user, a message, a
 * channel, or the organization's settings as a whole), whatever process or code path made it; a kept value
 * names what it was made of and holds while none of those changed after it was made, as Zulip's memcached
 * entries for user and message dicts are flushed when their rows are saved.
 *
 * Read inside the transaction whose snapshot the values are read from: a value made in it is as of the log's
 * newest entry in that snapshot. A read transaction reads what changed (sync) and keeps values at once; a
 * write transaction may only note where the log stands (newest) and keep what it made once it has committed
 * (a change this connection made and then rolled back would leave a value kept as of a log entry that never
 * was, and sequence numbers of rolled-back changes are given again). Readers that sync are called only from
 * GET operations.
 */
import type { Db } from './db.js';
import { limitClause } from './limit-clause.js';

/** What changed: one user, the set of users (who there is, ID 0), one message, one channel, the organization's settings (ID 0). */
export type ChangeSubject = 'user' | 'users' | 'message' | 'channel' | 'realm';

/** A subject and ID a kept value was made of, as one number (compared and looked up without making a string). */
export type Dependency = number;

const SUBJECT_CODES: Readonly<Record<ChangeSubject, number>> = { user: 0, users: 1, message: 2, channel: 3, realm: 4 };
/**
 * The store's row IDs stay below this (SQLite's are far smaller here), so a number may carry an ID beside something
 * else and stay exact in a double: five subjects of them here, a message's flags in model/narrow.ts.
 */
export const ID_SPAN = 2 ** 44;

export const dependency = (subject: ChangeSubject, id: number): Dependency => SUBJECT_CODES[subject] * ID_SPAN + id;

/** The user a row of the log is, or undefined when it is another subject's. */
export const userOf = (row: Dependency): number | undefined => (row < ID_SPAN ? row - SUBJECT_CODES.user * ID_SPAN : undefined);

/**
 * Changes read in one go at most, and distinct rows remembered: past either the log starts afresh, forgetting
 * every kept value. `recent`: changes listed in order for changedSince, at least (at most twice as many).
 * `walked`: changes after a value that ChangeLog.holds walks at most in that list; further behind, it looks up
 * each row the value was made of.
 */
export const CHANGE_LOG_LIMITS = { read: 1000, remembered: 10_000, recent: 1000, walked: 16 };

export class ChangeLog {
  /** The newest change read (-1: none read yet). */
  private seen = -1;
  /** Values made before this change count as stale: the log was started afresh there. */
  private floor = 0;
  /** The newest change of each row that changed since the floor. */
  private readonly changed = new Map<Dependency, number>();
  /** The latest changes read, oldest first: sequence numbers and rows side by side. */
  private recentSeqs: number[] = [];
  private recentRows: Dependency[] = [];

  constructor(private readonly db: Db) {}

  /** Reads what changed since the last read; the newest change as of the current transaction's snapshot. */
  sync(): number {
    if (this.seen < 0) return this.restart();
    // Prepared at each use: the connection keeps statements (kept-statements.ts) and hands them out in their plain modes.
    const rows = this.db
      .prepare<[number], [number, ChangeSubject, number]>(
        `SELECT seq, subject, id FROM changes WHERE seq > ? ORDER BY seq ${limitClause(CHANGE_LOG_LIMITS.read + 1)}`,
      )
      .raw()
      .all(this.seen);
    if (rows.length === 0) return this.seen;
    // Consecutive from the last one read, unless the log was pruned past it (sequence numbers of committed changes have no gaps).
    if (rows[0]![0] !== this.seen + 1 || rows.length > CHANGE_LOG_LIMITS.read || this.changed.size + rows.length > CHANGE_LOG_LIMITS.remembered) {
      return this.restart();
    }
    for (const [seq, subject, id] of rows) {
      const row = dependency(subject, id);
      this.changed.set(row, seq);
      this.recentSeqs.push(seq);
      this.recentRows.push(row);
    }
    if (this.recentSeqs.length > 2 * CHANGE_LOG_LIMITS.recent) {
      this.recentSeqs = this.recentSeqs.slice(-CHANGE_LOG_LIMITS.recent);
      this.recentRows = this.recentRows.slice(-CHANGE_LOG_LIMITS.recent);
    }
    this.seen = rows.at(-1)![0];
    return this.seen;
  }

  /**
   * The newest change in the current transaction's snapshot, its own included, without reading what changed:
   * what a value made in a write transaction is kept as of, once that transaction has committed.
   */
  newest(): number {
    return this.db.prepare<[], number | null>('SELECT max(seq) FROM changes').pluck().get() ?? 0;
  }

  /** Whether a value made as of change `at` from `made` still holds: nothing it was made of changed since. */
  holds(at: number, made: readonly Dependency[]): boolean {
    if (at < this.floor) return false;
    if (at >= this.seen) return true;
    // A value checked lately (see confirmed) has few changes after it: those are walked, in the short list of
    // recent ones every value checked in this request walks too, rather than each row it was made of looked up
    // in the map of every row changed, at a place of its own in memory.
    const first = this.seen - at <= CHANGE_LOG_LIMITS.walked ? this.recentAfter(at) : undefined;
    if (first !== undefined) {
      for (let i = first; i < this.recentRows.length; i++) if (made.includes(this.recentRows[i]!)) return false;
      return true;
    }
    for (const d of made) if ((this.changed.get(d) ?? 0) > at) return false;
    return true;
  }

  /**
   * The change a value made as of `at` from `made` can be counted as made as of, now that it is seen to hold (the
   * newest change read: nothing it was made of changed in between), or undefined when it no longer holds.
   */
  confirmed(at: number, made: readonly Dependency[]): number | undefined {
    return this.holds(at, made) ? Math.max(at, this.seen) : undefined;
  }

  /**
   * The rows changed after change `at` up to the last read, in order (a row as often as it changed); undefined
   * when that is no longer known (older than the recent changes kept, or than the log's fresh start): whoever
   * kept a value as of `at` then checks it whole.
   */
  changedSince(at: number): readonly Dependency[] | undefined {
    if (at < this.floor) return undefined;
    if (at >= this.seen) return [];
    const first = this.recentAfter(at);
    return first === undefined ? undefined : this.recentRows.slice(first);
  }

  /** Where the first change after `at` (older than the newest read) is in the recent list, or undefined when it is no longer listed. */
  private recentAfter(at: number): number | undefined {
    // Consecutive sequence numbers: the first change after `at` is `at + 1`, if it is still listed.
    const first = this.recentSeqs.length - (this.seen - at);
    return first >= 0 && this.recentSeqs[first] === at + 1 ? first : undefined;
  }

  /** Forgets every change (and so every value made before now) and goes on from the newest. */
  private restart(): number {
    this.changed.clear();
    this.recentSeqs = [];
    this.recentRows = [];
    this.seen = this.newest();
    this.floor = this.seen;
    return this.seen;
  }
}

const logs = new WeakMap<Db, ChangeLog>();

/** The change log of a connection: one per connection, as its caches are. */
export function changeLog(db: Db): ChangeLog {
  let log = logs.get(db);
  if (!log) {
    log = new ChangeLog(db);
    logs.set(db, log);
  }
  return log;
}
