/**
 * The embedded store: one SQLite file under the data dir. WAL and a busy timeout let two chatctl processes
 * (a cron job and a person, or `serve` and the CLI) use one data dir at once.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrations } from './migrations.js';

export type Db = Database.Database;

export const DB_FILE = 'chatctl.db';

export function openDb(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, DB_FILE));
  db.pragma('busy_timeout = 10000');
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
      if (broken.length) throw new Error(`migrating the data dir left ${broken.length} broken references (schema ${now} to ${migrations.length}); nothing was changed`);
    }).immediate();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}
