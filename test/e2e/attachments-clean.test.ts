/**
 * The cron story: `attachments clean --older-than 30d --yes` started twice at once by the real
 * bin/chatctl.cjs against one embedded organization. The lock lets one run delete; the other says so and
 * exits 0 (or, when it starts after the first has finished, finds nothing left). Needs a build first
 * (npx tsc -p tsconfig.json; npm test does it).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uploadFile } from '../../src/api/operations/attachments.js';
import { ChatClient } from '../../src/client/client.js';
import { EmbeddedTransport } from '../../src/client/embedded.js';
import { uploadFilePath, type StoredUpload } from '../../src/server/model/uploads.js';
import { Router } from '../../src/server/router.js';
import { openDb } from '../../src/server/store/db.js';
import { BIN, spawnCli, tempHome } from '../helpers/cli.js';

const DAY_MS = 86_400_000;
const OWNER = 'cron-admin@acme.test';

/** Uploads through the API of the organization in `dataDir`; `old` ones are then dated 40 days back. */
async function seed(dataDir: string, files: { name: string; bytes: number; old: boolean }[]): Promise<{ id: number; name: string; old: boolean }[]> {
  const db = openDb(dataDir);
  const router = new Router({ db, dataDir });
  try {
    const apiKey = db.prepare('SELECT api_key FROM users WHERE email = ?').pluck().get(OWNER) as string;
    const client = new ChatClient(new EmbeddedTransport(router, dataDir), { email: OWNER, apiKey });
    const made = [];
    for (const f of files) {
      const res = await client.call(
        uploadFile,
        {},
        { files: [{ field: 'file', filename: f.name, contentType: 'text/plain', data: new Uint8Array(f.bytes).fill(97) }] },
      );
      const pathId = decodeURIComponent(res.uri.slice('/user_uploads/'.length));
      const id = db.prepare('SELECT id FROM attachments WHERE path_id = ?').pluck().get(pathId) as number;
      // The CLI runs on the real clock; an old upload is fixture data, dated in the store.
      if (f.old) db.prepare('UPDATE attachments SET create_time_ms = ? WHERE id = ?').run(Date.now() - 40 * DAY_MS, id);
      made.push({ id, name: f.name, old: f.old });
    }
    return made;
  } finally {
    await router.drain();
    db.close();
  }
}

describe('attachments clean from cron, twice at once', () => {
  it('deletes each old upload exactly once, keeps the new ones, and both runs exit 0', async () => {
    const { home, env } = tempHome();
    const dataDir = join(home, 'org');
    const init = await spawnCli(['init', '--data-dir', dataDir, '--email', OWNER, '--password-stdin'], { env, stdin: 'cron-pass-1\n' });
    expect(init.code).toBe(0);
    const uploads = await seed(dataDir, [
      { name: 'old-1.txt', bytes: 100, old: true },
      { name: 'new-1.txt', bytes: 200, old: false },
      { name: 'old-2.txt', bytes: 300, old: true },
      { name: 'old-3.txt', bytes: 400, old: true },
      { name: 'new-2.txt', bytes: 500, old: false },
    ]);
    const oldIds = uploads.filter((u) => u.old).map((u) => u.id);

    const argv = ['attachments', 'clean', '--data-dir', dataDir, '--older-than', '30d', '--yes'];
    const runs = await Promise.all([spawnCli(argv, { env }), spawnCli(argv, { env })]);

    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    // Piped: one tab-separated row per deleted upload, its ID first.
    const deleted = runs.flatMap((r) =>
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => Number(l.split('\t')[0])),
    );
    expect(deleted.sort((a, b) => a - b)).toEqual(oldIds);
    const worker = runs.find((r) => r.stdout !== '')!;
    const other = runs.find((r) => r !== worker)!;
    expect(
      worker.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[1]),
    ).toEqual(['old-1.txt', 'old-2.txt', 'old-3.txt']);
    expect(worker.stderr).toBe('chatctl: deleted 3 attachments, freed 800 B\n');
    expect(other.stdout).toBe('');
    expect(other.stderr).toMatch(
      /^chatctl: (another attachments clean \(pid \d+\) is running on this organization; leaving it to finish|no attachments match; nothing to delete)\n$/,
    );

    const db = openDb(dataDir);
    try {
      const left = db.prepare('SELECT name FROM attachments ORDER BY id').pluck().all();
      expect(left).toEqual(['new-1.txt', 'new-2.txt']);
    } finally {
      db.close();
    }
    expect(existsSync(join(dataDir, 'attachments-clean.lock'))).toBe(false);

    // Run again, as the next night's cron would: nothing left to do, quietly.
    const next = await spawnCli([...argv, '--quiet'], { env });
    expect(next).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('attachments clean killed half-way', () => {
  it('leaves no record of an upload whose file is gone, and the next run finishes the job', { timeout: 60_000 }, async () => {
    const { home, env } = tempHome();
    const dataDir = join(home, 'org');
    expect((await spawnCli(['init', '--data-dir', dataDir, '--email', OWNER, '--password-stdin'], { env, stdin: 'cron-pass-1\n' })).code).toBe(0);
    const uploads = await seed(
      dataDir,
      Array.from({ length: 60 }, (_, i) => ({ name: `old-${i}.txt`, bytes: 10, old: true })),
    );
    const argv = [process.execPath, BIN, 'attachments', 'clean', '--data-dir', dataDir, '--older-than', '30d', '--yes'];
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: 'ignore' });
    const db = openDb(dataDir);
    try {
      // Killed as soon as it has deleted something, with most of the work still ahead of it.
      while ((db.prepare('SELECT count(*) FROM attachments').pluck().get() as number) === uploads.length && child.exitCode === null) {
        await new Promise((r) => setTimeout(r, 2));
      }
      child.kill('SIGKILL');
      await once(child, 'exit');
      const rows = db.prepare('SELECT path_id, stored_as FROM attachments').all() as StoredUpload[];
      expect(rows.filter((r) => !existsSync(uploadFilePath(dataDir, r)))).toEqual([]);
    } finally {
      db.close();
    }
    rmSync(join(dataDir, 'attachments-clean.lock'), { force: true });
    expect((await spawnCli(argv.slice(2), { env })).code).toBe(0);
    const after = openDb(dataDir);
    try {
      expect(after.prepare('SELECT count(*) FROM attachments').pluck().get()).toBe(0);
    } finally {
      after.close();
    }
  });

  it('has printed each deletion as it happened: every file it printed is gone, and at most those in flight are gone unprinted', {
    timeout: 60_000,
  }, async () => {
    const { home, env } = tempHome();
    const dataDir = join(home, 'org');
    expect((await spawnCli(['init', '--data-dir', dataDir, '--email', OWNER, '--password-stdin'], { env, stdin: 'cron-pass-1\n' })).code).toBe(0);
    const uploads = await seed(
      dataDir,
      Array.from({ length: 60 }, (_, i) => ({ name: `old-${i}.txt`, bytes: 10, old: true })),
    );
    const child = spawn(process.execPath, [BIN, 'attachments', 'clean', '--data-dir', dataDir, '--older-than', '30d', '--yes'], {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (stdout += d));
    // Killed once it has printed a few rows, with most of the work still ahead of it.
    while (stdout.split('\n').length <= 3 && child.exitCode === null) await new Promise((r) => setTimeout(r, 2));
    const killedRunning = child.exitCode === null;
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(killedRunning, 'the run printed nothing before it finished').toBe(true);
    const printed = stdout
      .split('\n')
      .slice(0, -1)
      .map((l) => Number(l.split('\t')[0]));
    const db = openDb(dataDir);
    try {
      const left = new Set(db.prepare('SELECT id FROM attachments').pluck().all() as number[]);
      expect(printed.filter((id) => left.has(id))).toEqual([]);
      const goneUnprinted = uploads.filter((u) => !left.has(u.id) && !printed.includes(u.id));
      // The default concurrency is 4: a kill can catch at most that many deletions between commit and print.
      expect(goneUnprinted.length).toBeLessThanOrEqual(4);
      expect(left.size).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });
});
