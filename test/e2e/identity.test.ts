/**
 * Identity, as a person or a cron job meets it through the installed binary: which organization and
 * account a command uses is never changed behind the user's back, and there is always a way back in.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, tempHome } from '../helpers/cli.js';
import { closedPort } from '../client/servers.js';
import { createTestOrg } from '../helpers/org.js';

const configFile = (env: Record<string, string>) => join(env.CHATCTL_CONFIG_DIR!, 'config.json');

/** A config file as chatctl writes it, holding a server profile `work` (default) with its API key. */
async function serverProfile(env: Record<string, string>): Promise<string> {
  mkdirSync(env.CHATCTL_CONFIG_DIR!, { recursive: true, mode: 0o700 });
  const site = `http://127.0.0.1:${await closedPort()}`;
  writeFileSync(
    configFile(env),
    JSON.stringify({ defaultProfile: 'work', profiles: { work: { server: site, email: 'admin@work.test', apiKey: 'K'.repeat(32) } } }),
    { mode: 0o600 },
  );
  return site;
}

const json = (s: string) => JSON.parse(s) as Record<string, unknown>;

describe('a named data dir without an organization', () => {
  it.each([
    [
      '--data-dir typo',
      (dir: string) => ({ argv: ['--data-dir', dir, 'attachments', 'clean', '--older-than', '1d', '--yes'], env: {}, source: 'flag --data-dir' }),
    ],
    [
      'CHATCTL_DATA_DIR=typo',
      (dir: string) => ({
        argv: ['attachments', 'clean', '--older-than', '1d', '--yes'],
        env: { CHATCTL_DATA_DIR: dir },
        source: 'environment variable CHATCTL_DATA_DIR',
      }),
    ],
    ['-p work --data-dir typo whoami', (dir: string) => ({ argv: ['-p', 'work', '--data-dir', dir, 'whoami'], env: {}, source: 'flag --data-dir' })],
  ])('%s: exit 6 naming the dir; the profile stays byte-identical and nothing is created', async (_name, make) => {
    const { home, env } = tempHome();
    await serverProfile(env);
    const before = readFileSync(configFile(env));
    const typo = join(home, 'chta');
    const { argv, env: extra, source } = make(typo);
    const r = await spawnCli(argv, { env: { ...env, ...extra } });
    expect(r.code).toBe(6);
    expect(r.stderr).toBe(
      `chatctl: there is no organization in ${typo} (chosen by ${source})\nhint: check the path; to create an organization there: chatctl init --data-dir ${typo}\n`,
    );
    expect(r.stdout).toBe('');
    expect(readFileSync(configFile(env))).toEqual(before);
    expect(existsSync(typo)).toBe(false);
    expect(existsSync(join(env.XDG_DATA_HOME!, 'chatctl'))).toBe(false);
  });

  it('is not created on first use either when a profile exists: only with nothing configured at all', async () => {
    const { env } = tempHome();
    await serverProfile(env);
    const before = readFileSync(configFile(env));
    // The default profile is a server (unreachable here): the command goes there, never to a new organization.
    const r = await spawnCli(['users', 'list', '--max-wait', '0'], { env });
    expect(r.code).toBe(75);
    expect(r.stderr).not.toContain('created an embedded organization');
    expect(readFileSync(configFile(env))).toEqual(before);
    expect(existsSync(join(env.XDG_DATA_HOME!, 'chatctl'))).toBe(false);
  });
});

describe('profiles', () => {
  it('init of a second profile keeps the default and says so; profiles lists them, profiles use switches', async () => {
    const { home, env } = tempHome();
    const [a, b] = [join(home, 'a'), join(home, 'b')];
    expect((await spawnCli(['init', '--data-dir', a, '--org-name', 'A', '--password-stdin'], { env, stdin: 'pass-aaaa\n' })).code).toBe(0);
    const second = await spawnCli(['init', '--profile', 'second', '--data-dir', b, '--org-name', 'B', '--password-stdin'], { env, stdin: 'pass-bbbb\n' });
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('the default profile stays "default"; to make "second" the default: chatctl profiles use second');
    expect(json((await spawnCli(['server', 'settings', '--json', '--fields', 'realm_name'], { env })).stdout)).toEqual({ realm_name: 'A' });

    const list = await spawnCli(['profiles', '--json'], { env });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([
      { name: 'default', default: true, kind: 'embedded', target: a, email: 'owner@localhost' },
      { name: 'second', default: false, kind: 'embedded', target: b, email: 'owner@localhost' },
    ]);
    expect(list.stdout).not.toMatch(/apiKey|api_key/);

    const use = await spawnCli(['profiles', 'use', 'second'], { env });
    expect(use).toMatchObject({ code: 0, stdout: '', stderr: 'chatctl: "second" is now the default profile (it was "default")\n' });
    expect(json((await spawnCli(['server', 'settings', '--json', '--fields', 'realm_name'], { env })).stdout)).toEqual({ realm_name: 'B' });
    const table = await spawnCli(['profiles'], { env });
    expect(table.stdout).toBe(`default\tfalse\tembedded\t${a}\towner@localhost\nsecond\ttrue\tembedded\t${b}\towner@localhost\n`);

    const before = readFileSync(configFile(env));
    const missing = await spawnCli(['profiles', 'use', 'thrid'], { env });
    expect(missing).toMatchObject({ code: 6, stderr: 'chatctl: no profile named "thrid"\nhint: profiles: default, second\n' });
    expect(readFileSync(configFile(env))).toEqual(before);
  });
});

describe('login over an existing profile', () => {
  it('says what the profile pointed to before, and that the default stays', async () => {
    const { home, env } = tempHome();
    const site = await serverProfile(env);
    const dir = join(home, 'org');
    expect((await spawnCli(['init', '--profile', 'local', '--data-dir', dir, '--password-stdin'], { env, stdin: 'pass-1234\n' })).code).toBe(0);
    const r = await spawnCli(['login', '--profile', 'work', '--embedded', '--data-dir', dir], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `chatctl: profile "work" pointed to ${site}; it now points to the embedded organization in ${dir}\n` +
        `chatctl: logged in to the embedded organization in ${dir} as owner@localhost (profile "work")\n`,
    );
  });
});

describe('whoami says where its choice came from', () => {
  it('flag, environment variable by name, default profile; and when ZULIP_EMAIL and ZULIP_API_KEY replaced the credentials', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    expect((await spawnCli(['init', '--data-dir', dir, '--password-stdin'], { env, stdin: 'pass-1234\n' })).code).toBe(0);
    const profile = json(readFileSync(configFile(env), 'utf8')).profiles as Record<string, { apiKey: string }>;
    const key = profile.default!.apiKey;
    const who = async (argv: string[], extra: Record<string, string> = {}) => {
      const r = await spawnCli([...argv, 'whoami', '--json', '--fields', 'source,credentials,email'], { env: { ...env, ...extra } });
      expect(r.stderr).toBe('');
      return json(r.stdout);
    };
    expect(await who([])).toEqual({ source: 'default profile', credentials: 'profile default', email: 'owner@localhost' });
    expect(await who(['--data-dir', dir])).toEqual({ source: 'flag --data-dir', credentials: 'profile default', email: 'owner@localhost' });
    expect(await who([], { CHATCTL_DATA_DIR: dir })).toEqual({
      source: 'environment variable CHATCTL_DATA_DIR',
      credentials: 'profile default',
      email: 'owner@localhost',
    });
    expect(await who(['--profile', 'default'])).toEqual({ source: 'flag --profile', credentials: 'profile default', email: 'owner@localhost' });
    expect(await who([], { ZULIP_EMAIL: 'owner@localhost', ZULIP_API_KEY: key })).toEqual({
      source: 'default profile',
      credentials: 'environment variables ZULIP_EMAIL and ZULIP_API_KEY, in place of those of profile default',
      email: 'owner@localhost',
    });

    expect(await who(['--data-dir', dir], { ZULIP_EMAIL: 'owner@localhost', ZULIP_API_KEY: key, CHATCTL_CONFIG_DIR: join(home, 'none') })).toEqual({
      source: 'flag --data-dir',
      credentials: 'environment variables ZULIP_EMAIL and ZULIP_API_KEY',
      email: 'owner@localhost',
    });
  });

  it('names ~/.zuliprc when it is what chose the server and the credentials', async () => {
    const org = createTestOrg();
    try {
      const { home, env } = tempHome();
      const rc = join(home, '.zuliprc');
      writeFileSync(rc, `[api]\nemail=${org.owner.email}\nkey=${org.owner.apiKey}\nsite=${await org.http()}\n`, { mode: 0o600 });
      const r = await spawnCli(['whoami', '--json', '--fields', 'source,credentials,email'], { env });
      expect(json(r.stdout)).toEqual({ source: `zuliprc ${rc}`, credentials: `zuliprc ${rc}`, email: org.owner.email });
    } finally {
      await org.close();
    }
  });

  it.each([
    [{ ZULIP_EMAIL: 'owner@localhost' }, 'ZULIP_EMAIL is set but ZULIP_API_KEY is not', 'unset ZULIP_EMAIL'],
    [{ ZULIP_API_KEY: 'K'.repeat(32) }, 'ZULIP_API_KEY is set but ZULIP_EMAIL is not', 'unset ZULIP_API_KEY'],
  ])('%o alone is an error (exit 2), never a silent fall-back to the profile', async (extra, message, hint) => {
    const { env } = tempHome();
    await serverProfile(env);
    const r = await spawnCli(['whoami'], { env: { ...env, ...extra } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`chatctl: ${message}: they replace the credentials together\nhint: set both, or ${hint}\n`);
  });
});

describe('serve', () => {
  it('refuses a server profile (exit 2) rather than serving some other data dir', async () => {
    const { env } = tempHome();
    const site = await serverProfile(env);
    const r = await spawnCli(['serve', '-p', 'work', '--port', '0'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `chatctl: serve works on an embedded organization's data dir, but the target is the server ${site} (chosen by flag --profile)\n` +
        'hint: name a data dir: --data-dir DIR, or --profile NAME of an embedded profile (chatctl profiles lists them)\n',
    );
    expect(existsSync(join(env.XDG_DATA_HOME!, 'chatctl'))).toBe(false);
  });
});

describe('a way back in', () => {
  it('after logout, the owner of the organization made on first use signs in again without a password; hints form no circle', async () => {
    const { env } = tempHome();
    const first = await spawnCli(['users', 'list', '--json'], { env });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('to sign in again after logout: chatctl login --embedded (no password needed)');
    expect(first.stderr).toContain('chatctl server reset-password owner@localhost');
    const dataDir = join(env.XDG_DATA_HOME!, 'chatctl');

    const out = await spawnCli(['logout'], { env });
    expect(out.stderr).toContain(`to sign in again: chatctl login --embedded --data-dir ${dataDir} (no password needed)`);
    // Nothing configured any more, but the default data dir holds an organization: it is not replaced.
    const locked = await spawnCli(['users', 'list'], { env });
    expect(locked.code).toBe(4);
    expect(locked.stderr).toContain(`no password needed: chatctl login --embedded --data-dir ${dataDir}`);

    const back = await spawnCli(['login', '--embedded'], { env });
    expect(back.code).toBe(0);
    expect(back.stderr).toContain(`logged in to the embedded organization in ${dataDir} as owner@localhost (profile "default")`);
    expect(JSON.parse((await spawnCli(['users', 'list', '--json'], { env })).stdout)).toEqual(JSON.parse(first.stdout));
  });

  it('init on an existing organization points at login --embedded, which works, never back at init', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    expect((await spawnCli(['init', '--data-dir', dir, '--email', 'boss@acme.test', '--password-stdin'], { env, stdin: 'pass-1234\n' })).code).toBe(0);
    expect((await spawnCli(['logout'], { env })).code).toBe(0);
    const again = await spawnCli(['init', '--data-dir', dir, '--password-stdin'], { env, stdin: 'pass-5678\n' });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`chatctl login --embedded --data-dir ${dir}`);
    const login = await spawnCli(['login', '--embedded', '--data-dir', dir], { env });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain('as boss@acme.test');
  });

  it('server reset-password sets a password that login --password-stdin (fetch_api_key) then accepts; unknown users are exit 6, weak passwords exit 2', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    expect((await spawnCli(['init', '--data-dir', dir, '--email', 'boss@acme.test'], { env })).code).toBe(0);
    const reset = await spawnCli(['--data-dir', dir, 'server', 'reset-password', 'boss@acme.test', '--password-stdin'], { env, stdin: 'new-pass-42\n' });
    expect(reset).toMatchObject({ code: 0, stdout: '' });
    expect(reset.stderr).toBe(`chatctl: set the password of boss@acme.test in ${dir}\n`);
    const other = tempHome().env;
    const login = await spawnCli(['login', '--profile', 'pw', '--embedded', '--data-dir', dir, '--email', 'boss@acme.test', '--password-stdin'], {
      env: other,
      stdin: 'new-pass-42\n',
    });
    expect(login.code).toBe(0);
    const wrong = await spawnCli(['login', '--embedded', '--data-dir', dir, '--email', 'boss@acme.test', '--password-stdin'], {
      env: other,
      stdin: 'old-or-wrong\n',
    });
    expect(wrong.code).toBe(4);

    const ghost = await spawnCli(['--data-dir', dir, 'server', 'reset-password', 'ghost@acme.test', '--password-stdin'], { env, stdin: 'new-pass-42\n' });
    expect(ghost).toMatchObject({ code: 6, stderr: 'chatctl: No such user: ghost@acme.test\n' });
    const weak = await spawnCli(['--data-dir', dir, 'server', 'reset-password', 'boss@acme.test', '--password-stdin'], { env, stdin: 'abc\n' });
    expect(weak.code).toBe(2);
    expect(weak.stderr).toContain('the password is too weak (at least 6 characters)');
  });
});
