#!/usr/bin/env node
// Disk benchmark of `chatctl serve` (npm run bench:serve-disk), issue 24 point 1: a guest with its own 50
// event queues sends 3,000 `POST /typing` (each event goes to all 50 queues, which nobody drains), and the
// data dir's size is printed beside the budgets: grown by at most 20 MB at any moment of the run (sampled
// every 20 ms) and when the requests end, and back near its size (the write-ahead log emptied) within a minute
// of quiet. Not a test: sizes depend on timing.
//
// BENCH_REQUESTS: typing requests (3000). BENCH_CLIENTS: requests in flight (8).
import { readdirSync, statSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { call, makeOrganization, root, startServe } from './serve-fixture.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const QUEUES = 50;
const MB = 1024 * 1024;
const GROWTH_BUDGET_MB = 20;
const QUIET_BUDGET_S = 60;

const org = await makeOrganization('chatctl-bench-disk-', 2);
const { openDb } = await import(join(root, 'dist/server/store/db.js'));
const { insertUser } = await import(join(root, 'dist/server/model/users.js'));
const { ROLE } = await import(join(root, 'dist/api/roles.js'));
const db = openDb(org.dataDir);
const guest = insertUser(db, { email: 'guest@bench.test', full_name: 'Guest', role: ROLE.guest }, Math.floor(Date.now() / 1000));
db.close();

const serve = await startServe(org);
const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
const auth = `Basic ${Buffer.from(`${guest.email}:${guest.api_key}`).toString('base64')}`;

const send = async (method, path, form) => {
  const r = await call(serve.site, method, path, { form, authorization: auth, agent });
  return [r.status, r.body];
};

/** The data dir's bytes (the database, its log and shared memory, uploads). */
function dirBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}
const walBytes = () => {
  try {
    return statSync(join(org.dataDir, 'chatctl.db-wal')).size;
  } catch {
    return 0;
  }
};
const mb = (n) => (n / MB).toFixed(1).padStart(7);

try {
  for (let i = 0; i < QUEUES; i++) {
    const [status, text] = await send('POST', '/register', { event_types: '["typing"]' });
    if (status !== 200) throw new Error(`register answered ${status}: ${text}`);
  }
  const before = dirBytes(org.dataDir);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, dirBytes(org.dataDir));
  }, 20);
  let sent = 0;
  const statuses = new Map();
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (sent < REQUESTS) {
        sent++;
        const [status] = await send('POST', '/typing', { op: 'start', to: JSON.stringify([guest.id]) });
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  const after = dirBytes(org.dataDir);
  peak = Math.max(peak, after);
  let quiet = 0;
  while (walBytes() > 0 && quiet < QUIET_BUDGET_S * 2) {
    await new Promise((r) => setTimeout(r, 1000));
    quiet++;
  }
  const settled = dirBytes(org.dataDir);
  const answers = [...statuses].map(([s, n]) => `${n} × ${s}`).join(', ');
  console.log(`${REQUESTS} guest POST /typing to ${QUEUES} queues, ${CLIENTS} in flight: ${seconds.toFixed(1)} s (${answers})`);
  console.log(`${'data dir, MB'.padEnd(44)} ${'value'.padStart(7)} ${'budget'.padStart(7)}`);
  console.log(`${'before'.padEnd(44)} ${mb(before)}`);
  console.log(`${'grown by, when the requests ended'.padEnd(44)} ${mb(after - before)} ${String(GROWTH_BUDGET_MB).padStart(7)}`);
  console.log(`${'grown by, at the peak (sampled every 20 ms)'.padEnd(44)} ${mb(peak - before)} ${String(GROWTH_BUDGET_MB).padStart(7)}`);
  console.log(`${`grown by, after ${quiet} s of quiet (log emptied)`.padEnd(44)} ${mb(settled - before)}`);
  console.log(`${'seconds of quiet until the log was emptied'.padEnd(44)} ${String(quiet).padStart(7)} ${String(QUIET_BUDGET_S).padStart(7)}`);
  const over = after - before > GROWTH_BUDGET_MB * MB || peak - before > GROWTH_BUDGET_MB * MB || quiet > QUIET_BUDGET_S;
  if (over) process.exitCode = 1;
} finally {
  agent.destroy();
  await serve.stop();
  org.remove();
}
