/**
 * Uploaded files on disk under `<data dir>/uploads/`, and their path IDs, shaped as a Zulip server makes them
 * (`<realm id>/<2 hex>/<24 random URL-safe chars>/<sanitized file name>`).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeDirs } from '../../make-dirs.js';
import type { Db } from '../store/db.js';

/** The embedded organization's realm ID, as it appears in upload paths. */
export const REALM_ID = 2;

/**
 * A file name safe for a file system, S3 and a URL, as a Zulip server makes it: Unicode letters and digits
 * stay; other characters but `_`, `.`, `-` and spaces go; runs of spaces and dashes become one dash.
 */
export function sanitizeFileName(name: string): string {
  const kept = name
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}_\s.-]/gu, '')
    .trim();
  const value = kept.replace(/[-\s]+/gu, '-');
  return value === '' || value === '.' || value === '..' ? 'uploaded-file' : value;
}

export function newPathId(fileName: string): string {
  return [String(REALM_ID), randomBytes(1).toString('hex'), randomBytes(18).toString('base64url'), sanitizeFileName(fileName)].join('/');
}

/** The relative URL of an upload, each path segment URL-encoded. */
export const uploadUrl = (pathId: string): string => `/user_uploads/${pathId.split('/').map(encodeURIComponent).join('/')}`;

/**
 * Where an upload's bytes are under uploads/: its generated name (`files/<2 hex>/<24 random chars>`), or,
 * for a row from before the generated names, its path ID. A file name, whatever it holds (`/`, `..`, NUL,
 * 300 bytes), only ever reaches the row and the path ID, never the file system.
 */
export interface StoredUpload {
  path_id: string;
  stored_as: string | null;
}

export const FILES_DIR = 'files';
const TMP_DIR = 'tmp';

export const uploadsDir = (dataDir: string): string => join(dataDir, 'uploads');

/** A `/`-separated path under uploads/ as a file system path. */
const underUploads = (dataDir: string, relative: string): string => join(uploadsDir(dataDir), ...relative.split('/'));

export const uploadFilePath = (dataDir: string, u: StoredUpload): string => underUploads(dataDir, u.stored_as ?? u.path_id);

export const newStoredName = (): string => [FILES_DIR, randomBytes(1).toString('hex'), randomBytes(18).toString('base64url')].join('/');

/**
 * Writes an upload's bytes under its generated name: first to a temporary file, then renamed into place,
 * so a failed or interrupted write never leaves a partial file under a name a row points to.
 */
export function storeUploadBytes(dataDir: string, storedAs: string, data: Uint8Array): void {
  const file = underUploads(dataDir, storedAs);
  const tmpDir = underUploads(dataDir, TMP_DIR);
  makeDirs(tmpDir);
  const tmp = join(tmpDir, randomBytes(18).toString('base64url'));
  try {
    writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
    makeDirs(dirname(file));
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Removes an upload's file (and, for an old-style path, the directory made for it); a file already gone is not an error. */
export function deleteUploadBytes(dataDir: string, u: StoredUpload): void {
  const file = uploadFilePath(dataDir, u);
  rmSync(file, { force: true });
  if (u.stored_as !== null) return;
  try {
    rmdirSync(dirname(file));
  } catch {
    // not empty or already gone: either way nothing of this upload is left
  }
}

/** Files younger than this are left alone by the sweep: another process may be about to commit their row. */
const ORPHAN_GRACE_MS = 3600_000;

/**
 * Deletes what an interrupted upload or delete left behind: temporary files, and files under generated
 * names that no row points to (the row of a delete is committed before its file goes, so a process killed
 * in between leaves a file, never a row without one). Bounded: the temporary files and one of the 256
 * shards of files per call, `shard` chosen by the caller. Returns how many files it deleted.
 */
export function sweepUploads(db: Db, dataDir: string, nowMs: number, shard: number): number {
  let deleted = 0;
  const stale = (path: string): boolean => {
    try {
      return nowMs - statSync(path).mtimeMs > ORPHAN_GRACE_MS;
    } catch {
      return false;
    }
  };
  const tmpDir = underUploads(dataDir, TMP_DIR);
  for (const name of listDir(tmpDir)) {
    const path = join(tmpDir, name);
    if (stale(path)) {
      rmSync(path, { force: true });
      deleted++;
    }
  }
  const hex = (shard & 0xff).toString(16).padStart(2, '0');
  const shardDir = underUploads(dataDir, `${FILES_DIR}/${hex}`);
  const known = db.prepare('SELECT 1 FROM attachments WHERE stored_as = ?').pluck();
  for (const name of listDir(shardDir)) {
    const path = join(shardDir, name);
    if (known.get([FILES_DIR, hex, name].join('/')) === undefined && stale(path)) {
      rmSync(path, { force: true });
      deleted++;
    }
  }
  return deleted;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
