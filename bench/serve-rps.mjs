#!/usr/bin/env node
// Throughput benchmark of `chatctl serve` (npm run bench:serve-rps): requests per second and p99 latency of
// `GET /users/me` with 16 keep-alive connections, against a bare node:http server (bench/bare-server.mjs)
// answering the same bytes (the status, headers and body serve answered, read off the wire first). Both run
// as child processes and are driven by the same load generator (bench/load-generator.mjs), a process of its
// own too. The budget (issue 12): serve's requests/s ≥ 0.8× the bare server's, its p99 ≤ 2× the bare one's.
// Each round measures every side, one right after the other, in rotating order; the ratios are over all
// rounds, so a machine shared with other work moves every side alike. Not a test: the exit code is 1 when over.
//
// A third side, for reference: the bare server doing WORK_US of busy work per request, about what serve's
// router takes in-process for this request (authentication, a read transaction, the handler). It shows what
// the machine allows a server that does anything per request: the load generator then waits for answers
// instead of keeping its core busy, and every answer has to wake it.
//
// BENCH_ROUNDS (3), BENCH_WARMUP_MS (1000), BENCH_DURATION_MS (5000): rounds, and each side's warm-up and
// timed part in a round. BENCH_USERS (100): members of the organization. BENCH_WORK_US (30): the reference's
// work. BENCH_CPU_PROF=DIR: serve writes a V8 CPU profile there.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { ADDED_BY_NODE, makeOrganization, OWNER, OWNER_PASSWORD, root, startBare, startServe } from './serve-fixture.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 1000);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5000);
const USERS = Number(process.env.BENCH_USERS ?? 100);
const WORK_US = Number(process.env.BENCH_WORK_US ?? 30);
const CONNECTIONS = 16;
const BUDGET = { rps: 0.8, p99: 2 };
const PATH = '/api/v1/users/me';

/** One request on a fresh connection; resolves with the status, the headers as sent, and the body. */
function exchange(site, method, path, headers, body = '') {
  return new Promise((resolve, reject) => {
    const req = request(`${site}${path}`, { method, headers: { ...headers, 'content-length': Buffer.byteLength(body) }, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const sent = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (!ADDED_BY_NODE.has(res.rawHeaders[i].toLowerCase())) sent[res.rawHeaders[i]] = res.rawHeaders[i + 1];
        }
        resolve({ status: res.statusCode, headers: sent, body: Buffer.concat(chunks).toString() });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The load generator's figures for one side of a round. */
function drive(site, authorization) {
  return new Promise((resolve, reject) => {
    const gen = spawn(
      process.execPath,
      [join(root, 'bench', 'load-generator.mjs'), site, PATH, authorization, String(CONNECTIONS), String(WARMUP_MS), String(DURATION_MS)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    gen.stdout.on('data', (d) => {
      out += d;
    });
    gen.on('error', reject);
    gen.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the load generator exited ${code}`))));
  });
}

/** The bare server answering `answer` after `workUs`. */
const startBareWith = (answer, workUs) => startBare({ BENCH_BARE_RESPONSE: JSON.stringify(answer), BENCH_BARE_WORK_US: String(workUs) });

const org = await makeOrganization('chatctl-bench-rps-', USERS);
const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
const serve = await startServe(org, profile);
let bare;
let working;
try {
  const login = await exchange(
    serve.site,
    'POST',
    '/api/v1/fetch_api_key',
    { 'content-type': 'application/x-www-form-urlencoded' },
    new URLSearchParams({ username: OWNER, password: OWNER_PASSWORD }).toString(),
  );
  const authorization = `Basic ${Buffer.from(`${OWNER}:${JSON.parse(login.body).api_key}`).toString('base64')}`;
  const answer = await exchange(serve.site, 'GET', PATH, { authorization });
  if (answer.status !== 200) throw new Error(`GET /users/me answered ${answer.status}: ${answer.body}`);
  bare = await startBareWith(answer, 0);
  working = await startBareWith(answer, WORK_US);
  const check = await exchange(bare.site, 'GET', PATH, { authorization });
  if (check.body !== answer.body || JSON.stringify(check.headers) !== JSON.stringify(answer.headers)) {
    throw new Error('the bare server does not answer the bytes serve answered');
  }

  const sites = { bare: bare.site, working: working.site, serve: serve.site };
  const sides = { bare: [], working: [], serve: [] };
  const say = (side, r) =>
    console.error(
      `  ${side.padEnd(7)} ${(r.requests / (r.elapsedMs / 1000)).toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  ` +
        `generator ${(r.generatorCpu * 100).toFixed(0)}% of a core  ${Object.entries(r.statuses)
          .map(([s, n]) => `${n}×${s}`)
          .join(' ')}`,
    );
  for (let round = 0; round < ROUNDS; round++) {
    console.error(`round ${round + 1} of ${ROUNDS}`);
    const names = Object.keys(sites);
    const order = names.map((_, k) => names[(k + round) % names.length]);
    for (const side of order) {
      const r = await drive(sites[side], authorization);
      if (Object.keys(r.statuses).some((s) => s !== '200')) throw new Error(`${side} answered ${JSON.stringify(r.statuses)}`);
      sides[side].push(r);
      say(side, r);
    }
  }

  // Over all rounds: requests per second of the timed parts put together, and the median of the rounds' p99s.
  const summary = (rounds) => {
    const p99s = rounds.map((r) => r.p99).sort((a, b) => a - b);
    return {
      rps: rounds.reduce((n, r) => n + r.requests, 0) / (rounds.reduce((n, r) => n + r.elapsedMs, 0) / 1000),
      p99: p99s[Math.floor(p99s.length / 2)],
    };
  };
  const b = summary(sides.bare);
  const w = summary(sides.working);
  const s = summary(sides.serve);
  const rpsRatio = s.rps / b.rps;
  const p99Ratio = s.p99 / b.p99;
  const verdict = (ok) => (ok ? 'within' : 'OVER BUDGET');
  console.log(
    `GET /users/me, ${CONNECTIONS} keep-alive connections, ${ROUNDS} rounds of ${DURATION_MS} ms each side after ${WARMUP_MS} ms of warm-up; ` +
      `${USERS + 1} users; Node ${process.version}; answer ${Buffer.byteLength(answer.body)} bytes`,
  );
  const reference = `bare + ${WORK_US} µs`;
  console.log(
    `${''.padEnd(22)} ${'bare node:http'.padStart(15)} ${'serve'.padStart(10)} ${'ratio'.padStart(8)} ${'budget'.padStart(8)}  ${'verdict'.padEnd(11)}  ` +
      `${reference} (ratio to bare)`,
  );
  console.log(
    `${'requests per second'.padEnd(22)} ${b.rps.toFixed(0).padStart(15)} ${s.rps.toFixed(0).padStart(10)} ${`×${rpsRatio.toFixed(2)}`.padStart(8)} ${`≥ ×${BUDGET.rps}`.padStart(8)}  ${verdict(rpsRatio >= BUDGET.rps).padEnd(11)}  ` +
      `${w.rps.toFixed(0)} (×${(w.rps / b.rps).toFixed(2)})`,
  );
  console.log(
    `${'p99 (ms, median round)'.padEnd(22)} ${b.p99.toFixed(2).padStart(15)} ${s.p99.toFixed(2).padStart(10)} ${`×${p99Ratio.toFixed(2)}`.padStart(8)} ${`≤ ×${BUDGET.p99}`.padStart(8)}  ${verdict(p99Ratio <= BUDGET.p99).padEnd(11)}  ` +
      `${w.p99.toFixed(2)} (×${(w.p99 / b.p99).toFixed(2)})`,
  );
  process.exitCode = rpsRatio >= BUDGET.rps && p99Ratio <= BUDGET.p99 ? 0 : 1;
} finally {
  await bare?.stop();
  await working?.stop();
  await serve.stop();
  org.remove();
}
