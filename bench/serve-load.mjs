#!/usr/bin/env node
// Load benchmark of `chatctl serve` (npm run bench:serve): the p99 latency of a cheap `GET /users/me`
// against a spawned `serve` on 127.0.0.1, alone and while other clients load it, as ratios beside the
// budgets of issue 9. Not a test: timings vary with the machine; the ratios are what the budgets are about.
//
// Failed logins come from rotating loopback addresses (127.0.0.2 ...), so that the per-source limit on
// failures (src/server/login-failures.ts) does not turn them into cheap 429s: every one hashes.
// The largest request: the input limits of issue 9 point 1 arrive separately, so this takes a `POST
// /typing` to 1,000 users and a 10,000-character message (a Zulip server's longest) as large but legal.
//
// BENCH_SAMPLES: requests measured per phase (400). BENCH_CPU_PROF=DIR: serve writes a V8 CPU profile there.
import { call, makeOrganization, OWNER, OWNER_PASSWORD, startServe } from './serve-fixture.mjs';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 400);
const LOADERS = 4;
const USERS = 1000;

const org = await makeOrganization('chatctl-bench-serve-', USERS);
const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
const serve = await startServe(org, profile);
const { site } = serve;

/** One request; resolves with [status, milliseconds, body]. */
const send = async (method, path, o) => {
  const r = await call(site, method, path, o);
  return [r.status, r.ms, r.body];
};

const [, , login] = await send('POST', '/fetch_api_key', { form: { username: OWNER, password: OWNER_PASSWORD } });
const auth = `${OWNER}:${JSON.parse(login).api_key}`;
const [, , me] = await send('GET', '/users', { auth });
const memberIds = JSON.parse(me)
  .members.filter((u) => u.email.startsWith('member'))
  .map((u) => u.user_id);

const p99 = (times) => [...times].sort((a, b) => a - b)[Math.ceil(times.length * 0.99) - 1];

let probes = 0;

/**
 * The p99 of SAMPLES sequential `GET /users/me` while `loaders` clients each run `load` in a loop. Each probe
 * carries a query parameter of its own, so that serve's answer cache (src/server/answer-cache.ts) cannot answer
 * it: alone, every probe would be a kept answer, and under a load that writes (which empties the cache at every
 * write) a whole request, so the ratio would measure the cache rather than how much the load holds others up.
 */
async function measure(loaders, load) {
  let running = true;
  const statuses = new Map();
  const loops = Array.from({ length: loaders }, async (_, k) => {
    for (let i = 0; running; i++) {
      const [status] = await load(k, i);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  });
  // Let the load start before measuring.
  if (loaders) await new Promise((r) => setTimeout(r, 300));
  const times = [];
  for (let i = 0; i < SAMPLES; i++) {
    const [status, ms] = await send('GET', `/users/me?probe=${probes++}`, { auth });
    if (status !== 200) throw new Error(`GET /users/me answered ${status}`);
    times.push(ms);
  }
  running = false;
  await Promise.all(loops);
  return { p99: p99(times), statuses };
}

const run = `${process.pid}`;
let address = 0;
const phases = [
  [
    'while 4 clients create users with passwords',
    3,
    LOADERS,
    (k, i) => send('POST', '/users', { auth, form: { email: `new-${run}-${k}-${i}@bench.test`, full_name: `New ${k} ${i}`, password: 'a-long-password' } }),
  ],
  [
    'while 4 clients fail logins with made-up usernames',
    3,
    LOADERS,
    (k, i) =>
      send('POST', '/fetch_api_key', { form: { username: `nobody-${k}-${i}@bench.test`, password: 'wrong' }, from: `127.0.0.${2 + (address++ % 250)}` }),
  ],
  ['while one client sends typing to 1,000 users', 5, 1, () => send('POST', '/typing', { auth, form: { op: 'start', to: JSON.stringify(memberIds) } })],
  [
    'while one client sends 10,000-character messages',
    5,
    1,
    (_k, i) =>
      send('POST', '/messages', {
        auth,
        form: { type: 'stream', to: 'general', topic: `load ${i % 20}`, content: `**bench** ${i} `.padEnd(10_000, 'lorem ipsum dolor sit amet ') },
      }),
  ],
];

try {
  await measure(0, null); // warm-up
  // Each phase against a baseline measured right before it: on a shared machine the latency alone drifts
  // between phases more than a fixed baseline would tolerate.
  console.log(`GET /users/me p99 over ${SAMPLES} requests, alone (just before each phase) and under load`);
  console.log(`${'phase'.padEnd(52)} ${'alone'.padStart(7)} ${'loaded'.padStart(7)} ${'ratio'.padStart(7)} ${'budget'.padStart(7)}  load answers`);
  let over = 0;
  for (const [name, budget, loaders, load] of phases) {
    const alone = (await measure(0, null)).p99;
    const { p99: p, statuses } = await measure(loaders, load);
    const ratio = p / alone;
    if (ratio > budget) over++;
    const answers = [...statuses].map(([s, n]) => `${n}×${s}`).join(' ');
    console.log(
      `${name.padEnd(52)} ${alone.toFixed(1).padStart(7)} ${p.toFixed(1).padStart(7)} ${`×${ratio.toFixed(1)}`.padStart(7)} ${`≤ ×${budget}`.padStart(7)}  ${answers}${ratio > budget ? '  OVER BUDGET' : ''}`,
    );
  }
  process.exitCode = over ? 1 : 0;
} finally {
  await serve.stop();
  org.remove();
}
