#!/usr/bin/env node
// Start-up benchmark (npm run bench): medians of `chatctl --version` and `chatctl users list --json` on an
// embedded organization of 10,000 users, against `node -e 0` and against a floor (a bare script doing the same
// read and JSON) in the same run, with issue 12's budgets beside them: `--version` ≤ 1.2× `node -e 0`, `users
// list --json` ≤ 1.25× the floor. Not a test: timings vary with the machine; the ratios are what the budgets are about.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const WARMUP = 3;
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'chatctl.cjs');

const { openDb } = await import(join(root, 'dist/server/store/db.js'));
const { createOrganization } = await import(join(root, 'dist/server/setup.js'));
const { seedUsers } = await import(join(root, 'dist/server/model/bulk-seed.js'));
const { hashPassword } = await import(join(root, 'dist/server/secrets.js'));

const work = mkdtempSync(join(tmpdir(), 'chatctl-bench-'));
const dataDir = join(work, 'data');
const configDir = join(work, 'config');
const db = openDb(dataDir);
const now = Math.floor(Date.now() / 1000);
const owner = createOrganization(db, {
  name: 'Bench',
  ownerEmail: 'owner@bench.test',
  ownerName: 'Owner',
  passwordHash: await hashPassword('bench-password'),
  now,
});
const ROLES = [200, 300, 400, 400, 400, 600];
const others = Array.from({ length: USERS - 1 }, (_, i) => ({ email: `user${i + 1}@bench.test`, full_name: `User ${i + 1}`, role: ROLES[(i + 1) % 6] }));
db.transaction(() => seedUsers(db, others, now))();
db.close();
mkdirSync(configDir, { mode: 0o700 });
writeFileSync(
  join(configDir, 'config.json'),
  JSON.stringify({ defaultProfile: 'bench', profiles: { bench: { embedded: dataDir, email: owner.email, apiKey: owner.api_key } } }),
  { mode: 0o600 },
);

const baseEnv = { ...process.env, HOME: work, CHATCTL_CONFIG_DIR: configDir };
delete baseEnv.CHATCTL_DATA_DIR;
delete baseEnv.CHATCTL_PROFILE;

/**
 * Medians of each command's run time, the commands run in turn within each round (not one command's runs
 * back to back), so that a machine busy with other work for a while slows every command alike.
 */
function medians(commands, env) {
  const times = commands.map(() => []);
  for (let i = 0; i < WARMUP + RUNS; i++) {
    commands.forEach(([cmd, args], k) => {
      const t = process.hrtime.bigint();
      const r = spawnSync(cmd, args, { env, cwd: root, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      if (i >= WARMUP) times[k].push(ms);
    });
  }
  return times.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]);
}

// What any program pays to print these users from this store, with no CLI, no auth and no router: one
// SQLite query, the wire objects, JSON on stdout. It shows how much of the budget the data itself takes.
const FLOOR = `
import Database from 'better-sqlite3';
const db = new Database(process.argv[1], { readonly: true });
const rows = db.prepare('SELECT id, email, full_name, role, is_active, is_bot, bot_type, bot_owner_id, date_joined, timezone, avatar_version, is_imported_stub FROM users ORDER BY id').all();
process.stdout.write(JSON.stringify(rows.map((t) => ({ user_id: t.id, delivery_email: t.email, email: t.email, full_name: t.full_name,
  date_joined: new Date(t.date_joined * 1000).toISOString(), is_active: t.is_active === 1, is_owner: t.role === 100, is_admin: t.role <= 200,
  is_guest: t.role === 600, is_bot: t.is_bot === 1, bot_type: t.bot_type, role: t.role, timezone: t.timezone, avatar_url: null,
  avatar_version: t.avatar_version, is_imported_stub: t.is_imported_stub === 1 }))) + '\\n');
`;

// Each row: name, median, and the budget as [ratio, what it is a ratio of] (null: no budget).
function run(label, env) {
  const [baseline, version, list, floor] = medians(
    [
      [process.execPath, ['-e', '0']],
      [process.execPath, [bin, '--version']],
      [process.execPath, [bin, 'users', 'list', '--json']],
      [process.execPath, ['--input-type=module', '-e', FLOOR, join(dataDir, 'chatctl.db')]],
    ],
    env,
  );
  const rows = [
    ['node -e 0', baseline, null],
    ['chatctl --version', version, [1.2, 'node -e 0', baseline]],
    [`chatctl users list --json (${USERS} users)`, list, [1.25, 'floor', floor]],
    ['  floor: bare SQLite read + JSON, no CLI', floor, null],
  ];
  console.log(`\n${label}: median of ${RUNS} rounds (each command once a round) after ${WARMUP} warm-up, Node ${process.version}`);
  console.log(`${'command'.padEnd(44)} ${'median'.padStart(9)} ${'/ node'.padStart(7)}  budget`);
  let ok = true;
  for (const [name, ms, budget] of rows) {
    let verdict = name === 'node -e 0' ? 'baseline' : 'reference';
    if (budget !== null) {
      const [limit, of, base] = budget;
      const ratio = ms / base;
      if (ratio > limit) ok = false;
      verdict = `${ratio.toFixed(2)}x ${of}, budget ${limit}x: ${ratio <= limit ? 'within' : 'OVER'}`;
    }
    console.log(`${name.padEnd(44)} ${`${ms.toFixed(1)} ms`.padStart(9)} ${`${(ms / baseline).toFixed(2)}x`.padStart(7)}  ${verdict}`);
  }
  return ok;
}

try {
  const ok = run('default environment', baseEnv);
  if (baseEnv.NODE_EXTRA_CA_CERTS) {
    const without = { ...baseEnv };
    delete without.NODE_EXTRA_CA_CERTS;
    run('without NODE_EXTRA_CA_CERTS (Node 20 parses that bundle at every start)', without);
  }
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
