/**
 * The store's readers make their row objects from arrays (src/server/store/row-objects.ts): the objects are the
 * ones better-sqlite3 itself makes, in every mode it has, and iterations end as its own do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DB_FILE, openDb, type Db } from '../../src/server/store/db.js';

describe('row objects made from arrays', () => {
  let dir: string;
  let db: Db;
  /** A plain better-sqlite3 connection to the same file: what the objects must equal. */
  let plain: Database.Database;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chatctl-row-objects-'));
    db = openDb(dir);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, note TEXT, data BLOB, "odd name" TEXT, "2" INTEGER)');
    db.prepare('INSERT INTO t (name, score, note, data, "odd name", "2") VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)').run(
      'one',
      1.5,
      null,
      Buffer.from([1, 2]),
      'x"y\\z',
      7,
      'two "é"',
      -2,
      'n',
      null,
      '',
      2 ** 40,
    );
    plain = new Database(join(dir, DB_FILE));
  });
  afterEach(() => {
    plain.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The rows of `sql` both ways, and their keys in order. */
  const both = (sql: string, ...params: unknown[]) => {
    const ours = db.prepare(sql).all(...params) as Record<string, unknown>[];
    const theirs = plain.prepare(sql).all(...params) as Record<string, unknown>[];
    return { ours, theirs, keys: [ours.map((r) => Object.keys(r)), theirs.map((r) => Object.keys(r))] };
  };

  it('gives the objects better-sqlite3 gives: values, keys and their order, whatever the names hold', () => {
    for (const sql of [
      'SELECT * FROM t ORDER BY id',
      'SELECT note, id AS "a b", name AS "__x", data FROM t ORDER BY id DESC',
      'SELECT 1 AS v, 2 AS v, 3 AS w',
    ]) {
      const { ours, theirs, keys } = both(sql);
      expect(ours).toEqual(theirs);
      expect(keys[0]).toEqual(keys[1]);
    }
    expect(db.prepare('SELECT * FROM t WHERE id = ?').get(1)).toEqual(plain.prepare('SELECT * FROM t WHERE id = ?').get(1));
    expect(db.prepare('SELECT * FROM t WHERE id = ?').get(99)).toBeUndefined();
  });

  it('keeps better-sqlite3’s modes: raw, pluck and expand, each turned off back to objects', () => {
    const sql = 'SELECT id, name FROM t WHERE id = ?';
    const s = db.prepare(sql);
    expect(s.raw().get(1)).toEqual([1, 'one']);
    expect(s.pluck().get(1)).toBe(1);
    expect(s.raw(false).get(1)).toBe(1);
    expect(s.pluck(false).get(1)).toEqual({ id: 1, name: 'one' });
    expect(s.expand().get(2)).toEqual({ t: { id: 2, name: 'two "é"' } });
    expect(s.expand(false).all(2)).toEqual([{ id: 2, name: 'two "é"' }]);
    expect(db.prepare(sql).pluck().all(2)).toEqual([2]);
    // Handed out again in its plain mode.
    expect(db.prepare(sql).get(2)).toEqual({ id: 2, name: 'two "é"' });
  });

  it('iterates as objects, and an iteration ended early (or never started) leaves the statement free', () => {
    const sql = 'SELECT id, name FROM t ORDER BY id';
    const s = db.prepare(sql);
    expect([...(s.iterate() as Iterable<unknown>)]).toEqual(plain.prepare(sql).all());
    for (const row of s.iterate() as Iterable<{ id: number }>) {
      expect(row).toEqual({ id: 1, name: 'one' });
      break;
    }
    expect(s.busy).toBe(false);
    const unread = s.iterate();
    expect(s.busy).toBe(true);
    unread.return?.();
    expect(s.busy).toBe(false);
    expect([...(s.pluck().iterate() as Iterable<unknown>)]).toEqual([1, 2]);
  });

  it('follows a table that gained a column under a kept statement', () => {
    const sql = 'SELECT * FROM t WHERE id = ?';
    expect(Object.keys(db.prepare(sql).get(1) as object)).not.toContain('added');
    plain.exec("ALTER TABLE t ADD COLUMN added TEXT DEFAULT 'new'");
    expect(db.prepare(sql).get(1)).toEqual(plain.prepare(sql).get(1));
    expect(db.prepare(sql).get(1)).toMatchObject({ added: 'new' });
  });
});
