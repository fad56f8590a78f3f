#!/usr/bin/env node
// `chatctl serve` under more load than it can serve (npm run bench:serve-overload), beside the budgets of issue 24
// point 2: 50 clients, each request on a new connection, 20 % of them messages to a channel of 3,000 members and
// the rest `GET /users/me`; the time to the first byte of each answer (a 503 + Retry-After counts: it is an
// answer), its p99, and the requests that pass a 30 s client timeout. Not a test: the figures vary with the machine.
//
// BENCH_SECONDS: how long the clients run (30).
//
// Taken on 2 cores while other engineers' test runs shared them, for 20 s: 2,105 requests, all 200, time to first
// byte p50 471 ms, p99 941 ms, max 990 ms (budget p99 ≤ 2,000 ms), none past the 30 s timeout (budget 0). Issue 24
// measured, before this change: connections opened at the start waited 11-32 s (libuv accepts one connection per turn of the
// event loop, and each turn ran every ready request's work).
import { call, makeOrganization, OWNER, OWNER_PASSWORD, startServe } from './serve-fixture.mjs';

const CLIENTS = 50;
const MEMBERS = 3000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const CLIENT_TIMEOUT_MS = 30_000;

const org = await makeOrganization('chatctl-bench-overload-', MEMBERS);
const serve = await startServe(org);
const { site } = serve;

/** One request on a new connection; resolves with [status, ms to the first byte, body], status 0 on a timeout. */
const send = async (method, path, o) => {
  const r = await call(site, method, path, { ...o, timeoutMs: CLIENT_TIMEOUT_MS });
  return [r.status, r.ttfb, r.body];
};

const [, , login] = await send('POST', '/fetch_api_key', { form: { username: OWNER, password: OWNER_PASSWORD } });
const auth = `${OWNER}:${JSON.parse(login).api_key}`;
const [, , users] = await send('GET', '/users', { auth });
const ids = JSON.parse(users).members.map((u) => u.user_id);
const [subscribed] = await send('POST', '/users/me/subscriptions', {
  auth,
  form: { subscriptions: JSON.stringify([{ name: 'crowd' }]), principals: JSON.stringify(ids) },
});
if (subscribed !== 200) throw new Error(`subscribing ${ids.length} members answered ${subscribed}`);

try {
  const samples = [];
  const end = performance.now() + SECONDS * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const i = n++;
        const [status, ttfb] =
          i % 5 === 0
            ? await send('POST', '/messages', { auth, form: { type: 'stream', to: 'crowd', topic: `load ${i % 20}`, content: `message ${i}` } })
            : await send('GET', `/users/me?probe=${i}`, { auth });
        samples.push([status, ttfb]);
      }
    }),
  );
  const times = samples.map(([, t]) => t).sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.ceil(times.length * q) - 1)];
  const statuses = new Map();
  for (const [s] of samples) statuses.set(s, (statuses.get(s) ?? 0) + 1);
  const timeouts = statuses.get(0) ?? 0;
  console.log(`${CLIENTS} clients for ${SECONDS} s, a new connection per request, 20 % messages to a channel of ${MEMBERS} members`);
  console.log(`requests ${samples.length}: ${[...statuses].map(([s, k]) => `${k}×${s || 'timeout'}`).join(' ')}`);
  console.log(`time to first byte: p50 ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms (budget ≤ 2000 ms), max ${times.at(-1).toFixed(0)} ms`);
  console.log(`past the ${CLIENT_TIMEOUT_MS / 1000} s client timeout: ${timeouts} (budget 0)`);
  process.exitCode = at(0.99) <= 2000 && timeouts === 0 ? 0 : 1;
} finally {
  await serve.stop();
  org.remove();
}
