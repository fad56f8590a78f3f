/**
 * A prepared statement for `sql`, the one the connection keeps (kept-statements.ts): what this helper used to
 * keep itself, before every connection kept its statements. Left for the callers not yet moved to `db.prepare`.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

export const statement = (db: Db, sql: string): Statement => db.prepare(sql);
