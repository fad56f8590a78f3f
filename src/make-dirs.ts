/** Creating chatctl's directories (the data dir, the config dir, lock dirs). */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `dir` and its missing parents (mode 0700), one level at a time. Node's own recursive mkdirSync
 * retries for ever when a file system answers ENOENT for a directory whose parent exists (`/proc/x`):
 * a busy loop in native code that not even SIGTERM interrupts. Walking up at most once per path
 * component cannot loop; the first refusal is thrown as it is (its code and path say what and where).
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let p = dir; ; p = dirname(p)) {
    if (exists(p)) break;
    missing.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const p of missing) mkdirSync(p, { mode: 0o700 });
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}
