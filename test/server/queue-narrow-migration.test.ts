/** Migration 13: queues registered before it keep what they asked for once narrows and all_public_streams apply. */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publicChannelWatcherIds, queueExists } from '../../src/server/model/event-queues.js';
import { DB_FILE, openDb } from '../../src/server/store/db.js';
import { applyMigrations } from '../helpers/schema.js';

describe('a data dir from before migration 13', () => {
  it('marks queues with a narrow or all_public_streams as watching public channels, and drops those a server would have refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatctl-old-'));
    try {
      const old = new Database(join(dir, DB_FILE));
      applyMigrations(old, 12);
      const user = old.prepare('INSERT INTO users (id, email, full_name, api_key, date_joined) VALUES (?, ?, ?, ?, 1)');
      for (const id of [7, 8, 9, 10]) user.run(id, `u${id}@x.test`, `User ${id}`, `k${id}`);
      const queue = old.prepare('INSERT INTO event_queues (id, user_id, options, lifespan_secs, last_access) VALUES (?, ?, ?, 600, 1000)');
      queue.run('narrowed', 7, JSON.stringify({ narrow: [['channel', 'Denmark']] }));
      queue.run('firehose', 8, JSON.stringify({ all_public_streams: true, narrow: [] }));
      queue.run('plain', 9, JSON.stringify({ all_public_streams: false, narrow: [] }));
      queue.run('objects', 10, JSON.stringify({ narrow: [{ operator: 'channel', operand: 'Denmark' }] }));
      old.close();

      const db = openDb(dir);
      try {
        expect(publicChannelWatcherIds(db, []).sort()).toEqual([7, 8]);
        expect(['narrowed', 'firehose', 'plain', 'objects'].map((id) => queueExists(db, id, 1000))).toEqual([true, true, true, false]);
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
