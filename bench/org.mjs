#!/usr/bin/env node
// Organization-as-code benchmark (npm run bench:org): an embedded organization of 10,000 users, 500 channels of
// 10-50 members and 200 groups of 10-100 members, seeded through the model's bulk path; `chatctl org export` and
// `chatctl org plan` (of that export: in sync) timed as child processes beside the 5 s budget, then the same over
// HTTP through `chatctl serve`, with the requests export sends at 2,000 and at 10,000 users side by side: they
// grow with channels and groups, never with users. Not a test: the verdicts are for people; exit 1 when one is OVER.
import { join } from 'node:path';
import { CHANNELS, GROUPS, seed, timed } from './org-fixture.mjs';
import { startServe } from './serve-fixture.mjs';

const BUDGET_MS = 5000;

const requestsOf = (stderr) => Number(/\((\d+) requests\)/.exec(stderr)?.[1] ?? Number.NaN);
const verdict = (ms) => (ms <= BUDGET_MS ? 'ok' : 'OVER');
let over = false;

const sizes = [2000, 10_000];
const orgs = {};
for (const users of sizes) orgs[users] = await seed(users);
const big = orgs[10_000];
const file = join(big.work, 'org.yaml');

console.log(`org bench: ${sizes.at(-1)} users, ${CHANNELS} channels, ${GROUPS} groups (embedded, child processes)`);
const exp = timed(['--data-dir', big.dataDir, 'org', 'export', '-o', file], big.env);
const plan = timed(['--data-dir', big.dataDir, 'org', 'plan', '-f', file], big.env);
for (const [what, r] of [
  ['org export', exp],
  ['org plan (in sync)', plan],
]) {
  console.log(`  ${what.padEnd(20)} ${(r.ms / 1000).toFixed(2).padStart(6)} s   budget ${BUDGET_MS / 1000} s   ${verdict(r.ms)}`);
  over ||= r.ms > BUDGET_MS;
}
if (plan.status !== 0) {
  console.log(`  plan of the export was not empty (exit ${plan.status})`);
  over = true;
}

console.log('over HTTP (chatctl serve): requests of org export');
console.log(`  ${'users'.padStart(8)} ${'channels'.padStart(9)} ${'groups'.padStart(7)} ${'requests'.padStart(9)} ${'time'.padStart(8)}`);
for (const users of sizes) {
  const org = orgs[users];
  const server = await startServe({ dataDir: org.dataDir, env: org.env });
  try {
    const r = timed(['--server', server.site, 'org', 'export', '-o', join(org.work, 'http.yaml')], org.env);
    console.log(
      `  ${String(users).padStart(8)} ${String(CHANNELS).padStart(9)} ${String(GROUPS).padStart(7)} ${String(requestsOf(r.stderr)).padStart(9)} ${(r.ms / 1000).toFixed(2).padStart(6)} s`,
    );
  } finally {
    await server.stop();
  }
}
for (const org of Object.values(orgs)) org.remove();
process.exit(over ? 1 : 0);
