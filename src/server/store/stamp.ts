/**
 * A stamp of the store's data: it differs whenever anything may have changed since it was read, so a value
 * computed from the store can be kept while the stamp stays the same. Two counters make it: rows this
 * connection inserted, updated or deleted (total_changes(), which also counts statements later rolled back,
 * so it errs towards "changed"), and commits of every other connection, other processes included (PRAGMA
 * data_version). Reading it is one short statement, a third of reading a user's row.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

const stamps = new WeakMap<Db, Statement>();

export function storeStamp(db: Db): string {
  let read = stamps.get(db);
  if (!read) {
    read = db.prepare('SELECT total_changes(), data_version FROM pragma_data_version').raw(true);
    stamps.set(db, read);
  }
  const [changes, version] = read.get() as [number, number];
  return `${changes}:${version}`;
}
