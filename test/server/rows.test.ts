/** Rows read as arrays and made objects (src/server/store/rows.ts): the same objects `all` gives, the statement left as it was. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/server/store/db.js';
import { rowsOf } from '../../src/server/store/rows.js';

describe('rowsOf', () => {
  let dir: string;
  let db: Db;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'chatctl-rows-'));
    db = openDb(dir);
    db.exec('CREATE TEMP TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, note TEXT)');
    db.prepare('INSERT INTO t (name, score, note) VALUES (?, ?, ?), (?, ?, ?)').run('one', 1.5, null, 'two "é"', -2, 'n');
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the objects all() gives, keys in column order, and leaves the statement returning objects', () => {
    const statement = db.prepare('SELECT id, name, score, note FROM t WHERE id >= ? ORDER BY id');
    const rows = rowsOf<Record<string, unknown>>(statement, 1);
    expect(rows).toEqual(statement.all(1));
    expect(rows.map((r) => Object.keys(r))).toEqual([
      ['id', 'name', 'score', 'note'],
      ['id', 'name', 'score', 'note'],
    ]);
    expect(statement.get(2)).toEqual({ id: 2, name: 'two "é"', score: -2, note: 'n' });
    expect(rowsOf(statement, 3)).toEqual([]);
  });
});
