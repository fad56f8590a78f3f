#!/usr/bin/env node
// Latency of seven everyday requests to `chatctl serve` (npm run bench:serve-everyday), beside the floor: a bare
// node:http server (bench/bare-server.mjs) in a process of its own answering each request with the bytes serve
// answered it (status, headers and body, read off the wire first). Issue 24 point 7's budget: serve's p50 at most
// 2× the floor's for the reads and 3× for the writes, in the same run.
//
// One request at a time, from this process, with fetch and keep-alive (as a client library would): each request
// goes to the bare server, then to serve, in rotating order, so that a machine shared with other work moves both
// alike. Every request to serve comes from another caller (user and API key) than the one before, and writes
// come between reads, so no answer serve keeps while the store is unchanged (answer-cache.ts) stands in for the
// work: each request is a whole one, as from a crowd of users.
// Not a test: the exit code is 1 when a ratio is over its budget.
//
// BENCH_ROUNDS (5) rounds of BENCH_SAMPLES (100) of each request after BENCH_WARMUP (50) untimed ones;
// BENCH_USERS (100) members, every one a caller in turn, and BENCH_ADMINS (10) administrators for PATCH /users/{id}.
// The p50 of a request is the median of its rounds' p50s. BENCH_CPU_PROF=DIR: serve writes a V8 CPU profile there
// (sampled every 100 µs). BENCH_ONLY=A,B: only the requests whose labels start with A or B (to profile one read
// with one write between its turns).
import { cpus, loadavg } from 'node:os';
import { ADDED_BY_NODE, makeOrganization, OWNER, OWNER_PASSWORD, startBare, startServe } from './serve-fixture.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);
const USERS = Number(process.env.BENCH_USERS ?? 100);
const ADMINS = Number(process.env.BENCH_ADMINS ?? 10);
const BUDGET = { read: 2, write: 3 };
const CHANNEL = 'everyday';
const API = '/api/v1';

const basic = (email, key) => `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`;

/** One request; resolves with its status, the headers as sent (but Node's own), the body and the time it took. */
async function exchange(site, { method, path, query = '', form }, authorization) {
  const headers = { authorization };
  let body;
  if (form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(form).toString();
  }
  const started = performance.now();
  const res = await fetch(`${site}${API}${path}${query}`, { method, headers, body });
  const text = await res.text();
  const ms = performance.now() - started;
  const sent = {};
  for (const [k, v] of res.headers) if (!ADDED_BY_NODE.has(k)) sent[k] = v;
  return { status: res.status, headers: sent, body: text, ms };
}

const org = await makeOrganization('chatctl-bench-everyday-', USERS + ADMINS);
const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
const ONLY = process.env.BENCH_ONLY?.split(',');
const serve = await startServe(org, profile);
let bare;
try {
  const login = await fetch(`${serve.site}${API}/fetch_api_key`, {
    method: 'POST',
    body: new URLSearchParams({ username: OWNER, password: OWNER_PASSWORD }),
  }).then((r) => r.json());
  const owner = basic(OWNER, login.api_key);
  const must = async (site, request, authorization) => {
    const r = await exchange(site, request, authorization);
    if (r.status !== 200) throw new Error(`${request.method} ${request.path} answered ${r.status}: ${r.body}`);
    return r;
  };

  // The callers: every member with the key serve holds for it, and the administrators.
  const rows = org.members;
  const members = rows.slice(0, USERS).map((u) => ({ ...u, authorization: basic(u.email, u.api_key) }));
  const admins = rows.slice(USERS).map((u) => ({ ...u, authorization: basic(u.email, u.api_key) }));
  for (const a of admins) await must(serve.site, { method: 'PATCH', path: `/users/${a.id}`, form: { role: '200' } }, owner);
  // A channel of 9 (the owner and 8 members) with history to read.
  const principals = JSON.stringify(members.slice(0, 8).map((m) => m.id));
  await must(serve.site, { method: 'POST', path: '/users/me/subscriptions', form: { subscriptions: JSON.stringify([{ name: CHANNEL }]), principals } }, owner);
  const send = (i) => ({
    method: 'POST',
    path: '/messages',
    form: { type: 'stream', to: CHANNEL, topic: 'daily', content: `Update number ${i}: all **good**.` },
  });
  for (let i = 0; i < 40; i++) await must(serve.site, send(i), owner);
  const target = members[members.length - 1];

  let sent = 0;
  let renamed = 0;
  const requests = [
    { label: 'GET /users/me', kind: 'read', make: () => ({ method: 'GET', path: '/users/me' }) },
    { label: 'GET /users', kind: 'read', make: () => ({ method: 'GET', path: '/users' }) },
    { label: 'GET /streams', kind: 'read', make: () => ({ method: 'GET', path: '/streams' }) },
    {
      label: 'GET /messages (20, narrow)',
      kind: 'read',
      make: () => ({
        method: 'GET',
        path: '/messages',
        query: `?${new URLSearchParams({ anchor: 'newest', num_before: '20', num_after: '0', narrow: JSON.stringify([{ operator: 'channel', operand: CHANNEL }]) })}`,
      }),
    },
    { label: 'POST /messages (channel of 9)', kind: 'write', make: () => send(100 + sent++) },
    {
      label: 'POST /users/me/presence',
      kind: 'write',
      make: () => ({ method: 'POST', path: '/users/me/presence', form: { status: 'active', new_user_input: 'true' } }),
    },
    {
      label: 'PATCH /users/{id}',
      kind: 'write',
      admin: true,
      make: () => ({ method: 'PATCH', path: `/users/${target.id}`, form: { full_name: `Renamed member ${renamed++}` } }),
    },
  ];
  if (ONLY) requests.splice(0, requests.length, ...requests.filter((r) => ONLY.some((prefix) => r.label.startsWith(prefix))));
  let nextMember = 0;
  let nextAdmin = 0;
  const callerFor = (r) => (r.admin ? admins[nextAdmin++ % admins.length] : members[nextMember++ % members.length]).authorization;

  // The floor answers each route with the bytes serve answered it.
  const answers = {};
  for (const r of requests) {
    const request = r.make();
    const { status, headers, body } = await must(serve.site, request, callerFor(r));
    answers[`${request.method} ${API}${request.path}`] = { status, headers, body };
  }
  bare = await startBare({ BENCH_BARE_RESPONSES: JSON.stringify(answers) });
  for (const r of requests) {
    const request = r.make();
    const got = await exchange(bare.site, request, callerFor(r));
    const want = answers[`${request.method} ${API}${request.path}`];
    if (got.body !== want.body || JSON.stringify(got.headers) !== JSON.stringify(want.headers)) {
      throw new Error(`the bare server does not answer ${r.label} with the bytes serve answered`);
    }
  }

  const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rounds = requests.map(() => ({ bare: [], serve: [] }));
  for (let round = -1; round < ROUNDS; round++) {
    const samples = round < 0 ? WARMUP : SAMPLES;
    const times = requests.map(() => ({ bare: [], serve: [] }));
    for (let i = 0; i < samples; i++) {
      for (const [k, r] of requests.entries()) {
        const sides = (i + k) % 2 === 0 ? ['bare', 'serve'] : ['serve', 'bare'];
        for (const side of sides) {
          const site = side === 'bare' ? bare.site : serve.site;
          const got = await exchange(site, r.make(), callerFor(r));
          if (got.status !== 200) throw new Error(`${side}: ${r.label} answered ${got.status}: ${got.body.slice(0, 300)}`);
          times[k][side].push(got.ms);
        }
      }
    }
    if (round < 0) continue;
    for (const [k, t] of times.entries()) {
      rounds[k].bare.push(p50(t.bare));
      rounds[k].serve.push(p50(t.serve));
    }
    console.error(`round ${round + 1} of ${ROUNDS}: ${times.map((t) => `${(p50(t.serve) / p50(t.bare)).toFixed(2)}×`).join(' ')}`);
  }

  console.log(
    `${ROUNDS} rounds of ${SAMPLES} of each request after ${WARMUP} of warm-up, one at a time with fetch and keep-alive, ` +
      `a different caller each time; ${USERS + ADMINS + 1} users; Node ${process.version}; p50 = median of the rounds' p50s; ` +
      `load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`,
  );
  console.log(`${'request'.padEnd(30)} ${'bare node:http'.padStart(14)} ${'serve'.padStart(9)} ${'ratio'.padStart(7)} ${'budget'.padStart(7)}  verdict`);
  let over = false;
  for (const [k, r] of requests.entries()) {
    const b = p50(rounds[k].bare);
    const s = p50(rounds[k].serve);
    const ratio = s / b;
    const budget = BUDGET[r.kind];
    over ||= ratio > budget;
    console.log(
      `${r.label.padEnd(30)} ${`${b.toFixed(2)} ms`.padStart(14)} ${`${s.toFixed(2)} ms`.padStart(9)} ${`×${ratio.toFixed(2)}`.padStart(7)} ${`≤ ×${budget}`.padStart(7)}  ${ratio <= budget ? 'within' : 'OVER BUDGET'}`,
    );
  }
  process.exitCode = over ? 1 : 0;
} finally {
  await bare?.stop();
  await serve.stop();
  org.remove();
}
