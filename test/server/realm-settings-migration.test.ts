/** Migration 16: group-valued organization settings stored as system group names become group-setting values. */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getSetting } from '../../src/server/model/realm.js';
import { groupSetting } from '../../src/server/model/realm-permissions.js';
import { insertSystemGroups, systemGroupId } from '../../src/server/model/system-groups.js';
import { DB_FILE, openDb } from '../../src/server/store/db.js';
import { applyMigrations } from '../helpers/schema.js';

describe('a data dir from before migration 16', () => {
  it('keeps the groups its settings named, under the names Zulip gives them, and its unlimited content edits', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatctl-old-'));
    try {
      const old = new Database(join(dir, DB_FILE));
      applyMigrations(old, 15);
      insertSystemGroups(old, 1);
      old.prepare("INSERT INTO users (email, full_name, role, api_key, date_joined) VALUES ('o@x.test', 'Owner', 100, 'k', 1)").run();
      const setting = old.prepare('INSERT INTO realm_settings (key, value) VALUES (?, ?)');
      setting.run('can_invite_users_group', JSON.stringify('role:administrators'));
      setting.run('can_create_multiuse_invite_group', JSON.stringify('role:members'));
      old.close();

      const db = openDb(dir);
      try {
        expect(groupSetting(db, 'can_invite_users_group')).toBe(systemGroupId(db, 'role:administrators'));
        expect(groupSetting(db, 'create_multiuse_invite_group')).toBe(systemGroupId(db, 'role:members'));
        expect(groupSetting(db, 'can_resolve_topics_group')).toBe(systemGroupId(db, 'role:everyone'));
        expect(db.prepare("SELECT count(*) FROM realm_settings WHERE key = 'can_create_multiuse_invite_group'").pluck().get()).toBe(0);
        expect(getSetting(db, 'message_content_edit_limit_seconds')).toBeNull();
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives an organization made after it the content edit limit of a new Zulip organization', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatctl-new-'));
    try {
      const db = openDb(dir);
      try {
        expect(getSetting(db, 'message_content_edit_limit_seconds')).toBe(600);
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
