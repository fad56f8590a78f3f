/** Migration 11: the "unique names" check, @-mentions and the bot name check find names by index, old names too. */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateFullName } from '../../src/server/model/validation.js';
import { setSetting } from '../../src/server/model/realm.js';
import { DB_FILE, openDb } from '../../src/server/store/db.js';
import { migrations } from '../../src/server/store/migrations.js';
import { applyMigrations } from '../helpers/schema.js';

describe('a data dir from before migration 11', () => {
  it('keys the names it already holds, so a new name equal up to case and compatibility forms is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatctl-old-'));
    try {
      const old = new Database(join(dir, DB_FILE));
      applyMigrations(old, 10);
      old.exec(`INSERT INTO users (id, email, full_name, api_key, date_joined) VALUES (7, 'a@x.test', 'ＭＥＬ Member', 'k', 1)`);
      old.close();

      const db = openDb(dir);
      try {
        expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
        expect(db.prepare('SELECT name_key FROM users WHERE id = 7').pluck().get()).toBe('mel member');
        setSetting(db, 'require_unique_names', true);
        expect(() => validateFullName(db, 'Mel member')).toThrow('Unique names required in this organization.');
        // The user's own name is not a clash with itself.
        expect(validateFullName(db, 'mel MEMBER', 7)).toBe('mel MEMBER');
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
