/**
 * The data dir as files: modes that keep the keys private, uploads under generated names with no partial
 * files left behind, and a store another process holds locked.
 */
import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOwnUser } from '../../src/api/operations/users.js';
import { removeAttachment, uploadFile } from '../../src/api/operations/attachments.js';
import type { UploadedFile } from '../../src/api/wire.js';
import { reportError } from '../../src/cli/core/errors.js';
import { sweepUploads } from '../../src/server/model/uploads.js';
import { BUSY_MESSAGE } from '../../src/server/store/busy.js';
import { DB_FILE, openDb } from '../../src/server/store/db.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';
import { storedFile } from '../helpers/uploads.js';

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('file modes', () => {
  it('makes an existing open data dir 0700 and the database, its WAL and shared memory 0600, and says so once', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chatctl-modes-'));
    chmodSync(dataDir, 0o755);
    const warnings: string[] = [];
    const db = openDb(dataDir, (l) => warnings.push(l));
    db.prepare("INSERT INTO realm_settings (key, value) VALUES ('x', '1')").run();
    for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`]) expect([f, mode(join(dataDir, f))]).toEqual([f, 0o600]);
    expect(mode(dataDir)).toBe(0o700);
    expect(warnings).toEqual([`others could open ${dataDir} in ${dataDir}: made private to you (directories 0700, files 0600)`]);
    const again: string[] = [];
    openDb(dataDir, (l) => again.push(l)).close();
    db.close();
    expect(again).toEqual([]);
  });

  it('tightens a database and uploads that others can read, in a data dir that was already private', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chatctl-modes-'));
    openDb(dataDir).close();
    const upload = join(dataDir, 'uploads', 'files', 'ab', 'cdef');
    mkdirSync(join(dataDir, 'uploads', 'files', 'ab'), { recursive: true, mode: 0o755 });
    writeFileSync(upload, 'x', { mode: 0o644 });
    chmodSync(join(dataDir, 'uploads'), 0o755);
    chmodSync(join(dataDir, DB_FILE), 0o644);
    const warnings: string[] = [];
    openDb(dataDir, (l) => warnings.push(l)).close();
    expect([mode(join(dataDir, DB_FILE)), mode(join(dataDir, 'uploads')), mode(join(dataDir, 'uploads', 'files', 'ab')), mode(upload)]).toEqual([
      0o600, 0o700, 0o700, 0o600,
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^others could open chatctl\.db, (chatctl\.db-wal, chatctl\.db-shm, )?uploads \(4 entries\) in /);
  });
});

const file = (filename: string, text: string): UploadedFile => ({ field: 'file', filename, contentType: 'text/plain', data: new TextEncoder().encode(text) });

describe.each(TRANSPORTS)('upload files over %s', (kind) => {
  let org: TestOrg;
  let ann: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    ann = org.addUser({ name: 'Ann' });
  });
  afterAll(() => org.close());

  it.each([
    // The longest name the limits take (longer ones are refused: test/server/limits.test.ts).
    ['a name of 255 bytes', `${'é'.repeat(125)}x.txt`],
    ['slashes and dots', '../../a/b/../c.txt'],
    ['a NUL', 'nul\u0000name.txt'],
    ['only dots', '..'],
  ])('stores a file whose name has %s, under a generated name, keeping the name in the record', async (_what, name) => {
    const res = await (await clientFor(org, kind, ann)).call(uploadFile, {}, { files: [file(name, 'content')] });
    const pathId = decodeURIComponent(res.uri.slice('/user_uploads/'.length));
    expect(org.db.prepare('SELECT name FROM attachments WHERE path_id = ?').pluck().get(pathId)).toBe(name);
    const onDisk = storedFile(org, pathId);
    expect(onDisk.startsWith(join(org.dataDir, 'uploads', 'files'))).toBe(true);
    expect(onDisk.slice(join(org.dataDir, 'uploads', 'files').length)).toMatch(/^\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}$/);
    expect(readFileSync(onDisk, 'utf8')).toBe('content');
    expect(mode(onDisk)).toBe(0o600);
  });

  it('leaves neither a row nor a file when the file cannot be stored', async () => {
    const files = join(org.dataDir, 'uploads', 'files');
    const blocked = join(org.dataDir, 'uploads', 'blocked');
    mkdirSync(files, { recursive: true });
    // Where the file would go is a plain file, so creating the directory for it fails.
    rmSync(blocked, { recursive: true, force: true });
    const { renameSync } = await import('node:fs');
    renameSync(files, blocked);
    writeFileSync(files, '');
    try {
      const rows = org.db.prepare('SELECT count(*) FROM attachments').pluck().get();
      const res = await rawRequest(org, kind, { method: 'POST', path: '/user_uploads', files: [file('x.txt', 'x')] }, ann);
      expect(res.status).toBeGreaterThanOrEqual(500);
      expect(org.db.prepare('SELECT count(*) FROM attachments').pluck().get()).toBe(rows);
      expect(readdirSync(join(org.dataDir, 'uploads', 'tmp'))).toEqual([]);
    } finally {
      rmSync(files);
      renameSync(blocked, files);
    }
  });

  it('deletes an upload stored before generated names, from where it was', async () => {
    const pathId = `2/ab/${'x'.repeat(24)}-${kind}/old.txt`;
    const dir = join(org.dataDir, 'uploads', '2', 'ab', `${'x'.repeat(24)}-${kind}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'old.txt'), 'old');
    const id = Number(
      org.db.prepare("INSERT INTO attachments (owner_id, name, path_id, size, create_time_ms) VALUES (?, 'old.txt', ?, 3, 0)").run(ann.id, pathId)
        .lastInsertRowid,
    );
    expect(storedFile(org, pathId)).toBe(join(dir, 'old.txt'));
    await (await clientFor(org, kind, ann)).call(removeAttachment, { attachment_id: id });
    expect(existsSync(dir)).toBe(false);
    expect(org.db.prepare('SELECT 1 FROM attachments WHERE id = ?').get(id)).toBeUndefined();
  });
});

describe('the upload sweep', () => {
  it('deletes stale temporary files and files no row names, and keeps the rest', async () => {
    const org = createTestOrg();
    try {
      const ann = org.addUser();
      const res = await (await clientFor(org, 'embedded', ann)).call(uploadFile, {}, { files: [file('kept.txt', 'kept')] });
      const kept = storedFile(org, decodeURIComponent(res.uri.slice('/user_uploads/'.length)));
      const shardDir = join(kept, '..');
      const shard = parseInt(shardDir.slice(-2), 16);
      const orphan = join(shardDir, 'o'.repeat(24));
      const young = join(shardDir, 'y'.repeat(24));
      const tmp = join(org.dataDir, 'uploads', 'tmp', 'partial');
      for (const f of [orphan, young, tmp]) writeFileSync(f, 'x');
      const nowMs = Date.now();
      const twoHoursAgo = (nowMs - 7200_000) / 1000;
      for (const f of [kept, orphan, tmp]) utimesSync(f, twoHoursAgo, twoHoursAgo);
      expect(sweepUploads(org.db, org.dataDir, nowMs, shard)).toBe(2);
      expect([kept, orphan, young, tmp].map(existsSync)).toEqual([true, false, true, false]);
    } finally {
      await org.close();
    }
  });
});

describe('a store another process holds locked', () => {
  let org: TestOrg;
  let other: Database.Database;
  beforeAll(() => {
    org = createTestOrg();
    // Shortened here so the test does not wait the real timeout out; the behaviour is the same.
    org.db.pragma('busy_timeout = 200');
    other = new Database(join(org.dataDir, DB_FILE));
  });
  afterAll(async () => {
    other.close();
    await org.close();
  });

  const holdingTheLock = async <T>(fn: () => Promise<T>): Promise<T> => {
    other.exec('BEGIN IMMEDIATE');
    try {
      return await fn();
    } finally {
      other.exec('ROLLBACK');
    }
  };

  it.each(TRANSPORTS)('still answers reads at once (%s)', async (kind) => {
    const me = await holdingTheLock(async () => (await clientFor(org, kind)).call(getOwnUser, {}));
    expect(me.user_id).toBe(org.owner.id);
  });

  it.each(TRANSPORTS)('answers a write 503 with a message and Retry-After, and logs no stack (%s)', async (kind) => {
    const res = await holdingTheLock(() => rawRequest(org, kind, { method: 'POST', path: '/users/me/status', body: [['status_text', 'busy']] }));
    expect({ status: res.status, body: res.body, retryAfter: res.headers['retry-after'] }).toEqual({
      status: 503,
      body: { result: 'error', msg: BUSY_MESSAGE, code: 'BAD_REQUEST' },
      retryAfter: '1',
    });
    expect(org.logs.join('\n')).not.toMatch(/SqliteError|database is locked/);
    expect(org.db.prepare('SELECT status_text FROM users WHERE id = ?').pluck().get(org.owner.id)).toBe('');
  });

  it('is a temporary failure (exit 75) for the CLI, in words, when it happens outside a request', () => {
    let error: unknown;
    holdingTheLockSync(() => {
      try {
        org.db.exec('BEGIN IMMEDIATE');
      } catch (e) {
        error = e;
      }
    });
    const report = reportError(error);
    expect({ exitCode: report.exitCode, text: report.text }).toEqual({ exitCode: 75, text: `chatctl: ${BUSY_MESSAGE}` });
  });

  function holdingTheLockSync(fn: () => void): void {
    other.exec('BEGIN IMMEDIATE');
    try {
      fn();
    } finally {
      other.exec('ROLLBACK');
    }
  }
});
