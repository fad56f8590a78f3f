/**
 * Uploaded files on disk: `<data dir>/uploads/<path_id>`, with path IDs shaped as a Zulip server makes them
 * (`<realm id>/<2 hex>/<24 random URL-safe chars>/<sanitized file name>`).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The embedded organization's realm ID, as it appears in upload paths. */
export const REALM_ID = 2;

/**
 * A file name safe for a file system, S3 and a URL, as a Zulip server makes it: Unicode letters and digits
 * stay; other characters but `_`, `.`, `-` and spaces go; runs of spaces and dashes become one dash.
 */
export function sanitizeFileName(name: string): string {
  const kept = name.normalize('NFKC').replace(/[^\p{L}\p{N}_\s.-]/gu, '').trim();
  const value = kept.replace(/[-\s]+/gu, '-');
  return value === '' || value === '.' || value === '..' ? 'uploaded-file' : value;
}

export function newPathId(fileName: string): string {
  return [String(REALM_ID), randomBytes(1).toString('hex'), randomBytes(18).toString('base64url'), sanitizeFileName(fileName)].join('/');
}

/** The relative URL of an upload, each path segment URL-encoded. */
export const uploadUrl = (pathId: string): string => `/user_uploads/${pathId.split('/').map(encodeURIComponent).join('/')}`;

const filePath = (dataDir: string, pathId: string): string => join(dataDir, 'uploads', ...pathId.split('/'));

export function storeUploadBytes(dataDir: string, pathId: string, data: Uint8Array): void {
  const file = filePath(dataDir, pathId);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, data, { mode: 0o600, flag: 'wx' });
}

/** Removes an upload's file and the directory made for it; a file already gone is not an error. */
export function deleteUploadBytes(dataDir: string, pathId: string): void {
  const file = filePath(dataDir, pathId);
  rmSync(file, { force: true });
  try {
    rmdirSync(dirname(file));
  } catch {
    // not empty or already gone: either way nothing of this upload is left
  }
}
