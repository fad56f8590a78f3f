/**
 * Interrupted and repeated bulk runs, with the real binary in a child process: SIGINT and SIGTERM at about
 * row 50 of a 300-row run end it with exit 130 and an outcome for every row (done, unknown, skipped) that
 * the database bears out; a run killed with SIGKILL and run again ends with every row done exactly once.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliTarget, jsonLines, spawnCli, tempHome } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS, type TransportKind } from '../helpers/transports.js';

interface Outcome {
  row: number;
  target: string;
  ok: boolean;
  status: string;
}

/** Generous: only for a run that never ends (the bug), not a measure of how fast it ends. */
const HANG_GUARD_MS = 60_000;

/**
 * Runs chatctl and sends `signal` once `after` outcome lines are out; resolves with the exit code and output
 * (exit code null: it had to be killed by the hang guard).
 */
function runUntil(
  argv: string[],
  env: Record<string, string>,
  after: number,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; stdout: string; stderr: string; sent: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!sent && stdout.split('\n').length > after) {
        sent = true;
        child.kill(signal);
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), HANG_GUARD_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr, sent });
    });
  });
}

const csv = (home: string, name: string, header: string, lines: string[]): string => {
  const file = join(home, name);
  writeFileSync(file, `${header}\n${lines.join('\n')}\n`);
  return file;
};

/**
 * What a 300-row run does and how to find a row's effect in the database. Creating accounts hashes each
 * password on the event loop (the run that ignored Ctrl-C); invitations, one request a row (each its own
 * expiry), are the cheap run.
 */
const RUNS = {
  'users create': {
    verb: 'created',
    file: (home: string, emails: string[]) => [
      'users',
      'create',
      '--from-file',
      csv(
        home,
        'people.csv',
        'email,full_name,password',
        emails.map((e, i) => `${e},Person ${i + 1},pass-word-${i + 1}`),
      ),
    ],
    exists: (org: TestOrg, email: string) => org.db.prepare('SELECT count(*) FROM users WHERE email = ?').pluck().get(email) === 1,
  },
  'invite send': {
    verb: 'invited',
    file: (home: string, emails: string[]) => [
      'invite',
      'send',
      '--from-file',
      csv(
        home,
        'invites.csv',
        'email,expires',
        emails.map((e, i) => `${e},${i + 1}h`),
      ),
    ],
    exists: (org: TestOrg, email: string) => org.db.prepare('SELECT count(*) FROM invites WHERE email = ?').pluck().get(email) === 1,
  },
} as const;

describe.each([
  ['users create', 'embedded', 'SIGINT'],
  ['invite send', 'embedded', 'SIGTERM'],
  ['invite send', 'http', 'SIGINT'],
  ['invite send', 'http', 'SIGTERM'],
] as [keyof typeof RUNS, TransportKind, NodeJS.Signals][])('%s --from-file of 300 rows over %s, %s at row 50', (command, kind, signal) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it(
    'exits 130 with every row accounted for as the database has it, and the summary',
    async () => {
      const { home } = tempHome();
      const t = await cliTarget(org, kind);
      const run = RUNS[command];
      const emails = Array.from({ length: 300 }, (_, i) => `p${i + 1}@stop.test`);
      const r = await runUntil([...t.args, ...run.file(home, emails), '--json'], t.env, 50, signal);
      expect(r.sent).toBe(true);
      expect(r.code).toBe(130);
      const outcomes = jsonLines(r.stdout) as unknown as Outcome[];
      expect(outcomes.map((o) => o.row)).toEqual(emails.map((_, i) => i + 1));
      const by = (status: string) => outcomes.filter((o) => o.status === status).map((o) => o.target);
      const [done, unknown, skipped] = [by(run.verb), by('unknown'), by('skipped')];
      expect(done.length + unknown.length + skipped.length).toBe(300);
      expect(done.length).toBeGreaterThanOrEqual(50);
      expect(skipped.length).toBeGreaterThan(0);
      // Done rows took effect, skipped ones did not; those in flight may have.
      const exists = (email: string) => run.exists(org, email);
      expect(done.filter(exists)).toEqual(done);
      expect(skipped.filter(exists)).toEqual([]);
      const effects = emails.filter(exists).length;
      expect(effects).toBeGreaterThanOrEqual(done.length);
      expect(effects).toBeLessThanOrEqual(done.length + unknown.length);
      expect(r.stderr).toContain(`chatctl: interrupted: ${done.length} ${run.verb}, 0 failed, ${unknown.length} unknown`);
      expect(r.stderr).toContain(`, ${skipped.length} skipped\n`);
    },
    HANG_GUARD_MS + 30_000,
  );
});

describe.each(TRANSPORTS)('a bulk run killed mid-run and run again, over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  /** Runs `argv` killed with SIGKILL after `after` rows, then again to the end: the second run's outcomes. */
  async function crashAndRerun(argv: string[], after: number): Promise<Outcome[]> {
    const t = await cliTarget(org, kind);
    // However far the first run got past `after` rows before the kill landed, the second finishes the job.
    await runUntil([...t.args, ...argv, '--json'], t.env, after, 'SIGKILL');
    const again = await spawnCli([...t.args, ...argv, '--json'], { env: t.env, timeoutMs: HANG_GUARD_MS });
    expect(again.stderr).toContain(' 0 failed\n');
    expect(again.code).toBe(0);
    return jsonLines(again.stdout) as unknown as Outcome[];
  }

  it(
    'users create: every row created once, those of the first run unchanged',
    async () => {
      const emails = Array.from({ length: 20 }, (_, i) => `c${i + 1}-${kind}@crash.test`);
      const file = csv(
        tempHome().home,
        'people.csv',
        'email,full_name',
        emails.map((e, i) => `${e},Crash Person ${i + 1}`),
      );
      const outcomes = await crashAndRerun(['users', 'create', '--from-file', file, '--concurrency', '1'], 5);
      expect(outcomes).toHaveLength(20);
      expect(outcomes.filter((o) => o.status === 'unchanged').length).toBeGreaterThanOrEqual(5);
      expect(outcomes.every((o) => o.ok && (o.status === 'created' || o.status === 'unchanged'))).toBe(true);
      for (const email of emails) expect(org.db.prepare('SELECT count(*) FROM users WHERE email = ?').pluck().get(email)).toBe(1);
    },
    3 * HANG_GUARD_MS,
  );

  it(
    'invite send: every address invited once, those of the first run unchanged',
    async () => {
      // A different expiry a row keeps each address in a request of its own, so the run has rows to cut.
      const emails = Array.from({ length: 40 }, (_, i) => `i${i + 1}-${kind}@crash.test`);
      const file = csv(
        tempHome().home,
        'invites.csv',
        'email,expires',
        emails.map((e, i) => `${e},${i + 1}h`),
      );
      const outcomes = await crashAndRerun(['invite', 'send', '--from-file', file, '--concurrency', '1'], 10);
      expect(outcomes).toHaveLength(40);
      expect(outcomes.filter((o) => o.status === 'unchanged').length).toBeGreaterThanOrEqual(10);
      expect(outcomes.every((o) => o.ok && (o.status === 'invited' || o.status === 'unchanged'))).toBe(true);
      for (const email of emails) expect(org.db.prepare('SELECT count(*) FROM invites WHERE email = ? AND status = 0').pluck().get(email)).toBe(1);
    },
    3 * HANG_GUARD_MS,
  );

  it(
    'users deactivate: every user deactivated, those of the first run unchanged',
    async () => {
      const users = Array.from({ length: 40 }, () => org.addUser());
      const file = csv(
        tempHome().home,
        'leavers.csv',
        'user',
        users.map((u) => u.email),
      );
      const outcomes = await crashAndRerun(['users', 'deactivate', '--from-file', file, '--yes', '--concurrency', '1'], 10);
      expect(outcomes).toHaveLength(40);
      expect(outcomes.every((o) => o.ok && (o.status === 'deactivated' || o.status === 'unchanged'))).toBe(true);
      expect(outcomes.filter((o) => o.status === 'unchanged').length).toBeGreaterThanOrEqual(10);
      for (const u of users) expect(org.db.prepare('SELECT is_active FROM users WHERE id = ?').pluck().get(u.id)).toBe(0);
    },
    3 * HANG_GUARD_MS,
  );
});
