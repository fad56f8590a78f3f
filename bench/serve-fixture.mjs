// What the `serve` benchmarks share: an embedded organization in a temporary HOME (an owner and `users`
// members, inserted straight through the store), and `chatctl serve` spawned on it on a free port.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'chatctl.cjs');
export const OWNER = 'boss@bench.test';
export const OWNER_PASSWORD = 'bench-password-1';

/** A fresh data dir holding the owner and `users` members; `remove()` deletes it all. */
export async function makeOrganization(prefix, users) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const dataDir = join(work, 'data');
  const env = { ...process.env, HOME: work, CHATCTL_CONFIG_DIR: join(work, 'config') };
  delete env.CHATCTL_DATA_DIR;
  delete env.CHATCTL_PROFILE;
  const init = spawnSync(process.execPath, [bin, 'init', '--data-dir', dataDir, '--email', OWNER, '--password-stdin'], { env, input: `${OWNER_PASSWORD}\n` });
  if (init.status !== 0) throw new Error(`init failed: ${init.stderr}`);
  const { openDb } = await import(join(root, 'dist/server/store/db.js'));
  const { insertUser } = await import(join(root, 'dist/server/model/users.js'));
  const db = openDb(dataDir);
  const now = Math.floor(Date.now() / 1000);
  db.transaction(() => {
    for (let i = 0; i < users; i++) insertUser(db, { email: `member${i}@bench.test`, full_name: `Member ${i}` }, now);
  }).immediate();
  db.close();
  return { dataDir, env, remove: () => rmSync(work, { recursive: true, force: true }) };
}

/**
 * `chatctl serve` on the organization, `nodeArgs` before the script (--cpu-prof ...); resolves with the
 * child and its site (`http://127.0.0.1:PORT`) once it says where it listens. Its log lines are read and
 * dropped, or it would block on a full pipe.
 */
export async function startServe({ dataDir, env }, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve', '--data-dir', dataDir, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const site = await new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${text}`)), 20_000);
    child.stderr.on('data', (d) => {
      if (text.length < 10_000) text += d.toString();
      const m = /at (http:\/\/127\.0\.0\.1:\d+)\/api\/v1/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  const stop = async () => {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((r) => child.on('exit', r));
  };
  return { child, site, stop };
}
