// The organization the org benchmarks run on (bench/org.mjs, bench/org-mirror.mjs): 10,000 users (or `users`),
// 500 channels of 10-50 members and 200 groups of 10-100 members, seeded through the model's bulk path in a new
// data dir, with the environment (a private HOME and config dir, the owner's key) chatctl runs in against it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prng, sample } from './scale-seed.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'chatctl.cjs');
export const CHANNELS = 500;
export const GROUPS = 200;

export async function seed(users) {
  const work = mkdtempSync(join(tmpdir(), 'chatctl-org-bench-'));
  const dataDir = join(work, 'data');
  const { openDb } = await import(join(root, 'dist/server/store/db.js'));
  const { createOrganization } = await import(join(root, 'dist/server/setup.js'));
  const { seedUsers, seedSubscriptions, seedGroupLike } = await import(join(root, 'dist/server/model/bulk-seed.js'));
  const { insertChannel } = await import(join(root, 'dist/server/model/channels.js'));
  const { createGroup } = await import(join(root, 'dist/server/model/group-changes.js'));
  const { hashPassword } = await import(join(root, 'dist/server/secrets.js'));
  const rand = prng(users);
  const db = openDb(dataDir);
  const now = Math.floor(Date.now() / 1000);
  const owner = createOrganization(db, {
    name: 'Org bench',
    ownerEmail: 'owner@org.test',
    ownerName: 'Owner',
    passwordHash: await hashPassword('org-bench-1'),
    now,
  });
  const ids = [owner.id];
  db.transaction(() => {
    const rows = [];
    for (let i = 1; i < users; i++) rows.push({ email: `user${i}@org.test`, full_name: `User ${i}`, role: i % 100 === 0 ? 200 : 400 });
    ids.push(...seedUsers(db, rows, now));
  })();
  db.transaction(() => {
    for (let c = 0; c < CHANNELS; c++) {
      const id = insertChannel(
        db,
        {
          name: `channel-${c}`,
          description: `Channel ${c}`,
          invite_only: c % 10 === 0,
          is_web_public: false,
          folder_id: null,
          is_default: c === 0,
          creator_id: owner.id,
        },
        now,
      ).id;
      seedSubscriptions(db, id, sample(rand, ids, 10 + Math.floor(rand() * 41)));
    }
    const template = createGroup(db, { emit() {} }, owner, { name: 'group-0', description: 'A seeded group', members: sample(rand, ids.slice(1), 50) }, now);
    for (let g = 1; g < GROUPS; g++) seedGroupLike(db, template, `group-${g}`, sample(rand, ids.slice(1), 10 + Math.floor(rand() * 91)));
  })();
  const apiKey = db.prepare('SELECT api_key FROM users WHERE id = ?').pluck().get(owner.id);
  db.close();
  const env = { ...process.env, HOME: work, CHATCTL_CONFIG_DIR: join(work, 'config'), ZULIP_EMAIL: 'owner@org.test', ZULIP_API_KEY: apiKey };
  delete env.CHATCTL_DATA_DIR;
  delete env.CHATCTL_PROFILE;
  return { work, dataDir, env, remove: () => rmSync(work, { recursive: true, force: true }) };
}

/** Runs chatctl with `args` in `env` as a child process; its time, exit status (0, or 10: changes pending) and stderr. */
export function timed(args, env) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0 && r.status !== 10) throw new Error(`chatctl ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, status: r.status, stderr: r.stderr };
}
