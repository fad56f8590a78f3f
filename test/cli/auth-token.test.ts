/**
 * `chatctl auth token` prints the key of the credentials every other command would use (the usual
 * precedence), into a pipe, or on a terminal only with --show; nothing else, and never on stderr.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome, writeProfile } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'B'.repeat(32);

describe('auth token', () => {
  it('prints the default profile’s key; --profile, then ZULIP_EMAIL/ZULIP_API_KEY, take precedence as for every command', async () => {
    const { env } = tempHome();
    writeProfile(env, { server: 'https://a.example.com', email: 'a@a.test', apiKey: KEY_A });
    expect(await runCli(['auth', 'token'], { env })).toEqual({ code: 0, stdout: `${KEY_A}\n`, stderr: '' });
    const fromEnv = await runCli(['auth', 'token'], { env: { ...env, ZULIP_EMAIL: 'b@b.test', ZULIP_API_KEY: KEY_B } });
    expect(fromEnv.stdout).toBe(`${KEY_B}\n`);
    const missing = await runCli(['--profile', 'other', 'auth', 'token'], { env });
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toContain('no profile named "other"');
  });

  it('refuses a terminal without --show, saying how to get it; --show prints it there', async () => {
    const { env } = tempHome();
    writeProfile(env, { server: 'https://a.example.com', email: 'a@a.test', apiKey: KEY_A });
    const tty = await runCli(['auth', 'token'], { env, tty: true });
    expect(tty).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'chatctl: not printing the API key to a terminal\n' +
        'hint: pipe it where it is needed (chatctl auth token | ...; KEY=$(chatctl auth token)), or pass --show to see it here\n',
    });
    expect(await runCli(['auth', 'token', '--show'], { env, tty: true })).toEqual({ code: 0, stdout: `${KEY_A}\n`, stderr: '' });
  });

  it('without credentials says how to log in (exit 4), and never writes the key to stderr, --verbose or not', async () => {
    const none = await runCli(['--server', 'https://nowhere.example.com', 'auth', 'token'], { env: tempHome().env });
    expect(none).toMatchObject({ code: 4, stdout: '' });
    expect(none.stderr).toContain('no credentials for https://nowhere.example.com');
    const { env } = tempHome();
    writeProfile(env, { server: 'https://a.example.com', email: 'a@a.test', apiKey: KEY_A });
    const verbose = await runCli(['--verbose', 'auth', 'token'], { env });
    expect(verbose.stdout).toBe(`${KEY_A}\n`);
    expect(verbose.stderr).not.toContain(KEY_A);
  });
});

describe.each(TRANSPORTS)('auth token over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('prints the key login stored, which authenticates as that user', async () => {
    const { env } = tempHome();
    const login =
      kind === 'embedded'
        ? ['login', '--embedded', '--data-dir', org.dataDir]
        : ['login', '--server', await org.http(), '--email', org.owner.email, '--api-key-stdin'];
    expect((await runCli(login, { env, stdin: `${org.owner.apiKey}\n` })).code).toBe(0);
    const token = await runCli(['auth', 'token'], { env });
    expect(token.stdout).toBe(`${org.owner.apiKey}\n`);
    const target = kind === 'embedded' ? ['--data-dir', org.dataDir] : ['--server', await org.http()];
    const me = await runCli([...target, 'whoami', '--json'], {
      env: { ...tempHome().env, ZULIP_EMAIL: org.owner.email, ZULIP_API_KEY: token.stdout.trim() },
    });
    expect(JSON.parse(me.stdout)).toMatchObject({ email: org.owner.email, role_name: 'owner' });
  });
});
