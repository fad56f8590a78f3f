/**
 * What chatctl says when something goes wrong is words a person reads (issue 23, point 7): system error
 * codes become their meaning, a broken zuliprc or config file says which file, what is wrong and how to
 * fix it, a refused login gives a hint other than the command that just failed, and a sentence that starts
 * with an e-mail address keeps its case.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemReason } from '../../src/errno.js';
import { cliTarget, runCli, tempHome } from '../helpers/cli.js';
import { createTestOrg, OWNER_PASSWORD, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

/** Every line of stderr, for the check that no bare code reaches it. */
const NO_CODE = /\bE[A-Z]{3,}\b/;

describe('system error codes as words', () => {
  it('a missing or unreadable file names the file and the reason, never the code', async () => {
    const { home, env } = tempHome();
    const missing = join(home, 'nope.csv');
    const rows = await runCli(['users', 'deactivate', '--from-file', missing, '--yes'], {
      env: { ...env, ZULIP_EMAIL: 'a@b.test', ZULIP_API_KEY: 'A'.repeat(32) },
    });
    expect(rows.code).toBe(2);
    expect(rows.stderr).toContain(`cannot read ${missing}: no such file or directory`);
    expect(rows.stderr).not.toMatch(NO_CODE);

    const rc = await runCli(['--zuliprc', missing, 'users', 'list'], { env });
    expect(rc).toMatchObject({ code: 2, stdout: '' });
    expect(rc.stderr).toBe(
      `chatctl: cannot read the zuliprc ${missing}: no such file or directory\n` +
        'hint: name a zuliprc that exists and that you can read (--zuliprc FILE or ZULIP_CONFIG), or unset the one named\n',
    );
  });

  it('the network: what a refused connection or an unknown host means', () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    });
    expect(systemReason(refused)).toBe('the connection was refused (nothing listens at that address and port)');
    const happyEyeballs = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new AggregateError([Object.assign(new Error('x'), { code: 'ETIMEDOUT' })]), { code: undefined }),
    });
    expect(systemReason(happyEyeballs)).toBe('the connection timed out');
    expect(systemReason(Object.assign(new Error('odd'), { code: 'EWHATEVER' }))).toBe('EWHATEVER');
    expect(systemReason(new Error('plain'))).toBe('plain');
  });
});

describe('a broken configuration file', () => {
  it('a zuliprc that is not one says what a zuliprc holds and where to get one', async () => {
    const { home, env } = tempHome();
    const rc = join(home, '.zuliprc');
    writeFileSync(rc, 'email=a@b.test\nkey=x\n', { mode: 0o600 });
    const r = await runCli(['users', 'list'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `chatctl: ${rc} has no [api] section\n` +
        'hint: a zuliprc is an INI file with an [api] section holding email=, key= and site= lines (Zulip: Settings > Account & privacy > API key > Download zuliprc); ' +
        `fix it, or move it away: mv ${rc} ${rc}.broken\n`,
    );
  });

  it('a directory where the config file should be: one message naming it and how to fix it, and a named target still works', async () => {
    const { env } = tempHome();
    const file = join(env.CHATCTL_CONFIG_DIR, 'config.json');
    mkdirSync(file, { recursive: true });
    const r = await runCli(['profiles'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `chatctl: ${file} cannot be read: it is a directory, not a file\n` +
        `hint: make it a file chatctl's user can read and write (ls -ld ${file}; chmod 600 ${file}), or move it away and log in again: mv ${file} ${file}.broken ` +
        '(meanwhile --data-dir DIR, --server URL with ZULIP_EMAIL and ZULIP_API_KEY, and --zuliprc FILE work without it)\n',
    );
  });
});

describe.each(TRANSPORTS)('words over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('a re-run whose row is an e-mail address keeps its case at the start of the sentence', async () => {
    const t = await cliTarget(org, kind);
    const email = `alice-${kind}@zulip.test`;
    const first = await runCli([...t.args, 'users', 'create', email, '--name', 'Alice'], { env: t.env, tty: true });
    expect(first.code).toBe(0);
    const again = await runCli([...t.args, 'users', 'create', email, '--name', 'Alice'], { env: t.env, tty: true });
    expect(again).toMatchObject({ code: 0, stdout: '' });
    expect(again.stderr).toBe(`${email} unchanged: already created.\n`);
  });

  it('a refused login says what to check, not "chatctl login"', async () => {
    const args = kind === 'embedded' ? ['--data-dir', org.dataDir, 'login', '--embedded'] : ['--server', await org.http(), 'login'];
    const wrong = await runCli([...args, '--email', org.owner.email, '--password-stdin'], { env: tempHome().env, stdin: 'not-the-password\n' });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toMatch(
      /^chatctl: Your username or password is incorrect \(AUTHENTICATION_FAILED\)\nhint: check the e-mail address and the password; /,
    );
    expect(wrong.stderr).not.toContain('chatctl login');

    const key = await runCli([...args, '--email', org.owner.email, '--api-key-stdin'], { env: tempHome().env, stdin: `${'Z'.repeat(32)}\n` });
    expect(key.code).toBe(4);
    expect(key.stderr).toContain("hint: check the key (Settings > Account & privacy > API key, on the web) and that --email is its account's address\n");
    expect(key.stderr).not.toContain('chatctl login');

    // The right password still logs in, and a later refusal of the stored key does point at login.
    const right = await runCli([...args, '--email', org.owner.email, '--password-stdin'], { env: tempHome().env, stdin: `${OWNER_PASSWORD}\n` });
    expect(right.code).toBe(0);
    const stale = await runCli([...args.filter((a) => a !== 'login' && a !== '--embedded'), 'users', 'list'], {
      env: { ...tempHome().env, ZULIP_EMAIL: org.owner.email, ZULIP_API_KEY: 'Z'.repeat(32) },
    });
    expect(stale.code).toBe(4);
    expect(stale.stderr).toContain('hint: log in again: chatctl login');
  });
});
