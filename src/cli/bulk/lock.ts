/**
 * A lock file for jobs that must not run twice at once (cron's attachments clean and channels sync). The lock appears with
 * its owner's PID already in it (written to a private file, then hard-linked into place, which fails when
 * the lock exists), so no run ever sees an empty lock. A lock whose process is gone is taken over; a run
 * releases only a lock that still holds its own PID.
 */
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { configDir } from '../../config/paths.js';
import { makeDirs } from '../../make-dirs.js';
import type { Context } from '../command/context.js';

export interface Lock {
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const holder = (path: string): number | null => {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
};

/** Takes the lock at `path`, or returns the PID that holds it. */
export function tryLock(path: string): Lock | { heldBy: number } {
  makeDirs(dirname(path));
  const mine = `${path}.${process.pid}`;
  writeFileSync(mine, String(process.pid), { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        linkSync(mine, path);
        return {
          release: () => {
            if (holder(path) === process.pid) rmSync(path, { force: true });
          },
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const pid = holder(path);
        if (pid !== null && (pid === process.pid || alive(pid))) return { heldBy: pid };
        // The holder is gone: remove its lock, unless another run took it over meanwhile.
        if (holder(path) === pid) rmSync(path, { force: true });
      }
    }
    return { heldBy: holder(path) ?? -1 };
  } finally {
    rmSync(mine, { force: true });
  }
}

/**
 * A file of one organization's own: in the data dir of an embedded organization (so every HOME using it
 * shares it), or in the config dir's `dir`, named after the server, for a remote one.
 */
export function organizationFile(ctx: Pick<Context, 'env' | 'target'>, dir: string, name: string, extension: string): string {
  const target = ctx.target();
  if (target.kind === 'embedded') return join(target.dataDir, `${name}.${extension}`);
  return join(configDir(ctx.env), dir, `${name}-${target.site.replace(/[^a-z0-9.-]+/gi, '_')}.${extension}`);
}

/** One `job` at a time per organization: its lock is an organization's file (organizationFile). */
export function tryOrganizationLock(ctx: Pick<Context, 'env' | 'target'>, job: string): Lock | { heldBy: number } {
  return tryLock(organizationFile(ctx, 'locks', job, 'lock'));
}
