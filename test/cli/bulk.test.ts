/** The bulk runner as users see it: a bounded pool, outcomes in input order, --fail-fast, fatal errors. */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { LastWords } from '../../src/cli/core/last-words.js';
import { main } from '../../src/cli/entry/main.js';
import { EmbeddedTransport } from '../../src/client/embedded.js';
import type { Transport } from '../../src/client/transport.js';
import { cliTarget, jsonLines, runCli, Sink } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';

describe('bulk commands over HTTP', () => {
  let org: TestOrg;
  let inFlight = 0;
  let maxInFlight = 0;
  beforeAll(() => {
    org = createTestOrg();
    // Count the requests the server holds at once; each takes a little while, as over a network.
    const answer = org.router.answer.bind(org.router);
    org.router.answer = async (...args) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await sleep(15);
        return await answer(...args);
      } finally {
        inFlight--;
      }
    };
  });
  afterAll(() => org.close());

  const deactivated = (n: number) => Array.from({ length: n }, () => org.addUser({ active: false }));

  it('runs up to --concurrency requests at once and still prints outcomes in input order', async () => {
    const users = deactivated(8);
    const t = await cliTarget(org, 'http');
    maxInFlight = 0;
    const r = await runCli([...t.args, 'users', 'reactivate', ...users.map((u) => String(u.id)), '--concurrency', '3', '--json'], { env: t.env });
    expect(r.code).toBe(0);
    expect(maxInFlight).toBe(3);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { row: number }).row),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('runs one request at a time with --fail-fast, and attempts nothing after the first failure', async () => {
    const users = deactivated(3);
    const t = await cliTarget(org, 'http');
    maxInFlight = 0;
    const r = await runCli(
      [...t.args, 'users', 'reactivate', String(users[0]!.id), 'ghost@example.com', String(users[1]!.id), String(users[2]!.id), '--fail-fast', '--json'],
      { env: t.env },
    );
    expect(r.code).toBe(3);
    expect(maxInFlight).toBe(1);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { status: string }).status),
    ).toEqual(['reactivated', 'failed', 'skipped', 'skipped']);
    expect(org.db.prepare('SELECT is_active FROM users WHERE id = ?').pluck().get(users[1]!.id)).toBe(0);
  });

  it('stops the whole run on bad credentials: exit 4, not a row of failures per input', async () => {
    const users = deactivated(3);
    const t = await cliTarget(org, 'http');
    const r = await runCli([...t.args, 'users', 'reactivate', ...users.map((u) => String(u.id))], { env: { ...t.env, ZULIP_API_KEY: 'Z'.repeat(32) } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('Invalid API key');
  });

  it('refuses a --concurrency that is not 1 to 32 (exit 2)', async () => {
    const t = await cliTarget(org, 'http');
    const r = await runCli([...t.args, 'users', 'reactivate', '1', '--concurrency', '0'], { env: t.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--concurrency takes a whole number from 1 to 32, not "0"');
  });
});

describe('a bulk run against a server that goes away', () => {
  it('ends with exit 75 (temporary), not 3, so cron reschedules it', async () => {
    const org = createTestOrg();
    try {
      const users = Array.from({ length: 3 }, () => org.addUser({ active: false }));
      const t = await cliTarget(org, 'http');
      // The server answers, then stops: the first reactivation's response tells the client nothing more will work.
      const answer = org.router.answer.bind(org.router);
      org.router.answer = async (...args) => {
        const res = await answer(...args);
        return res.status === 200 && args[0].path.endsWith('/reactivate')
          ? {
              status: 503,
              headers: { 'content-type': 'application/json', 'retry-after': '0' },
              body: { result: 'error', msg: 'Service unavailable', code: 'BAD_REQUEST' },
            }
          : res;
      };
      const r = await runCli([...t.args, '--max-wait', '1', 'users', 'reactivate', ...users.map((u) => String(u.id)), '--fail-fast'], { env: t.env });
      expect(r.code).toBe(75);
    } finally {
      await org.close();
    }
  });
});

describe('a second Ctrl-C while a request hangs', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('says every row not yet printed as it stands (in flight unknown, not started skipped) and the summary', async () => {
    const users = Array.from({ length: 6 }, () => org.addUser({ active: false }));
    const t = await cliTarget(org, 'embedded');
    // The third reactivation never comes back, whatever the signal says, as a wedged server would.
    const embedded = new EmbeddedTransport(org.router, org.dataDir);
    let release = () => {};
    let arrived = () => {};
    const hung = new Promise<void>((resolve) => (arrived = resolve));
    const transport: Transport = {
      kind: 'embedded',
      target: embedded.target,
      async send(req, signal) {
        if (req.method === 'POST' && req.path === `/users/${users[2]!.id}/reactivate`) {
          arrived();
          await new Promise<void>((resolve) => (release = resolve));
        }
        return embedded.send(req, signal);
      },
      close: async () => {},
    };
    const controller = new AbortController();
    const lastWords = new LastWords();
    const stdout = new Sink();
    const stderr = new Sink();
    const stdin = new PassThrough();
    stdin.end();
    const running = main([...t.args, 'users', 'reactivate', ...users.map((u) => String(u.id)), '--concurrency', '1', '--json'], {
      io: { stdin, stdout, stderr, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false, columns: 120 },
      env: t.env,
      signal: controller.signal,
      lastWords,
      openTransport: async () => transport,
    });
    await hung;
    controller.abort('SIGINT');
    // The entry point's second signal: it says the last words, then exits.
    lastWords.say();
    const said = jsonLines(stdout.text).map((o) => [o.row, o.status]);
    expect(said).toEqual([
      [1, 'reactivated'],
      [2, 'reactivated'],
      [3, 'unknown'],
      [4, 'skipped'],
      [5, 'skipped'],
      [6, 'skipped'],
    ]);
    expect(stderr.text).toBe('chatctl: interrupted: 2 reactivated, 0 failed, 1 unknown (row 3), 3 skipped\n');
    release();
    expect(await running).toBe(130);
  });
});
