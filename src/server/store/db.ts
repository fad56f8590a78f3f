/**
 * The embedded store: one SQLite file under the data dir. WAL and a busy timeout let several chatctl
 * processes (a cron job and a person, or `serve` and the CLI) use one data dir at once: readers never wait
 * for the writer, and a writer waits up to the busy timeout for another's transaction to end.
 */
import type Database from 'better-sqlite3';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs } from '../../make-dirs.js';
import { BUSY_TIMEOUT_MS } from './busy.js';
import { StatementKeepingDatabase } from './kept-statements.js';
import { migrations } from './migrations.js';
import { tightenDataDir } from './modes.js';
import { WAL_LIMIT_BYTES } from './wal-limit.js';

export type Db = Database.Database;

export const DB_FILE = 'chatctl.db';

/** `warn`: where a note about permissions that had to be tightened goes (stderr). */
export function openDb(dataDir: string, warn: (line: string) => void = () => {}): Db {
  makeDirs(dataDir);
  const file = join(dataDir, DB_FILE);
  // SQLite would create the file with the process umask (often 0644: every API key readable by anyone), and
  // gives its WAL and shared-memory files the database's mode: created here first, 0600.
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const db = new StatementKeepingDatabase(file);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Before anything writes: even turning WAL on rewrites another program's file header. Modes are
    // tightened only then, so another program's file is left exactly as it was.
    refuseForeign(db);
    tightenDataDir(dataDir, [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`], warn);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`journal_size_limit = ${WAL_LIMIT_BYTES}`);
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/** A database chatctl did not write: migrating it would write chatctl's tables into another program's data. */
export class ForeignDatabaseError extends Error {
  constructor(readonly tables: string[]) {
    super(`an SQLite database chatctl did not write (it holds the tables ${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ' ...' : ''})`);
    this.name = 'ForeignDatabaseError';
  }
}

/** chatctl numbers its schema from 1 (user_version); tables in a database still at 0 are someone else's. */
function refuseForeign(db: Db): void {
  if (db.pragma('user_version', { simple: true }) !== 0) return;
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map(
    (t) => t.name,
  );
  if (tables.length) throw new ForeignDatabaseError(tables);
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`the data dir was written by a newer chatctl (schema ${current}, this one knows ${migrations.length}); upgrade chatctl`);
  }
  if (current === migrations.length) return;
  // Rebuilding a table that others refer to needs foreign keys off, which SQLite ignores inside a
  // transaction; what the migrations did is checked before they commit instead.
  db.pragma('foreign_keys = OFF');
  try {
    // IMMEDIATE: two processes opening a fresh data dir at once must not both migrate.
    db.transaction(() => {
      const now = db.pragma('user_version', { simple: true }) as number;
      for (let i = now; i < migrations.length; i++) {
        const migration = migrations[i]!;
        if (typeof migration === 'string') db.exec(migration);
        else migration(db);
        db.pragma(`user_version = ${i + 1}`);
      }
      const broken = db.pragma('foreign_key_check') as unknown[];
      if (broken.length)
        throw new Error(`migrating the data dir left ${broken.length} broken references (schema ${now} to ${migrations.length}); nothing was changed`);
    }).immediate();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}
