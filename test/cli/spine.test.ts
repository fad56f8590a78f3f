import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/entry/main.js';
import { createTestOrg, OWNER_PASSWORD, type TestOrg } from '../helpers/org.js';
import { cliTarget, parse, runCli, scriptedPrompter, Sink, tempHome } from '../helpers/cli.js';
import { TRANSPORTS } from '../helpers/transports.js';
import { closedPort } from '../client/servers.js';

const pointAt = cliTarget;

describe.each(TRANSPORTS)('first commands over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
    org.addUser({ role: 200, name: 'Ada Admin', email: 'ada@example.com' });
    org.addUser({ bot: { type: 1, ownerId: 1 }, name: 'Build Bot' });
  });
  afterAll(() => org.close());

  it('users list --json prints the user objects with wire field names', async () => {
    const t = await pointAt(org, kind);
    const r = await runCli([...t.args, 'users', 'list', '--json'], { env: t.env });
    expect(r.code).toBe(0);
    const users = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(users.map((u) => u.full_name)).toEqual(['Olivia Owner', 'Ada Admin', 'Build Bot']);
    expect(users[1]).toMatchObject({ delivery_email: 'ada@example.com', role: 200, is_admin: true, is_bot: false });
  });

  it('users list filters by role and kind, and pipes as TSV without header', async () => {
    const t = await pointAt(org, kind);
    const admins = await runCli([...t.args, 'users', 'list', '--role', 'admin'], { env: t.env });
    expect(admins.stdout.trim().split('\n')).toHaveLength(1);
    expect(admins.stdout.split('\t')[1]).toBe('Ada Admin');
    const bots = await runCli([...t.args, 'users', 'list', '--bots', '--fields', 'full_name,is_bot'], { env: t.env });
    expect(bots.stdout).toBe('Build Bot\ttrue\n');
  });

  it('server settings carries both names of the version fields', async () => {
    const t = await pointAt(org, kind);
    const r = await runCli([...t.args, 'server', 'settings', '--json'], { env: t.env });
    const s = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(s.zulip_feature_level).toBe(s.svc_feature_level);
    expect(s.realm_name).toBe('Test org');
  });

  it('whoami names the user and never shows the key', async () => {
    const t = await pointAt(org, kind);
    const r = await runCli([...t.args, 'whoami', '--json'], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(org.owner.apiKey);
    expect(JSON.parse(r.stdout)).toMatchObject({
      email: 'owner@example.com',
      role: 100,
      role_name: 'owner',
      api_key: `${'*'.repeat(28)}${org.owner.apiKey.slice(-4)}`,
    });
  });

  it('api prints the envelope and exits by the response', async () => {
    const t = await pointAt(org, kind);
    const ok = await runCli([...t.args, 'api', 'GET', '/users', '-f', `user_ids=[${org.owner.id}]`], { env: t.env });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ result: 'success', members: [{ user_id: org.owner.id }] });
    const missing = await runCli([...t.args, 'api', 'GET', '/users/4242'], { env: t.env });
    expect(missing.code).toBe(6);
    expect(JSON.parse(missing.stdout)).toEqual({ result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
    expect(missing.stderr).toBe('chatctl: No such user (BAD_REQUEST)\n');
  });

  it('a wrong key is exit 4 with the server message, as JSON on stderr in JSON mode', async () => {
    const t = await pointAt(org, kind);
    const r = await runCli([...t.args, 'users', 'list', '--json'], { env: { ...t.env, ZULIP_API_KEY: 'B'.repeat(32) } });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { message: 'Invalid API key', code: 'UNAUTHORIZED', http_status: 401, exit_code: 4 } });
  });
});

describe('output formats', () => {
  let org: TestOrg;
  let base: { args: string[]; env: Record<string, string> };
  beforeAll(async () => {
    org = createTestOrg();
    org.addUser({ name: 'Tab\tIn Name' });
    org.addUser({ name: 'Lear, King' });
    base = await pointAt(org, 'embedded');
  });
  afterAll(() => org.close());

  it('draws a table with headers on a TTY, coloured only when allowed', async () => {
    const plain = await runCli([...base.args, 'users', 'list'], { env: { ...base.env, NO_COLOR: '1' }, tty: true });
    expect(plain.stdout.split('\n')[0]).toMatch(/^USER_ID\s+FULL_NAME\s+EMAIL/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for the terminal's escape sequences
    expect(plain.stdout).not.toMatch(/\u001b\[/);
    const coloured = await runCli([...base.args, 'users', 'list'], { env: { ...base.env, FORCE_COLOR: '1' }, tty: true });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for the terminal's escape sequences
    expect(coloured.stdout).toMatch(/\u001b\[1mUSER_ID/);
  });

  it('cuts table cells to the terminal width, never piped output', async () => {
    const narrow = await runCli([...base.args, 'users', 'list'], { env: { ...base.env, NO_COLOR: '1' }, tty: true, columns: 60 });
    for (const line of narrow.stdout.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(60);
    const piped = await runCli([...base.args, 'users', 'list', '--fields', 'avatar_url'], { env: base.env });
    expect(piped.stdout).toContain('https://secure.gravatar.com/avatar/');
  });

  it('escapes tabs in TSV, quotes in CSV with a header, streams NDJSON', async () => {
    const tsv = await runCli([...base.args, 'users', 'list', '--fields', 'full_name'], { env: base.env });
    expect(tsv.stdout).toContain('Tab\\tIn Name\n');
    const csv = await runCli([...base.args, 'users', 'list', '--format', 'csv', '--fields', 'user_id,full_name'], { env: base.env });
    expect(csv.stdout.split('\n')[0]).toBe('user_id,full_name');
    // IDs 1-3 are the server's system bots (Notification Bot, Welcome Bot, Email Gateway), as on a Zulip server.
    expect(csv.stdout).toContain('\n6,"Lear, King"\n');
    const nd = await runCli([...base.args, 'users', 'list', '--format', 'ndjson', '--fields', 'user_id'], { env: base.env });
    expect(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([{ user_id: 4 }, { user_id: 5 }, { user_id: 6 }]);
  });

  it('prints [] for an empty list in JSON', async () => {
    const r = await runCli([...base.args, 'users', 'list', '--json', '--bots'], { env: base.env });
    expect(r.stdout).toBe('[]\n');
    expect(r.code).toBe(0);
  });

  it('refuses an unknown field with the valid ones (exit 2)', async () => {
    const r = await runCli([...base.args, 'users', 'list', '--fields', 'user_id,shoe_size'], { env: base.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('chatctl: unknown field "shoe_size"');
    expect(r.stderr).toMatch(/hint: valid fields: user_id, email, delivery_email, full_name, role/);
  });

  it.each([
    [['users', 'deactivate', '2', '--dry-run', '--fields', 'shoe_size'], 'unknown field "shoe_size"'],
    [['invite', 'send', 'new@example.com', '--dry-run', '--fields', 'shoe_size'], 'unknown field "shoe_size"'],
    [['groups', 'members', 'role:everyone', '--add', '2', '--dry-run', '--fields', 'shoe_size'], 'unknown field "shoe_size"'],
    [['users', 'reactivate', '2', '--json', '--format', 'csv'], '--json and --format disagree'],
  ])('%j: output flags are checked before anything runs, on every path (exit 2)', async (...argv) => {
    const [args, message] = argv as [string[], string];
    const r = await runCli([...base.args, ...args], { env: base.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
  });

  it('refuses unknown options and bad choices as usage errors', async () => {
    expect((await runCli(['users', 'list', '--shoe'], { env: base.env })).code).toBe(2);
    const r = await runCli(['users', 'list', '--format', 'yaml'], { env: base.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("chatctl: option '--format <format>' argument 'yaml' is invalid");
  });
});

describe('embedded organization lifecycle', () => {
  it('creates the organization on first use with nothing configured, and says so once', async () => {
    const { env } = tempHome();
    const first = await runCli(['users', 'list'], { env });
    expect(first.code).toBe(0);
    // The first user after the server's three system bots.
    expect(first.stdout).toMatch(/^4\tOwner\towner@localhost\t/);
    expect(first.stderr).toContain(`created an embedded organization in ${join(env.XDG_DATA_HOME!, 'chatctl')}`);
    expect(first.stderr).toContain('its owner is owner@localhost');
    expect(first.stderr).toContain('chatctl login --server URL');
    const second = await runCli(['users', 'list'], { env });
    expect(second.stderr).toBe('');
    expect(second.stdout).toBe(first.stdout);
  });

  it('init --password-stdin, then login --embedded and logout; the file is private and holds no password', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    const init = await runCli(['init', '--data-dir', dir, '--org-name', 'Acme', '--email', 'boss@acme.test', '--password-stdin'], {
      env,
      stdin: 's3cret-pass\n',
    });
    expect(init.code).toBe(0);
    expect(init.stderr).toContain('created the organization "Acme"');
    const configFile = join(env.CHATCTL_CONFIG_DIR!, 'config.json');
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    expect(statSync(env.CHATCTL_CONFIG_DIR!).mode & 0o777).toBe(0o700);
    const text = readFileSync(configFile, 'utf8');
    expect(text).not.toContain('s3cret-pass');
    expect(JSON.parse(text)).toMatchObject({ defaultProfile: 'default', profiles: { default: { embedded: dir, email: 'boss@acme.test' } } });

    const settings = await runCli(['server', 'settings', '--fields', 'realm_name', '--json'], { env });
    expect(JSON.parse(settings.stdout)).toEqual({ realm_name: 'Acme' });

    const again = await runCli(['init', '--data-dir', dir, '--password-stdin'], { env, stdin: 'whatever1\n' });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already holds the organization "Acme"');

    const out = await runCli(['logout'], { env });
    expect(out.code).toBe(0);
    const noCreds = await runCli(['--data-dir', dir, 'users', 'list'], { env });
    expect(noCreds.code).toBe(4);
    expect(noCreds.stderr).toContain(`no password needed: chatctl login --embedded --data-dir ${dir}`);

    const bad = await runCli(['login', '--embedded', '--data-dir', dir, '--email', 'boss@acme.test', '--password-stdin'], { env, stdin: 'wrong-pass\n' });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('Your username or password is incorrect (AUTHENTICATION_FAILED)');
    const login = await runCli(['login', '--embedded', '--data-dir', dir, '--email', 'boss@acme.test', '--password-stdin'], { env, stdin: 's3cret-pass\n' });
    expect(login.code).toBe(0);
    expect((await runCli(['users', 'list', '--json'], { env })).code).toBe(0);
  });

  it('init with no password and no terminal generates one, shows it once, and it works', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    const init = await runCli(['init', '--data-dir', dir], { env });
    expect(init.code).toBe(0);
    const password = /generated owner password \(shown once, keep it\): (\S+)/.exec(init.stderr)?.[1];
    expect(password).toMatch(/^[A-Za-z0-9]{20}$/);
    const login = await runCli(['login', '--profile', 'second', '--embedded', '--data-dir', dir, '--password-stdin'], { env, stdin: `${password}\n` });
    expect(login.code).toBe(0);
  });

  it('init on a terminal asks for the password twice, hidden', async () => {
    const { home, env } = tempHome();
    const prompter = scriptedPrompter({ password: ['tty-password', 'tty-password'] });
    const r = await runCli(['init', '--data-dir', join(home, 'org')], { env, prompter, tty: true });
    expect(r.code).toBe(0);
    expect(prompter.asked).toEqual(['Owner password:', 'Repeat it:']);
    expect(r.stderr).not.toContain('tty-password');
  });

  it('never prompts without a terminal: login --server needs --password-stdin (exit 2)', async () => {
    const org = createTestOrg();
    try {
      const r = await runCli(['login', '--server', await org.http(), '--email', org.owner.email], { env: tempHome().env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('not running interactively; pass --password-stdin');
    } finally {
      await org.close();
    }
  });

  it('refuses a credentials file that others can read', async () => {
    const { env } = tempHome();
    expect((await runCli(['users', 'list'], { env })).code).toBe(0);
    const file = join(env.CHATCTL_CONFIG_DIR!, 'config.json');
    chmodSync(file, 0o644);
    const r = await runCli(['users', 'list'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('others can read it (mode 644)');
    expect(r.stderr).toContain(`hint: run: chmod 600 ${file}`);
  });
});

describe('remote credentials', () => {
  let org: TestOrg;
  let site: string;
  beforeAll(async () => {
    org = createTestOrg();
    site = await org.http();
  });
  afterAll(() => org.close());

  it('login --server reads server settings, stores the returned e-mail and key, not the password', async () => {
    const { env } = tempHome();
    const r = await runCli(['login', '--server', site, '--email', ' OWNER@example.com ', '--password-stdin'], { env, stdin: `${OWNER_PASSWORD}\n` });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`logged in to ${site} as owner@example.com`);
    const config = JSON.parse(readFileSync(join(env.CHATCTL_CONFIG_DIR!, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
    expect(config.profiles.default).toMatchObject({ server: site, email: 'owner@example.com', apiKey: org.owner.apiKey, featureLevel: 471 });
    expect(JSON.stringify(config)).not.toContain(OWNER_PASSWORD);
    const who = await runCli(['whoami', '--json'], { env });
    expect(JSON.parse(who.stdout)).toMatchObject({ target: site, profile: 'default', email: 'owner@example.com' });
  });

  it('reads a zuliprc (--zuliprc and ZULIP_CONFIG), and refuses one others can read', async () => {
    const { home, env } = tempHome();
    const rc = join(home, 'zuliprc');
    writeFileSync(rc, `[api]\nemail=${org.owner.email}\nkey=${org.owner.apiKey}\nsite=${site}\n`, { mode: 0o600 });
    const viaFlag = await runCli(['--zuliprc', rc, 'whoami', '--json'], { env });
    expect(JSON.parse(viaFlag.stdout)).toMatchObject({ target: site, source: `flag --zuliprc (${rc})`, credentials: `zuliprc ${rc}`, profile: null });
    const viaEnv = await runCli(['users', 'list', '--json'], { env: { ...env, ZULIP_CONFIG: rc } });
    expect(viaEnv.code).toBe(0);
    chmodSync(rc, 0o640);
    expect((await runCli(['--zuliprc', rc, 'users', 'list'], { env })).code).toBe(4);
  });

  it('uses ~/.zuliprc when nothing else is configured, and ZULIP_* variables over it', async () => {
    const { home, env } = tempHome();
    writeFileSync(join(home, '.zuliprc'), `[api]\nemail=nobody@example.com\nkey=${'C'.repeat(32)}\nsite=${site}\n`, { mode: 0o600 });
    const wrong = await runCli(['users', 'list'], { env });
    expect(wrong.code).toBe(4);
    const right = await runCli(['users', 'list'], { env: { ...env, ZULIP_EMAIL: org.owner.email, ZULIP_API_KEY: org.owner.apiKey } });
    expect(right.code).toBe(0);
  });

  it('flags win over the environment: --data-dir, --profile and --server over ZULIP_SITE, ZULIP_CONFIG, CHATCTL_DATA_DIR', async () => {
    const { home, env } = tempHome();
    const elsewhere = `http://127.0.0.1:${await closedPort()}`;
    const rc = join(home, 'zuliprc');
    writeFileSync(rc, `[api]\nemail=${org.owner.email}\nkey=${org.owner.apiKey}\nsite=${elsewhere}\n`, { mode: 0o600 });
    mkdirSync(env.CHATCTL_CONFIG_DIR!, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(env.CHATCTL_CONFIG_DIR!, 'config.json'),
      JSON.stringify({ profiles: { work: { embedded: org.dataDir, email: org.owner.email, apiKey: org.owner.apiKey } } }),
      { mode: 0o600 },
    );
    const creds = { ZULIP_EMAIL: org.owner.email, ZULIP_API_KEY: org.owner.apiKey };
    const who = async (argv: string[], extra: Record<string, string>) => {
      const r = await runCli([...argv, 'whoami', '--json', '--fields', 'target,source'], { env: { ...env, ...extra } });
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout) as { target: string; source: string };
    };
    expect(await who(['--data-dir', org.dataDir], { ...creds, ZULIP_SITE: elsewhere })).toEqual({
      target: `embedded:${org.dataDir}`,
      source: 'flag --data-dir',
    });
    expect(await who(['--data-dir', org.dataDir], { ...creds, ZULIP_CONFIG: rc })).toEqual({ target: `embedded:${org.dataDir}`, source: 'flag --data-dir' });
    expect(await who(['--profile', 'work'], { ZULIP_SITE: elsewhere })).toEqual({ target: `embedded:${org.dataDir}`, source: 'flag --profile' });
    expect(await who(['--profile', 'work'], { CHATCTL_DATA_DIR: join(home, 'other-org') })).toEqual({
      target: `embedded:${org.dataDir}`,
      source: 'flag --profile',
    });
    expect(await who(['--server', site], { ...creds, ZULIP_CONFIG: rc })).toEqual({ target: site, source: 'flag --server' });
    // Among the variables, the order is unchanged: ZULIP_SITE over CHATCTL_PROFILE.
    expect(await who([], { ...creds, ZULIP_SITE: site, CHATCTL_PROFILE: 'work' })).toEqual({ target: site, source: 'environment variable ZULIP_SITE' });
  });

  it('serve takes the data dir of --profile over CHATCTL_DATA_DIR, as every other command does', async () => {
    const served = createTestOrg();
    try {
      const { home, env } = tempHome();
      mkdirSync(env.CHATCTL_CONFIG_DIR!, { recursive: true, mode: 0o700 });
      writeFileSync(
        join(env.CHATCTL_CONFIG_DIR!, 'config.json'),
        JSON.stringify({ profiles: { work: { embedded: served.dataDir, email: served.owner.email, apiKey: served.owner.apiKey } } }),
        { mode: 0o600 },
      );
      const stdin = new PassThrough();
      stdin.end();
      const stderr = new Sink();
      const controller = new AbortController();
      const done = main(['--profile', 'work', 'serve', '--port', '0'], {
        io: { stdin, stdout: new Sink(), stderr, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false, columns: 80 },
        env: { ...env, CHATCTL_DATA_DIR: join(home, 'other-org') },
        signal: controller.signal,
      });
      let finished = false;
      void done.then(() => (finished = true));
      while (!finished && !stderr.text.includes('serving')) await new Promise((r) => setTimeout(r, 5));
      controller.abort('SIGINT');
      expect(await done).toBe(0);
      expect(stderr.text).toContain(`chatctl: serving ${served.dataDir} at http://127.0.0.1:`);
    } finally {
      await served.close();
    }
  });

  it('names a missing profile and the ones there are', async () => {
    const { env } = tempHome();
    mkdirSync(env.CHATCTL_CONFIG_DIR!, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(env.CHATCTL_CONFIG_DIR!, 'config.json'),
      JSON.stringify({ profiles: { work: { server: site, email: org.owner.email, apiKey: org.owner.apiKey } } }),
      { mode: 0o600 },
    );
    const r = await runCli(['--profile', 'home', 'users', 'list'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('chatctl: no profile named "home"\nhint: profiles: work\n');
    expect((await runCli(['users', 'list'], { env: { ...env, CHATCTL_PROFILE: 'work' } })).code).toBe(0);
  });
});

describe('help', () => {
  it('documents exit codes and environment', async () => {
    const codes = await runCli(['help', 'exit-codes']);
    expect(codes.stdout).toMatch(/^\s+75 {2}temporary failure/m);
    const env = await runCli(['help', 'environment']);
    expect(env.stdout).toContain('ZULIP_API_KEY');
    expect((await runCli(['help', 'users'])).stdout).toContain('list the users of the organization');
  });
});

describe('parsing the first commands', () => {
  it.each([
    [
      ['init', '--data-dir', '/tmp/x', '--org-name', 'Acme', '--email', 'a@b.test', '--password-stdin', '--demo'],
      ['init'],
      { orgName: 'Acme', email: 'a@b.test', passwordStdin: true, demo: true },
      { dataDir: '/tmp/x' },
    ],
    [['init'], ['init'], { orgName: 'Embedded organization', email: 'owner@localhost', name: 'Owner' }, {}],
    [
      ['login', '--server', 'https://chat.example.com', '--email', 'a@b.test', '--password-stdin'],
      ['login'],
      { email: 'a@b.test', passwordStdin: true },
      { server: 'https://chat.example.com' },
    ],
    [['--profile', 'work', 'logout'], ['logout'], {}, { profile: 'work' }],
    [['whoami', '--json'], ['whoami'], { json: true }, {}],
    [['serve', '--port', '0', '--host', '::1'], ['serve'], { port: 0, host: '::1' }, {}],
    [['server', 'settings', '--fields', 'zulip_version'], ['server', 'settings'], { fields: ['zulip_version'] }, {}],
    [
      ['api', 'post', '/users/me/presence', '-f', 'status=active', '-f', 'ping_only=true'],
      ['api'],
      {
        method: 'POST',
        path: '/users/me/presence',
        field: [
          { key: 'status', value: { kind: 'value', value: 'active' } },
          { key: 'ping_only', value: { kind: 'value', value: 'true' } },
        ],
      },
      {},
    ],
    [['users', 'list', '--verbose', '--max-wait', '5'], ['users', 'list'], {}, { verbose: true, maxWait: 5 }],
    [['completion', 'fish'], ['completion'], { shell: 'fish' }, {}],
  ] as const)('%j', async (argv, path, opts, globals) => {
    const parsed = await parse([...argv]);
    expect(parsed.spec.path).toEqual(path);
    expect(parsed.opts).toMatchObject(opts);
    expect(parsed.globals).toMatchObject(globals);
  });

  it.each([
    [['api'], "chatctl: missing required argument 'method'"],
    [['api', 'GET'], "chatctl: missing required argument 'path'"],
    [['login', '--email'], "chatctl: option '--email <email>' argument missing"],
    [['users', 'lst'], "chatctl: unknown command 'lst'"],
    [['--color', 'pink', 'whoami'], "chatctl: option '--color <when>' argument 'pink' is invalid"],
  ])('%j is a usage error', async (argv, message) => {
    const r = await runCli(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it.each([
    [['serve', '--port', 'eighty'], '--port takes a port number, not "eighty"'],
    [['login'], 'say where to log in: --server URL, or --embedded'],
    [['login', '--embedded', '--server', 'https://x.test'], '--embedded and --server exclude each other'],
    [['api', 'FETCH', '/users'], 'unknown method "FETCH"'],
    [['api', 'GET', '/users', '-f', 'novalue'], '-f takes key=value, not "novalue"'],
  ])('%j is refused before anything is sent (exit 2)', async (argv, message) => {
    const r = await runCli(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
