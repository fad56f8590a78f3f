/**
 * Channel rows kept across requests and writes, for reads that have synced the change log in their transaction
 * (store/changes.ts): a GET /messages narrow names its channel, and reading its row was one of the few
 * statements every such request runs. A row holds while nothing of its channel changed (migration 18 logs any
 * column); by name, only channels found are kept (a name that named none may name one created since). The rows
 * are shared between requests: whoever gets one only reads it.
 */
import { changeLog, dependency } from '../store/changes.js';
import type { Db } from '../store/db.js';
import { type StreamRow, streamById, streamByName } from './channels.js';

/** Rows kept per connection, by ID and by name, at most: emptied when full. */
const MAX_KEPT = 1000;

interface Kept {
  at: number;
  row: StreamRow;
}

const kept = new WeakMap<Db, Map<number | string, Kept>>();

/**
 * The name as SQLite's NOCASE compares it (ASCII letters only folded, the operand trimmed as streamByName
 * trims it): two names JavaScript's toLowerCase would fold together may be two channels.
 */
function nocaseKey(name: string): string {
  const trimmed = name.trim();
  // toLowerCase folds ASCII letters as NOCASE does, and only those when there is nothing else to fold.
  return `#${/[^\p{ASCII}]/u.test(trimmed) ? trimmed.replace(/[A-Z]+/g, (c) => c.toLowerCase()) : trimmed.toLowerCase()}`;
}

/**
 * The channel a narrow operand names (an ID, or a name in any ASCII case), as of change `at`: the newest change
 * of this transaction's snapshot, just read with ChangeLog.sync.
 */
export function keptChannel(db: Db, operand: number | string, at: number): StreamRow | undefined {
  let rows = kept.get(db);
  if (!rows) {
    rows = new Map();
    kept.set(db, rows);
  }
  const key = typeof operand === 'number' ? operand : nocaseKey(operand);
  const found = rows.get(key);
  if (found && changeLog(db).holds(found.at, [dependency('channel', found.row.id)])) return found.row;
  const row = typeof operand === 'number' ? streamById(db, operand) : streamByName(db, operand);
  if (!row) {
    rows.delete(key);
    return undefined;
  }
  if (rows.size >= MAX_KEPT) rows.clear();
  rows.set(key, { at, row });
  return row;
}
