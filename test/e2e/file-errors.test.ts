/**
 * What the file system or the database refuses, as the installed binary says it: the path, the cause in
 * words, a hint, the exit code, and never a stack trace. Tests run as root here, where chmod stops
 * nothing: permission denied runs chatctl as `nobody`, and the read-only file system is a tmpfs mounted
 * read-only in a private mount namespace (unshare), so nothing outside the test sees it.
 */
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, tempHome, type CliResult } from '../helpers/cli.js';

const isRoot = process.getuid?.() === 0;
const canUnshare = isRoot && spawnSync('unshare', ['--mount', 'true']).status === 0;
const canSetpriv = isRoot && spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'true']).status === 0;

/** Said for a person: one message line, one hint line, no stack trace. */
function expectReport(r: CliResult, code: number, message: string, hint: string): void {
  expect(r.code).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(`chatctl: ${message}\nhint: ${hint}\n`);
}

/** An organization made by init, with the owner's credentials for ZULIP_EMAIL/ZULIP_API_KEY. */
let org: { dir: string; creds: Record<string, string> };
beforeAll(async () => {
  const { home, env } = tempHome();
  const dir = join(home, 'org');
  expect((await spawnCli(['init', '--data-dir', dir, '--password-stdin'], { env, stdin: 'pass-1234\n' })).code).toBe(0);
  const config = JSON.parse(readFileSync(join(env.CHATCTL_CONFIG_DIR, 'config.json'), 'utf8')) as { profiles: { default: { email: string; apiKey: string } } };
  org = { dir, creds: { ZULIP_EMAIL: config.profiles.default.email, ZULIP_API_KEY: config.profiles.default.apiKey } };
});

describe('the data dir', () => {
  it('--data-dir /proc/x does not spin: a named dir is not created, and init says the file system takes no directories', async () => {
    const { env } = tempHome();
    const named = await spawnCli(['--data-dir', '/proc/x', 'users', 'list'], { env, timeoutMs: 10_000 });
    expect(named.code).toBe(6);
    const init = await spawnCli(['init', '--data-dir', '/proc/x', '--password-stdin'], { env, stdin: 'pass-1234\n', timeoutMs: 10_000 });
    expectReport(
      init,
      1,
      'cannot create /proc/x: that file system does not take new directories',
      'name a directory on an ordinary, writable file system (--data-dir DIR, or CHATCTL_CONFIG_DIR for the configuration)',
    );
    // The config dir takes the same path: a login there does not spin either.
    const config = await spawnCli(['login', '--embedded', '--data-dir', org.dir], {
      env: { ...env, CHATCTL_CONFIG_DIR: '/proc/chatctl-config' },
      timeoutMs: 10_000,
    });
    expectReport(
      config,
      1,
      'cannot create /proc/chatctl-config: that file system does not take new directories',
      'name a directory on an ordinary, writable file system (--data-dir DIR, or CHATCTL_CONFIG_DIR for the configuration)',
    );
  });

  it('a file where the data dir should be', async () => {
    const { home, env } = tempHome();
    const file = join(home, 'notes.txt');
    writeFileSync(file, 'hello\n');
    expectReport(
      await spawnCli(['--data-dir', file, 'users', 'list'], { env }),
      1,
      `${file} is not a directory: part of that path is a file`,
      'name a directory (--data-dir DIR), not a file',
    );
    const init = await spawnCli(['init', '--data-dir', join(file, 'org'), '--password-stdin'], { env, stdin: 'pass-1234\n' });
    expectReport(init, 1, `${join(file, 'org')} is not a directory: part of that path is a file`, 'name a directory (--data-dir DIR), not a file');
    expect(readFileSync(file, 'utf8')).toBe('hello\n');
  });

  it.skipIf(!canUnshare)('a read-only file system, for a new data dir and for an existing organization (needs root and unshare)', async () => {
    const { home, env } = tempHome();
    const mount = join(home, 'ro');
    mkdirSync(mount);
    const readOnly = (source: string[]) => ['unshare', '--mount', 'sh', '-c', `mount ${source.join(' ')} "$0" && exec "$@"`, mount];
    const init = await spawnCli(['init', '--data-dir', join(mount, 'org'), '--password-stdin'], {
      env,
      stdin: 'pass-1234\n',
      prefix: readOnly(['-t', 'tmpfs', '-o', 'ro', 'tmpfs']),
    });
    expectReport(
      init,
      1,
      `${join(mount, 'org')} is on a read-only file system`,
      'name a directory on a writable file system (--data-dir DIR, or CHATCTL_CONFIG_DIR for the configuration)',
    );
    const existing = await spawnCli(['--data-dir', mount, 'users', 'list'], {
      env: { ...env, ...org.creds },
      prefix: readOnly(['--bind', '-o', 'ro', org.dir]),
    });
    expectReport(
      existing,
      1,
      `${mount} is on a read-only file system`,
      'name a directory on a writable file system (--data-dir DIR, or CHATCTL_CONFIG_DIR for the configuration)',
    );
  });

  it.skipIf(isRoot && !canSetpriv)('permission denied names the user, the path and what to check', async () => {
    const base = mkdtempSync(join(tmpdir(), 'chatctl-perm-'));
    chmodSync(base, 0o755);
    const home = join(base, 'home');
    mkdirSync(home);
    const dir = join(base, 'org');
    const { env } = tempHome();
    expect((await spawnCli(['init', '--data-dir', dir, '--password-stdin'], { env, stdin: 'pass-1234\n' })).code).toBe(0);
    const config = JSON.parse(readFileSync(join(env.CHATCTL_CONFIG_DIR, 'config.json'), 'utf8')) as {
      profiles: { default: { email: string; apiKey: string } };
    };
    const creds = { ZULIP_EMAIL: config.profiles.default.email, ZULIP_API_KEY: config.profiles.default.apiKey };
    let user: string;
    let prefix: string[] | undefined;
    if (isRoot) {
      // chmod does not stop root: run chatctl as nobody, whom the data dir (root's, mode 0700) shuts out.
      chownSync(home, 65534, 65534);
      prefix = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'];
      user = 'nobody';
    } else {
      chmodSync(dir, 0o000);
      user = (await import('node:os')).userInfo().username;
    }
    const r = await spawnCli(['--data-dir', dir, 'users', 'list'], {
      env: { HOME: home, CHATCTL_CONFIG_DIR: join(home, 'config'), PATH: process.env.PATH ?? '', ...creds },
      prefix,
    });
    if (!isRoot) chmodSync(dir, 0o700);
    expectReport(
      r,
      1,
      `permission denied: chatctl (running as user ${user}) cannot read ${join(dir, 'chatctl.db')}`,
      `give that user read and write access to ${dir} (see: ls -ld ${dir}), or name another directory`,
    );
  });

  it('a full disk (the database is /dev/full)', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    mkdirSync(dir, { mode: 0o700 });
    symlinkSync('/dev/full', join(dir, 'chatctl.db'));
    const deviceMode = statSync('/dev/full').mode;
    const r = await spawnCli(['init', '--data-dir', dir, '--password-stdin'], { env, stdin: 'pass-1234\n' });
    expectReport(r, 1, `no space left on the device holding ${join(dir, 'chatctl.db')}`, 'free some space there, then run the command again');
    // What a link in the data dir points to is never chatctl's to make private.
    expect(statSync('/dev/full').mode).toBe(deviceMode);
  });
});

describe('the database', () => {
  it('a damaged or non-SQLite file: the path, and how to move it away', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    mkdirSync(dir);
    const db = join(dir, 'chatctl.db');
    writeFileSync(db, 'x'.repeat(4096));
    const r = await spawnCli(['--data-dir', dir, 'users', 'list'], { env: { ...env, ...org.creds } });
    expectReport(
      r,
      1,
      `${db} is not a chatctl database, or it is damaged (SQLite: file is not a database)`,
      `if it is another program's file, name chatctl's own data dir (--data-dir DIR); if it is damaged, restore it from a backup, or move it away (mv ${db} ${db}.broken) and create a new organization: chatctl init --data-dir ${dir}`,
    );
  });

  it("another program's SQLite database is refused and left byte-identical", async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    mkdirSync(dir);
    const file = join(dir, 'chatctl.db');
    const foreign = new Database(file);
    foreign.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')");
    foreign.close();
    const before = readFileSync(file);
    const r = await spawnCli(['init', '--data-dir', dir, '--password-stdin'], { env, stdin: 'pass-1234\n' });
    expectReport(
      r,
      1,
      `${file} is an SQLite database chatctl did not write (it holds the tables notes); chatctl left it untouched`,
      'name the data dir chatctl created (--data-dir DIR); chatctl keeps its data in a directory of its own',
    );
    expect(readFileSync(file)).toEqual(before);
  });
});

describe('a malformed config file', () => {
  it('is named with how to fix or move it, and locks no one out of an organization', async () => {
    const { env } = tempHome();
    mkdirSync(env.CHATCTL_CONFIG_DIR, { recursive: true, mode: 0o700 });
    const file = join(env.CHATCTL_CONFIG_DIR, 'config.json');
    writeFileSync(file, '{"profiles": {"work": ', { mode: 0o600 });
    const hint = `fix the file, or move it away and log in again: mv ${file} ${file}.broken (meanwhile --data-dir DIR, --server URL with ZULIP_EMAIL and ZULIP_API_KEY, and --zuliprc FILE work without it)`;

    const plain = await spawnCli(['users', 'list'], { env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(new RegExp(`^chatctl: ${file.replace(/[.]/g, '\\.')} is not valid JSON \\(.+\\)\nhint: `));
    expect(plain.stderr).toContain(hint);

    const viaDir = await spawnCli(['--data-dir', org.dir, 'users', 'list', '--json'], { env: { ...env, ...org.creds } });
    expect(viaDir.code).toBe(0);
    expect(JSON.parse(viaDir.stdout)).toMatchObject([{ delivery_email: 'owner@localhost' }]);
    expect(viaDir.stderr).toContain(`chatctl: warning: ${file} is not valid JSON`);
    expect(viaDir.stderr).toContain('its profiles are ignored');

    // Logging in would overwrite the user's other profiles: refused, the file untouched.
    const login = await spawnCli(['login', '--embedded', '--data-dir', org.dir], { env });
    expect(login.code).toBe(2);
    expect(login.stderr).toContain(hint);
    expect(readFileSync(file, 'utf8')).toBe('{"profiles": {"work": ');

    writeFileSync(file, JSON.stringify({ profiles: { work: { server: 'https://chat.example.com', email: 'a@b.test' } } }), { mode: 0o600 });
    const shape = await spawnCli(['profiles'], { env });
    expect(shape.code).toBe(2);
    expect(shape.stderr).toBe(`chatctl: ${file} has a profile "work" without "apiKey"\nhint: ${hint}\n`);
  });
});
