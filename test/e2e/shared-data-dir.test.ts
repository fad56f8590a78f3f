/**
 * One data dir, several processes at once, as docs/embedded-server.md promises: `serve` under load from HTTP clients,
 * a bulk `users create --from-file`, two `attachments clean` and several `users update`, all real processes
 * of bin/chatctl.cjs. Nobody sees an error, a reset connection or "database is locked", and every write is
 * there afterwards. Needs a build first (npx tsc -p tsconfig.json; npm test does it).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uploadFile } from '../../src/api/operations/attachments.js';
import { createUser } from '../../src/api/operations/users.js';
import { ChatClient } from '../../src/client/client.js';
import { EmbeddedTransport } from '../../src/client/embedded.js';
import { Router } from '../../src/server/router.js';
import { openDb } from '../../src/server/store/db.js';
import { BIN, spawnCli, tempHome, type CliResult } from '../helpers/cli.js';

const OWNER = 'ops@acme.test';
const NEW_USERS = 20;
const UPDATED = 3;
const OLD_UPLOADS = 8;
const LOAD_CLIENTS = 3;

/** Existing users to rename and old uploads to clean, made in-process before anything else runs. */
async function seed(dataDir: string): Promise<{ apiKey: string; updated: string[] }> {
  const db = openDb(dataDir);
  const router = new Router({ db, dataDir });
  try {
    const apiKey = db.prepare('SELECT api_key FROM users WHERE email = ?').pluck().get(OWNER) as string;
    const client = new ChatClient(new EmbeddedTransport(router, dataDir), { email: OWNER, apiKey });
    const updated = [];
    for (let i = 0; i < UPDATED; i++) {
      const email = `renamed${i}@acme.test`;
      await client.call(createUser, { email, password: `pw-${i}-long-enough`, full_name: `Before ${i}` });
      updated.push(email);
    }
    for (let i = 0; i < OLD_UPLOADS; i++) {
      await client.call(
        uploadFile,
        {},
        { files: [{ field: 'file', filename: `old-${i}.txt`, contentType: 'text/plain', data: new Uint8Array(100).fill(97) }] },
      );
    }
    db.prepare('UPDATE attachments SET create_time_ms = ?').run(Date.now() - 40 * 86_400_000);
    return { apiKey, updated };
  } finally {
    await router.drain();
    db.close();
  }
}

/** `chatctl serve` on a free port; resolves with its site once it listens. */
async function startServe(dataDir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const site = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /serving .* at (http:\/\/\S+)\/api\/v1/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error(`serve exited: ${stderr}`)));
  });
  return {
    site,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

describe('one data dir, several processes', () => {
  it('serve under load, a bulk create, two cleans and several updates at once: no error, every write present', { timeout: 60_000 }, async () => {
    const { home, env } = tempHome();
    const dataDir = join(home, 'org');
    expect((await spawnCli(['init', '--data-dir', dataDir, '--email', OWNER, '--password-stdin'], { env, stdin: 'owner-pass-1\n' })).code).toBe(0);
    const { apiKey, updated } = await seed(dataDir);
    const csv = join(home, 'people.csv');
    writeFileSync(csv, `email,full_name\n${Array.from({ length: NEW_USERS }, (_, i) => `new${i}@acme.test,New ${i}`).join('\n')}\n`);

    const serve = await startServe(dataDir, env);
    const auth = `Basic ${Buffer.from(`${OWNER}:${apiKey}`).toString('base64')}`;
    let stop = false;
    const failures: string[] = [];
    let sent = 0;
    const load = async (n: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const write = await fetch(`${serve.site}/api/v1/messages`, {
            method: 'POST',
            headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ type: 'stream', to: 'general', topic: 'load', content: `client ${n} message ${i}` }),
          });
          if (write.status === 200) sent++;
          else failures.push(`POST /messages: ${write.status} ${await write.text()}`);
          const read = await fetch(`${serve.site}/api/v1/users/me`, { headers: { authorization: auth } });
          if (read.status !== 200) failures.push(`GET /users/me: ${read.status} ${await read.text()}`);
          else await read.arrayBuffer();
        } catch (e) {
          failures.push(`client ${n}: ${e instanceof Error ? `${e.message} ${String((e as { cause?: unknown }).cause)}` : String(e)}`);
        }
      }
    };
    const clients = Array.from({ length: LOAD_CLIENTS }, (_, n) => load(n));

    const org = ['--data-dir', dataDir];
    let runs: CliResult[];
    try {
      runs = await Promise.all([
        spawnCli([...org, 'users', 'create', '--from-file', csv, '--json'], { env, timeoutMs: 50_000 }),
        spawnCli([...org, 'attachments', 'clean', '--older-than', '30d', '--yes'], { env, timeoutMs: 50_000 }),
        spawnCli([...org, 'attachments', 'clean', '--older-than', '30d', '--yes'], { env, timeoutMs: 50_000 }),
        ...updated.map((email, i) => spawnCli([...org, 'users', 'update', email, '--name', `After ${i}`], { env, timeoutMs: 50_000 })),
      ]);
    } finally {
      stop = true;
      await Promise.all(clients);
      await serve.stop();
    }

    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/locked|SqliteError| {4}at /);
    }
    expect(failures).toEqual([]);
    expect(serve.stderr()).not.toMatch(/locked|SqliteError|internal error/);
    expect(sent).toBeGreaterThan(0);

    const db = openDb(dataDir);
    try {
      expect(db.prepare("SELECT count(*) FROM users WHERE email LIKE 'new%@acme.test'").pluck().get()).toBe(NEW_USERS);
      expect(db.prepare("SELECT full_name FROM users WHERE email LIKE 'renamed%' ORDER BY email").pluck().all()).toEqual(updated.map((_, i) => `After ${i}`));
      expect(db.prepare('SELECT count(*) FROM attachments').pluck().get()).toBe(0);
      expect(db.prepare("SELECT count(*) FROM messages WHERE topic = 'load'").pluck().get()).toBe(sent);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });
});

describe('serve cleans up after everyone', () => {
  it('deletes expired queues and stale temporary upload files when it starts', { timeout: 30_000 }, async () => {
    const { home, env } = tempHome();
    const dataDir = join(home, 'org');
    expect((await spawnCli(['init', '--data-dir', dataDir, '--email', OWNER, '--password-stdin'], { env, stdin: 'owner-pass-1\n' })).code).toBe(0);
    const db = openDb(dataDir);
    const owner = db.prepare('SELECT id FROM users WHERE email = ?').pluck().get(OWNER) as number;
    const now = Math.floor(Date.now() / 1000);
    const queue = db.prepare('INSERT INTO event_queues (id, user_id, lifespan_secs, last_access) VALUES (?, ?, 600, ?)');
    for (let i = 0; i < 25; i++) queue.run(`expired-${i}`, owner, now - 3600);
    queue.run('alive', owner, now);
    db.close();
    const tmp = join(dataDir, 'uploads', 'tmp');
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, 'partial'), 'x');
    const hoursAgo = now - 7200;
    utimesSync(join(tmp, 'partial'), hoursAgo, hoursAgo);

    const serve = await startServe(dataDir, env);
    await serve.stop();
    const after = openDb(dataDir);
    try {
      expect(after.prepare('SELECT id FROM event_queues').pluck().all()).toEqual(['alive']);
    } finally {
      after.close();
    }
    expect(existsSync(join(tmp, 'partial'))).toBe(false);
  });
});
