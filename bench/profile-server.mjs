#!/usr/bin/env node
// Profiling harness for the embedded server at scale (not a test, not a budget check): seeds an organization
// of PROFILE_USERS users (default 10,000) straight through the store, all of them in channel `big` and a
// live event queue for PROFILE_QUEUES of them, then times single requests through the in-process router.
// Run after `npx tsc -p tsconfig.json`; add `node --cpu-prof --cpu-prof-dir=/tmp/prof` to see where they go.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const USERS = Number(process.env.PROFILE_USERS ?? 10_000);
const QUEUES = Number(process.env.PROFILE_QUEUES ?? 1_000);
const SUBSCRIBE = Number(process.env.PROFILE_SUBSCRIBE ?? 1_000);
const RUNS = Number(process.env.PROFILE_RUNS ?? 5);
const ONLY = process.env.PROFILE_ONLY?.split(',');
const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (p) => import(join(root, 'dist', p));

const { openDb } = await dist('server/store/db.js');
const { EmbeddedOrganization } = await dist('server/embedded.js');
const { createQueue } = await dist('server/model/event-queues.js');
const { basicAuthHeader } = await dist('api/wire.js');

const work = mkdtempSync(join(tmpdir(), 'chatctl-profile-'));
const now = Math.floor(Date.now() / 1000);
const org = EmbeddedOrganization.open(work);
await org.create({ name: 'Profile', ownerEmail: 'owner@profile.test', ownerName: 'Owner', password: 'profile-password', now });
org.changePermission('owner@profile.test', 'can_create_users', true);
const key = org.signInAs();
await org.close();

const seedStart = performance.now();
const db = openDb(work);
db.transaction(() => {
  const insert = db.prepare('INSERT INTO users (email, full_name, role, api_key, date_joined) VALUES (?, ?, ?, ?, ?)');
  for (let i = 1; i < USERS; i++) insert.run(`user${i}@profile.test`, `User ${i}`, [200, 300, 400, 400, 400, 600][i % 6], `key${i}`, now);
  const big = db.prepare("INSERT INTO streams (name, date_created, creator_id) VALUES ('big', ?, 1)").run(now).lastInsertRowid;
  db.prepare('INSERT INTO recipients (stream_id) VALUES (?)').run(big);
  db.prepare('INSERT INTO subscriptions (user_id, stream_id) SELECT id, ? FROM users').run(big);
  const ids = db.prepare('SELECT id FROM users ORDER BY id LIMIT ?').pluck().all(QUEUES);
  for (const userId of ids) createQueue(db, { userId, eventTypes: null, options: {}, lifespanSecs: 7 * 24 * 3600, now: Date.now() / 1000 });
})();
db.close();
const seedMs = performance.now() - seedStart;

const server = EmbeddedOrganization.open(work);
const headers = { authorization: basicAuthHeader(key.email, key.apiKey) };
async function call(method, path, params = []) {
  const query = method === 'GET' ? params : [];
  const body = method === 'GET' ? [] : params;
  const res = await server.handle({ method, path, query, body, headers });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const results = [];
// The median of RUNS calls: single requests on a shared machine vary by more than the effects looked for.
async function time(label, fn) {
  if (ONLY && !ONLY.some((o) => label.startsWith(o))) return;
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  results.push([label, times[Math.floor(times.length / 2)]]);
}

await call('GET', '/users/me'); // builds the router and loads the handlers outside the timings
await time('create one user', (i) =>
  call('POST', '/users', [
    ['email', `new${i}@profile.test`],
    ['password', 'secret-pw'],
    ['full_name', 'New'],
  ]),
);
const principals = JSON.stringify(Array.from({ length: SUBSCRIBE }, (_, i) => i + 2));
await time(`subscribe ${SUBSCRIBE} users`, (i) =>
  call('POST', '/users/me/subscriptions', [
    ['subscriptions', JSON.stringify([{ name: `fresh${i}` }])],
    ['principals', principals],
  ]),
);
await time('register', () => call('POST', '/register'));
await time('GET /users', () => call('GET', '/users'));
const messageIds = [];
await time('send to big', async (i) => {
  messageIds.push(
    (
      await call('POST', '/messages', [
        ['type', 'stream'],
        ['to', 'big'],
        ['topic', 't'],
        ['content', `hello ${i}`],
      ])
    ).id,
  );
});
await time('reaction', (i) => call('POST', `/messages/${messageIds[i % messageIds.length] ?? 1}/reactions`, [['emoji_name', 'smile']]));
await time('typing', () =>
  call('POST', '/typing', [
    ['type', 'stream'],
    ['stream_id', '1'],
    ['topic', 't'],
    ['op', 'start'],
  ]),
);
await server.close();
rmSync(work, { recursive: true, force: true });

console.log(`users ${USERS}, queues ${QUEUES}, seeded in ${seedMs.toFixed(0)} ms; medians of ${RUNS} runs`);
for (const [label, ms] of results) console.log(`${label.padEnd(28)} ${ms.toFixed(1).padStart(9)} ms`);
