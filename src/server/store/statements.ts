/**
 * Prepared statements kept per connection, for the queries a request runs many times (a user by ID, a
 * setting): preparing costs far more than running one, and a request naming 1,000 users ran 1,000
 * prepares on the event loop. Only for statements used plainly (`get`, `all`, `run`): a statement whose
 * mode is changed (`pluck`, `raw`) or that is iterated would carry that state to the next caller.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

const cache = new WeakMap<Db, Map<string, Statement>>();

export function statement(db: Db, sql: string): Statement {
  let byText = cache.get(db);
  if (!byText) {
    byText = new Map();
    cache.set(db, byText);
  }
  let prepared = byText.get(sql);
  if (!prepared) {
    prepared = db.prepare(sql);
    byText.set(sql, prepared);
  }
  return prepared;
}
