/**
 * IDs are never given twice (migration 7): a script that kept an ID from an earlier `list` must not act on
 * a different object once the one it named is gone. Over both transports through the CLI, and for a data
 * dir written before the migration.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from '../../src/api/operations/attachments.js';
import { DB_FILE, openDb } from '../../src/server/store/db.js';
import { migrations } from '../../src/server/store/migrations.js';
import { cliTarget, jsonLines, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';
import { applyMigrations } from '../helpers/schema.js';

describe.each(TRANSPORTS)('IDs after deletion are new, over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('a linkifier added after the newest was removed gets a new ID', async () => {
    const t = await cliTarget(org, kind);
    const add = async (pattern: string) => {
      const r = await runCli([...t.args, 'linkifiers', 'add', pattern, 'https://x.test/{id}', '--json'], { env: t.env });
      expect(r.code).toBe(0);
      return (JSON.parse(r.stdout) as { id: number }).id;
    };
    const first = await add('#(?P<id>[0-9]+)');
    expect((await runCli([...t.args, 'linkifiers', 'remove', String(first), '--yes'], { env: t.env })).code).toBe(0);
    const second = await add('!(?P<id>[0-9]+)');
    expect(second).toBeGreaterThan(first);
  });

  it('an attachment uploaded after the newest was deleted gets a new ID', async () => {
    const t = await cliTarget(org, kind);
    const client = await clientFor(org, kind, org.owner);
    const upload = async () => {
      await client.call(uploadFile, {}, { files: [{ field: 'f', filename: 'a.txt', contentType: 'text/plain', data: new Uint8Array(3).fill(65) }] });
      const listed = await runCli([...t.args, 'attachments', 'list', '--json'], { env: t.env });
      return Math.max(...(JSON.parse(listed.stdout) as { id: number }[]).map((a) => a.id));
    };
    const first = await upload();
    const deleted = await runCli([...t.args, 'attachments', 'delete', String(first), '--yes', '--json'], { env: t.env });
    expect(jsonLines(deleted.stdout)[0]).toMatchObject({ ok: true });
    expect(await upload()).toBeGreaterThan(first);
  });
});

describe('a data dir from before migration 7', () => {
  it('is migrated: rows, references and indexes are kept, and a deleted newest ID is not given again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatctl-old-'));
    try {
      // The schema as chatctl wrote it before migration 7, with a user, a message and linkifiers in it.
      const old = new Database(join(dir, DB_FILE));
      const before = migrations.findIndex((m) => typeof m !== 'string');
      applyMigrations(old, before);
      old.exec(`
        INSERT INTO users (id, email, full_name, api_key, date_joined) VALUES (7, 'a@x.test', 'A', 'k', 1);
        INSERT INTO streams (id, name, date_created) VALUES (3, 'general', 1);
        INSERT INTO recipients (id, stream_id) VALUES (5, 3);
        INSERT INTO messages (id, sender_id, recipient_id, type, stream_id, content, rendered_content, date_sent) VALUES (9, 7, 5, 'stream', 3, 'hi', '<p>hi</p>', 1);
        INSERT INTO linkifiers (id, pattern, url_template, "order") VALUES (1, 'a', 'u', 1), (2, 'b', 'u', 2);
        DELETE FROM linkifiers WHERE id = 2;
      `);
      old.close();

      const db = openDb(dir);
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
      expect(db.prepare('SELECT m.id, u.email, s.name FROM messages m JOIN users u ON u.id = m.sender_id JOIN streams s ON s.id = m.stream_id').get()).toEqual({
        id: 9,
        email: 'a@x.test',
        name: 'general',
      });
      expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'messages_by_stream_topic'").pluck().get()).toBe(1);
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      // A new linkifier takes 2 (never handed out while the table held it): what SQLite can know. One deleted
      // from now on is never given again.
      const id = (pattern: string) =>
        Number(db.prepare('INSERT INTO linkifiers (pattern, url_template, "order") VALUES (?, ?, 3)').run(pattern, 'u').lastInsertRowid);
      const third = id('c');
      db.prepare('DELETE FROM linkifiers WHERE id = ?').run(third);
      expect(id('d')).toBe(third + 1);
      db.prepare('DELETE FROM messages WHERE id = 9').run();
      const next = db
        .prepare(
          "INSERT INTO messages (sender_id, recipient_id, type, stream_id, content, rendered_content, date_sent) VALUES (7, 5, 'stream', 3, 'x', 'x', 2)",
        )
        .run();
      expect(Number(next.lastInsertRowid)).toBe(10);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
