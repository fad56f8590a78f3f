#!/usr/bin/env node
// Rehearsal benchmark (npm run bench:org-mirror): `chatctl org mirror` of an organization of 10,000 users, 500
// channels and 200 groups (bench/org-fixture.mjs) served over HTTP by `chatctl serve`, timed as a child process
// beside the 30 s budget of issue 27, with the requests it sent; then the three-way `org plan --desired` of the
// untouched copy against the original (in sync). Not a test: the verdicts are for people; exit 1 when one is OVER.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHANNELS, GROUPS, seed, timed } from './org-fixture.mjs';
import { startServe } from './serve-fixture.mjs';

const BUDGET_MS = 30_000;
const USERS = 10_000;

const org = await seed(USERS);
const server = await startServe({ dataDir: org.dataDir, env: org.env });
let over = false;
try {
  // The original is reached as a stored profile, as a person mirroring production would.
  const { ZULIP_EMAIL: email, ZULIP_API_KEY: apiKey, ...env } = org.env;
  mkdirSync(env.CHATCTL_CONFIG_DIR, { recursive: true, mode: 0o700 });
  const config = { defaultProfile: 'prod', profiles: { prod: { server: server.site, email, apiKey } } };
  writeFileSync(join(env.CHATCTL_CONFIG_DIR, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  const copy = join(org.work, 'copy');
  console.log(`org mirror bench: ${USERS} users, ${CHANNELS} channels, ${GROUPS} groups over HTTP (chatctl serve, child processes)`);
  const mirror = timed(['org', 'mirror', '--from', 'prod', '--to', copy], env);
  const requests = /; (\d+) requests;/.exec(mirror.stderr)?.[1] ?? '?';
  const plan = timed(['org', 'plan', '--desired', copy, '--against', 'prod'], env);
  for (const [what, r, budget] of [
    [`org mirror (${requests} requests)`, mirror, BUDGET_MS],
    ['org plan --desired (in sync)', plan, undefined],
  ]) {
    const verdict = budget === undefined ? '' : `   budget ${budget / 1000} s   ${r.ms <= budget ? 'ok' : 'OVER'}`;
    console.log(`  ${what.padEnd(32)} ${(r.ms / 1000).toFixed(2).padStart(6)} s${verdict}`);
    if (budget !== undefined) over ||= r.ms > budget;
  }
  if (plan.status !== 0) {
    console.log(`  the plan of an untouched copy was not empty (exit ${plan.status})`);
    over = true;
  }
} finally {
  await server.stop();
  org.remove();
}
process.exit(over ? 1 : 0);
