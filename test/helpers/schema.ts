/** Data dirs as an older chatctl left them: the first migrations only, for tests of the later ones. */
import type { Db } from '../../src/server/store/db.js';
import { migrations } from '../../src/server/store/migrations.js';

/** Applies the first `count` migrations to `db` and records the schema version, as chatctl at that version did. */
export function applyMigrations(db: Db, count: number): void {
  for (const m of migrations.slice(0, count)) {
    if (typeof m === 'string') db.exec(m);
    else m(db);
  }
  db.pragma(`user_version = ${count}`);
}
