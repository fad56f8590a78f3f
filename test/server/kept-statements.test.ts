/**
 * The store's connection keeps the statements it prepares (src/server/store/kept-statements.ts): the same SQL
 * gives the same statement, and what one caller did to it (pluck, an iteration under way) never reaches the next.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/server/store/db.js';

describe('statements kept by the connection', () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chatctl-kept-'));
    db = openDb(dir);
    db.exec('CREATE TEMP TABLE t (id INTEGER PRIMARY KEY, name TEXT)');
    db.prepare('INSERT INTO t (name) VALUES (?), (?)').run('one', 'two');
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prepares a text once', () => {
    expect(db.prepare('SELECT name FROM t WHERE id = ?')).toBe(db.prepare('SELECT name FROM t WHERE id = ?'));
  });

  it('hands a statement out in its plain modes whatever its last caller set', () => {
    const sql = 'SELECT name FROM t WHERE id = ?';
    expect(db.prepare(sql).pluck().get(1)).toBe('one');
    expect(db.prepare(sql).get(1)).toEqual({ name: 'one' });
    expect(db.prepare(sql).raw().get(2)).toEqual(['two']);
    expect(db.prepare(sql).all(2)).toEqual([{ name: 'two' }]);
  });

  it('prepares a fresh statement while the kept one is being iterated', () => {
    const sql = 'SELECT id, name FROM t ORDER BY id';
    const seen: string[] = [];
    for (const row of db.prepare(sql).iterate() as Iterable<{ name: string }>) {
      seen.push(`${row.name}:${(db.prepare(sql).all() as unknown[]).length}`);
    }
    expect(seen).toEqual(['one:2', 'two:2']);
  });

  it('keeps a bounded number, dropping the least lately used', () => {
    const first = db.prepare('SELECT 0');
    const kept = db.prepare('SELECT 1');
    for (let i = 2; i <= 1000; i++) {
      db.prepare(`SELECT ${i}`);
      if (i % 100 === 0) db.prepare('SELECT 1');
    }
    expect(db.prepare('SELECT 1')).toBe(kept);
    expect(db.prepare('SELECT 0')).not.toBe(first);
    expect(db.prepare('SELECT 0').pluck().get()).toBe(0);
  });
});
