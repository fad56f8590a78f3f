/**
 * File modes of a data dir: the database holds every API key and password hash, and uploads are private,
 * so the dir is 0700 and what it holds 0600, whatever umask or an earlier version left.
 */
import { chmodSync, lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';

/** The entry itself, never what a symbolic link points to. */
const lstatOrNull = (path: string): Stats | null => {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
};

/**
 * Sets `path` to `mode` if others (or its group) can reach it; true if it did. Only chatctl's own regular
 * files and directories: a symbolic link (to a device, say) is left alone, so nothing outside the data
 * dir ever changes mode.
 */
function tighten(path: string, mode: number): boolean {
  const st = lstatOrNull(path);
  if (!st || !(st.isFile() || st.isDirectory()) || (st.mode & 0o077) === 0) return false;
  chmodSync(path, mode);
  return true;
}

/** Every file and directory under `dir`, tightened; returns how many were changed. */
function tightenTree(dir: string): number {
  let changed = 0;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (tighten(path, 0o700)) changed++;
      changed += tightenTree(path);
    } else if (e.isFile() && tighten(path, 0o600)) changed++;
  }
  return changed;
}

/**
 * Tightens the data dir, the named files in it and the uploads, and says so once. Every run checks a
 * handful of modes; the walk over the uploads happens only when the dir or the uploads dir was found open,
 * that is once (files are written 0600 in 0700 directories from then on).
 */
export function tightenDataDir(dataDir: string, files: readonly string[], warn: (line: string) => void): void {
  const changed: string[] = [];
  const dirWasOpen = tighten(dataDir, 0o700);
  if (dirWasOpen) changed.push(dataDir);
  for (const f of files) if (tighten(join(dataDir, f), 0o600)) changed.push(f);
  const uploads = join(dataDir, 'uploads');
  const uploadsWereOpen = tighten(uploads, 0o700);
  if (dirWasOpen || uploadsWereOpen) {
    const n = tightenTree(uploads) + (uploadsWereOpen ? 1 : 0);
    if (n > 0) changed.push(`uploads (${n} ${n === 1 ? 'entry' : 'entries'})`);
  }
  if (changed.length) warn(`others could open ${changed.join(', ')} in ${dataDir}: made private to you (directories 0700, files 0600)`);
}
