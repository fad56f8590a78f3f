#!/usr/bin/env node
// Bulk-create benchmark (npm run bench:create): `chatctl users create --from-file people.csv --json`, the
// real binary, into a fresh embedded organization each time: 1,000 rows without passwords (BENCH_SMALL),
// 10,000 without (BENCH_LARGE), and 1,000 with a password each (BENCH_PASSWORDS). Prints the wall times
// and the budgets beside them: "seconds, not minutes" is 10,000 rows in at most 10 s on a quiet machine, and
// as a ratio within this run (which holds on a noisy one) 10,000 rows cost at most 1.2 × 10 times 1,000.
// BENCH_BIN runs another build's binary (e.g. a checkout of main, built) for a before-and-after. Not a
// test: timings vary with the machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const BIN = process.env.BENCH_BIN ?? join(root, 'bin/chatctl.cjs');
const SMALL = Number(process.env.BENCH_SMALL ?? 1000);
const LARGE = Number(process.env.BENCH_LARGE ?? 10000);
const PASSWORDS = Number(process.env.BENCH_PASSWORDS ?? 1000);
const BUDGET_LARGE_S = 10;
const BUDGET_RATIO = 1.2 * (LARGE / SMALL);

/** Runs the binary; resolves with the exit code and the stderr (stdout, the outcomes, is counted and dropped). */
function run(argv, env, stdin = '') {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let lines = 0;
    let stderr = '';
    child.stdout.on('data', (d) => {
      for (const byte of d) if (byte === 10) lines++;
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, lines, stderr }));
    child.stdin.end(stdin);
  });
}

/** A fresh home and organization; its owner (made by init) holds can_create_users. */
async function freshOrg() {
  const home = mkdtempSync(join(tmpdir(), 'chatctl-bench-create-'));
  const env = { HOME: home, CHATCTL_CONFIG_DIR: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'), PATH: process.env.PATH ?? '' };
  const dir = join(home, 'org');
  const init = await run(['init', '--data-dir', dir, '--email', 'owner@bench.test', '--password-stdin'], env, 'owner-password-1\n');
  if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);
  return { home, env };
}

/** Seconds `users create --from-file` takes for `rows` rows, with a password each when `withPasswords`. */
async function timeCreate(label, rows, withPasswords) {
  const { home, env } = await freshOrg();
  try {
    const file = join(home, 'people.csv');
    const lines = Array.from({ length: rows }, (_, i) => `person${i + 1}@bench.test,Person ${i + 1}${withPasswords ? `,pass-word-${i + 1}` : ''}`);
    writeFileSync(file, `email,full_name${withPasswords ? ',password' : ''}\n${lines.join('\n')}\n`);
    const started = process.hrtime.bigint();
    const r = await run(['users', 'create', '--from-file', file, '--json'], env);
    const s = Number(process.hrtime.bigint() - started) / 1e9;
    if (r.code !== 0 || r.lines !== rows) throw new Error(`${label}: exit ${r.code}, ${r.lines} of ${rows} outcomes: ${r.stderr}`);
    console.log(`  ${label.padEnd(34)} ${s.toFixed(2).padStart(8)} s  (${((s * 1000) / rows).toFixed(2)} ms a row)`);
    return s;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

console.log(`users create --from-file into a fresh embedded organization (${BIN})`);
const small = await timeCreate(`${SMALL} rows, no passwords`, SMALL, false);
const large = await timeCreate(`${LARGE} rows, no passwords`, LARGE, false);
await timeCreate(`${PASSWORDS} rows, a password each`, PASSWORDS, true);
const ratio = large / small;
const mark = (ok) => (ok ? 'ok' : 'OVER BUDGET');
console.log(`  ${LARGE} rows: ${large.toFixed(2)} s, budget ${BUDGET_LARGE_S} s on a quiet machine: ${mark(large <= BUDGET_LARGE_S)}`);
console.log(`  ${LARGE} / ${SMALL} rows: ${ratio.toFixed(2)}x, budget ${BUDGET_RATIO.toFixed(1)}x (linear): ${mark(ratio <= BUDGET_RATIO)}`);
