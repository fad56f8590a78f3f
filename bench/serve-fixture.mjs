// What the `serve` benchmarks share: an embedded organization in a temporary HOME (an owner and `users`
// members, inserted straight through the store), and `chatctl serve` spawned on it on a free port.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'chatctl.cjs');
export const OWNER = 'boss@bench.test';
export const OWNER_PASSWORD = 'bench-password-1';

/** A fresh data dir holding the owner and `users` members (`members`: their IDs, e-mails and API keys); `remove()` deletes it all. */
export async function makeOrganization(prefix, users) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const dataDir = join(work, 'data');
  const env = { ...process.env, HOME: work, CHATCTL_CONFIG_DIR: join(work, 'config') };
  delete env.CHATCTL_DATA_DIR;
  delete env.CHATCTL_PROFILE;
  const init = spawnSync(process.execPath, [bin, 'init', '--data-dir', dataDir, '--email', OWNER, '--password-stdin'], { env, input: `${OWNER_PASSWORD}\n` });
  if (init.status !== 0) throw new Error(`init failed: ${init.stderr}`);
  const { openDb } = await import(join(root, 'dist/server/store/db.js'));
  const { insertUser } = await import(join(root, 'dist/server/model/users.js'));
  const db = openDb(dataDir);
  const now = Math.floor(Date.now() / 1000);
  const members = db
    .transaction(() => Array.from({ length: users }, (_, i) => insertUser(db, { email: `member${i}@bench.test`, full_name: `Member ${i}` }, now)))
    .immediate()
    .map((u) => ({ id: u.id, email: u.email, api_key: u.api_key }));
  db.close();
  return { dataDir, env, members, remove: () => rmSync(work, { recursive: true, force: true }) };
}

/**
 * `chatctl serve` on the organization, `nodeArgs` before the script (--cpu-prof ...); resolves with the
 * child and its site (`http://127.0.0.1:PORT`) once it says where it listens. Its log goes to a file
 * (`<data dir>-serve.log` beside the data dir), as a deployment's would: read through a pipe, every request's line
 * would cost the benchmark's own process a wake-up on a core the measured processes share.
 */
export async function startServe({ dataDir, env }, nodeArgs = []) {
  const logPath = join(dirname(dataDir), `${basename(dataDir)}-serve.log`);
  const log = openSync(logPath, 'w');
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve', '--data-dir', dataDir, '--port', '0'], { env, stdio: ['ignore', 'ignore', log] });
  closeSync(log);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const started = Date.now();
  let site;
  while (!site) {
    const text = readFileSync(logPath, 'utf8');
    site = /at (http:\/\/127\.0\.0\.1:\d+)\/api\/v1/.exec(text)?.[1];
    if (site) break;
    if (child.exitCode !== null || Date.now() - started > 20_000) throw new Error(`serve did not start: ${text.slice(0, 10_000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const stop = async () => {
    child.kill('SIGTERM');
    if (child.exitCode === null) await exited;
  };
  return { child, site, stop };
}

// Headers Node's server writes by itself on every answer: a bare server answering serve's bytes adds them the same way.
export const ADDED_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * The bare server (bench/bare-server.mjs) in a child process with `env` (its BENCH_BARE_* settings); resolves
 * with its URL and a stop function.
 */
export function startBare(env) {
  const child = spawn(process.execPath, [join(root, 'bench', 'bare-server.mjs')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.stdout.once('data', (d) =>
      resolve({
        site: d.toString().trim(),
        stop: async () => {
          child.kill('SIGTERM');
          if (child.exitCode === null) await new Promise((r) => child.on('exit', r));
        },
      }),
    );
  });
}

/**
 * One form request to `site`'s API, on a connection of its own unless `agent` is given; `auth` is
 * `email:key` (or `authorization`, the header itself), `from` the local address. Resolves with
 * `{ status, ttfb, ms, body }` (milliseconds to the first byte and to the end), status 0 past `timeoutMs`.
 */
export function call(site, method, path, { auth, authorization, form, from, agent = false, timeoutMs } = {}) {
  const body = form ? new URLSearchParams(form).toString() : '';
  const headers = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) };
  if (auth) headers.authorization = `Basic ${Buffer.from(auth).toString('base64')}`;
  if (authorization) headers.authorization = authorization;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const options = { method, headers, agent, ...(from && { localAddress: from }), ...(timeoutMs && { timeout: timeoutMs }) };
    const req = request(`${site}/api/v1${path}`, options, (res) => {
      const ttfb = performance.now() - started;
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, ttfb, ms: performance.now() - started, body: Buffer.concat(chunks).toString() }));
    });
    req.on('timeout', () => {
      req.destroy();
      resolve({ status: 0, ttfb: timeoutMs, ms: timeoutMs, body: '' });
    });
    req.on('error', reject);
    req.end(body);
  });
}
