/**
 * The embedded store: one SQLite file under the data dir. WAL and a busy timeout let several chatctl
 * processes (a cron job and a person, or `serve` and the CLI) use one data dir at once: readers never wait
 * for the writer, and a writer waits up to the busy timeout for another's transaction to end.
 */
import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { BUSY_TIMEOUT_MS } from './busy.js';
import { migrations } from './migrations.js';
import { tightenDataDir } from './modes.js';

export type Db = Database.Database;

export const DB_FILE = 'chatctl.db';

/** `warn`: where a note about permissions that had to be tightened goes (stderr). */
export function openDb(dataDir: string, warn: (line: string) => void = () => {}): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, DB_FILE);
  // SQLite would create the file with the process umask (often 0644: every API key readable by anyone), and
  // gives its WAL and shared-memory files the database's mode: created here first, 0600.
  closeSync(openSync(file, 'a', 0o600));
  tightenDataDir(dataDir, [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`], warn);
  const db = new Database(file);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(
      `the data dir was written by a newer chatctl (schema ${current}, this one knows ${migrations.length}); upgrade chatctl`,
    );
  }
  if (current === migrations.length) return;
  // IMMEDIATE: two processes opening a fresh data dir at once must not both migrate.
  db.transaction(() => {
    const now = db.pragma('user_version', { simple: true }) as number;
    for (let i = now; i < migrations.length; i++) {
      db.exec(migrations[i]!);
      db.pragma(`user_version = ${i + 1}`);
    }
  }).immediate();
}
