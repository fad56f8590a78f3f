/**
 * chatctl against remote servers: every command once over HTTP against the embedded organization served
 * on 127.0.0.1, then login's server-settings flow, rate limits, proxies' pages, unreachable servers,
 * --verbose and --max-wait against mocked servers (nock on the global fetch; 127.0.0.1 stays reachable).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, scriptedPrompter, tempHome, writeProfile } from '../helpers/cli.js';
import { createTestOrg, OWNER_PASSWORD, type TestOrg } from '../helpers/org.js';
import { documentedExample, schemaExample } from '../client/examples.js';
import { closedPort, startServer } from '../client/servers.js';

const readConfigFile = (env: Record<string, string>) =>
  JSON.parse(readFileSync(join(env.CHATCTL_CONFIG_DIR!, 'config.json'), 'utf8')) as {
    defaultProfile?: string;
    profiles: Record<string, Record<string, unknown>>;
  };

describe('every command against a remote URL', () => {
  let org: TestOrg;
  let site: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    org = createTestOrg();
    org.addUser({ role: 200, name: 'Ada Admin', email: 'ada@example.com' });
    site = await org.http();
    env = tempHome().env;
  });
  afterAll(() => org.close());

  it('login --server, then whoami, users list, server settings, api, logout', async () => {
    const login = await runCli(['login', '--server', site, '--email', 'owner@example.com', '--password-stdin'], { env, stdin: `${OWNER_PASSWORD}\n` });
    expect(login.code).toBe(0);
    expect(login.stderr).toBe(`chatctl: logged in to ${site} as owner@example.com (profile "default", feature level 471, server 12.0-chatctl)\n`);
    expect(readConfigFile(env).profiles.default).toMatchObject({
      server: site,
      email: 'owner@example.com',
      apiKey: org.owner.apiKey,
      featureLevel: 471,
      serverVersion: '12.0-chatctl',
    });

    const who = await runCli(['whoami', '--json'], { env });
    expect(JSON.parse(who.stdout)).toMatchObject({ target: site, profile: 'default', email: 'owner@example.com', role_name: 'owner' });

    const users = await runCli(['users', 'list', '--json'], { env });
    expect((JSON.parse(users.stdout) as { full_name: string }[]).map((u) => u.full_name)).toEqual(['Olivia Owner', 'Ada Admin']);

    const settings = await runCli(['server', 'settings', '--json', '--fields', 'realm_name,zulip_feature_level'], { env });
    expect(JSON.parse(settings.stdout)).toEqual({ realm_name: 'Test org', zulip_feature_level: 471 });

    const api = await runCli(['api', 'GET', '/users/me'], { env });
    expect(JSON.parse(api.stdout)).toMatchObject({ result: 'success', email: 'owner@example.com' });

    expect((await runCli(['logout'], { env })).code).toBe(0);
    const after = await runCli(['--server', site, 'users', 'list'], { env });
    expect(after.code).toBe(4);
    expect(after.stderr).toContain(`no credentials for ${site}`);
  });

  it('login --api-key-stdin checks the key with GET /users/me and stores the e-mail the server knows', async () => {
    const home = tempHome().env;
    const r = await runCli(['login', '--server', site, '--email', 'OWNER@example.com', '--api-key-stdin'], { env: home, stdin: `${org.owner.apiKey}\n` });
    expect(r.code).toBe(0);
    expect(readConfigFile(home).profiles.default).toMatchObject({ server: site, email: 'owner@example.com', apiKey: org.owner.apiKey, featureLevel: 471 });
    const wrong = await runCli(['login', '--server', site, '--email', 'owner@example.com', '--api-key-stdin'], {
      env: tempHome().env,
      stdin: `${'Z'.repeat(32)}\n`,
    });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('Invalid API key (UNAUTHORIZED)');
    const noEmail = await runCli(['login', '--server', site, '--api-key-stdin'], { env: tempHome().env, stdin: `${org.owner.apiKey}\n` });
    expect(noEmail.code).toBe(2);
    expect(noEmail.stderr).toContain('--api-key-stdin needs --email');
  });

  it('login --embedded --api-key-stdin checks the key against the embedded organization', async () => {
    const home = tempHome().env;
    const r = await runCli(['login', '--embedded', '--data-dir', org.dataDir, '--email', 'owner@example.com', '--api-key-stdin'], {
      env: home,
      stdin: `${org.owner.apiKey}\n`,
    });
    expect(r.code).toBe(0);
    expect(readConfigFile(home).profiles.default).toEqual({ embedded: org.dataDir, email: 'owner@example.com', apiKey: org.owner.apiKey });
    const both = await runCli(['login', '--embedded', '--data-dir', org.dataDir, '--password-stdin', '--api-key-stdin'], { env: home, stdin: 'x\n' });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--password-stdin and --api-key-stdin exclude each other');
  });

  it('--verbose shows each request and its status, never the key, the Authorization header or the password', async () => {
    const home = tempHome().env;
    const login = await runCli(['--verbose', 'login', '--server', site, '--email', 'owner@example.com', '--password-stdin'], {
      env: home,
      stdin: `${OWNER_PASSWORD}\n`,
    });
    expect(login.stderr).toMatch(/^chatctl: > GET \/server_settings$/m);
    expect(login.stderr).toMatch(/^chatctl: > POST \/fetch_api_key username=owner@example.com password=\*\*\*$/m);
    expect(login.stderr).toMatch(/^chatctl: < 200 POST \/fetch_api_key \d+ ms$/m);
    const list = await runCli(['-v', 'users', 'list', '--json'], { env: home });
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(/^chatctl: > GET \/users$/m);
    expect(list.stderr).toMatch(/^chatctl: < 200 GET \/users \d+ ms$/m);
    for (const secret of [OWNER_PASSWORD, org.owner.apiKey, Buffer.from(`owner@example.com:${org.owner.apiKey}`).toString('base64'), 'Basic']) {
      expect(login.stderr + list.stderr).not.toContain(secret);
    }
  });

  it('an unreachable server is exit 75 after the retries, with the reason', async () => {
    const port = await closedPort();
    const r = await runCli(['--server', `http://127.0.0.1:${port}`, 'server', 'settings'], { env: tempHome().env });
    expect(r.code).toBe(75);
    const refused = 'the connection was refused (nothing listens at that address and port)';
    expect(r.stderr).toContain(`chatctl: cannot reach the server at 127.0.0.1:${port}: ${refused}\n`);
    expect(r.stderr.split(`failed: ${refused}; retrying`)).toHaveLength(3);
    expect(r.stderr).not.toContain('ECONNREFUSED');
  });

  it('Ctrl-C during a request is exit 130, and says interrupted (as JSON in JSON modes)', async () => {
    const hanging = await startServer(() => undefined);
    try {
      const controller = new AbortController();
      const run = runCli(['--server', hanging.url, 'attachments', 'list', '--json'], {
        env: { ...tempHome().env, ZULIP_EMAIL: 'x@y.test', ZULIP_API_KEY: 'A'.repeat(32) },
        signal: controller.signal,
      });
      while (hanging.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
      // What the entry point does on SIGINT.
      controller.abort('SIGINT');
      const r = await run;
      expect(r.code).toBe(130);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr)).toEqual({ error: { message: 'interrupted', code: 'INTERRUPTED', exit_code: 130 } });
    } finally {
      await hanging.close();
    }
  });

  it('refuses a --max-wait that is not a number of seconds', async () => {
    const r = await runCli(['--server', site, '--max-wait', 'soon', 'server', 'settings'], { env: tempHome().env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--max-wait takes a number of seconds, not "soon"');
  });

  it('warns on stderr when certificate checks are off (--insecure, ZULIP_ALLOW_INSECURE=true)', async () => {
    const flag = await runCli(['--server', site, '--insecure', 'server', 'settings', '--json'], { env: tempHome().env });
    expect(flag.code).toBe(0);
    expect(flag.stderr).toContain('chatctl: warning: TLS certificate verification is off');
    const viaEnv = await runCli(['--server', site, 'server', 'settings', '--json'], { env: { ...tempHome().env, ZULIP_ALLOW_INSECURE: 'true' } });
    expect(viaEnv.stderr).toContain('TLS certificate verification is off');
    const off = await runCli(['--server', site, 'server', 'settings', '--json'], { env: tempHome().env });
    expect(off.stderr).toBe('');
  });
});

describe('against mocked Zulip servers', () => {
  const SITE = 'http://chat.test';
  const creds = { ZULIP_EMAIL: 'iago@zulip.com', ZULIP_API_KEY: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' };
  // The documented example names http://localhost:9991 as the organization: point it at the mocked site.
  const settings = (extra: Record<string, unknown> = {}) => ({
    ...documentedExample('GET', '/server_settings'),
    zulip_feature_level: 300,
    realm_url: SITE,
    realm_uri: SITE,
    ...extra,
  });

  beforeEach(() => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
  });
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it('filters users list --ids itself on servers before feature level 384, which ignore user_ids', async () => {
    const example = documentedExample('GET', '/users') as { members: { user_id: number }[] };
    const wanted = example.members[1]!.user_id;
    nock(SITE).get('/api/v1/server_settings').reply(200, settings());
    nock(SITE)
      .get('/api/v1/users')
      .query((q) => !('user_ids' in q))
      .reply(200, example);
    const r = await runCli(['--server', SITE, 'users', 'list', '--ids', String(wanted), '--json'], { env: { ...tempHome().env, ...creds } });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { user_id: number }[]).map((u) => u.user_id)).toEqual([wanted]);
    expect(r.stderr).toBe('');
    expect(nock.isDone()).toBe(true);
  });

  describe('login', () => {
    it('follows realm_url to the organization, logs in there, and stores that URL and the returned e-mail', async () => {
      const env = tempHome().env;
      nock(SITE)
        .get('/api/v1/server_settings')
        .reply(200, settings({ realm_url: 'http://zulip.chat.test', realm_uri: 'http://zulip.chat.test' }));
      const org = nock('http://zulip.chat.test')
        .get('/api/v1/server_settings')
        .reply(200, settings({ realm_url: 'http://zulip.chat.test', zulip_version: '8.3' }))
        .post('/api/v1/fetch_api_key', { username: 'IAGO@zulip.com', password: 'pw-iago-1' })
        .reply(200, documentedExample('POST', '/fetch_api_key'));
      const r = await runCli(['login', '--server', SITE, '--email', 'IAGO@zulip.com', '--password-stdin'], { env, stdin: 'pw-iago-1\n' });
      expect(r.code).toBe(0);
      expect(org.isDone()).toBe(true);
      expect(r.stderr).toBe(
        `chatctl: ${SITE} is the organization at http://zulip.chat.test; logging in there\n` +
          'chatctl: logged in to http://zulip.chat.test as iago@zulip.com (profile "default", feature level 300, server 8.3)\n',
      );
      expect(readConfigFile(env).profiles.default).toMatchObject({
        server: 'http://zulip.chat.test',
        email: 'iago@zulip.com',
        apiKey: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv',
        featureLevel: 300,
        serverVersion: '8.3',
      });
    });

    it("takes a site pasted with /api or /api/v1, as Zulip's clients do", async () => {
      for (const given of [`${SITE}/api`, `${SITE}/api/v1/`]) {
        const env = tempHome().env;
        nock(SITE).get('/api/v1/server_settings').reply(200, settings()).post('/api/v1/fetch_api_key').reply(200, documentedExample('POST', '/fetch_api_key'));
        const r = await runCli(['login', '--server', given, '--email', 'iago@zulip.com', '--password-stdin'], { env, stdin: 'pw-iago-1\n' });
        expect(r.code).toBe(0);
        expect(readConfigFile(env).profiles.default!.server).toBe(SITE);
      }
    });

    it("on a server's root domain, says that the organization's own address is needed (exit 2)", async () => {
      nock(SITE)
        .get('/api/v1/server_settings')
        .reply(200, settings({ realm_url: undefined, realm_uri: undefined }))
        .post('/api/v1/fetch_api_key')
        .reply(404, { result: 'error', msg: 'Invalid subdomain', code: 'NONEXISTENT_SUBDOMAIN' });
      const env = tempHome().env;
      const r = await runCli(['login', '--server', SITE, '--email', 'iago@zulip.com', '--password-stdin'], { env, stdin: 'pw\n' });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `chatctl: ${SITE} hosts several organizations and is none of them (Invalid subdomain)\n` +
          "hint: log in at your organization's own address, e.g. chatctl login --server https://ORGANIZATION.chat.test --email EMAIL\n",
      );
    });

    it('does not follow realm_url from https down to plain http', async () => {
      const env = tempHome().env;
      nock('https://chat.test')
        .get('/api/v1/server_settings')
        .reply(200, settings({ realm_url: 'http://chat.test' }))
        .post('/api/v1/fetch_api_key')
        .reply(200, documentedExample('POST', '/fetch_api_key'));
      const r = await runCli(['login', '--server', 'https://chat.test', '--email', 'iago@zulip.com', '--password-stdin'], { env, stdin: 'pw-iago-1\n' });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        'chatctl: warning: https://chat.test names its organization URL as http://chat.test; not following it from https to plain http',
      );
      expect(readConfigFile(env).profiles.default!.server).toBe('https://chat.test');
    });

    it('when password login is off, names the methods the server offers and how to paste an API key (exit 4)', async () => {
      nock(SITE)
        .get('/api/v1/server_settings')
        .reply(
          200,
          settings({
            email_auth_enabled: false,
            authentication_methods: { password: false, email: false, ldap: false, google: true, github: true, saml: true },
          }),
        );
      const r = await runCli(['login', '--server', SITE, '--email', 'iago@zulip.com', '--password-stdin'], { env: tempHome().env, stdin: 'pw\n' });
      expect(r.code).toBe(4);
      expect(r.stderr).toBe(
        `chatctl: ${SITE} does not allow password login; it offers SAML, Google, GitHub\n` +
          `hint: log in on the web, copy your API key (Settings > Account & privacy > API key), then: chatctl login --server ${SITE} --email EMAIL --api-key-stdin < key-file\n`,
      );
    });

    it('--api-key-stdin works where password login is off', async () => {
      const env = tempHome().env;
      const me = documentedExample('GET', '/users/me');
      nock(SITE)
        .get('/api/v1/server_settings')
        .reply(200, settings({ email_auth_enabled: false, authentication_methods: { password: false, google: true } }))
        .get('/api/v1/users/me')
        .matchHeader('authorization', `Basic ${Buffer.from(`iago@zulip.com:${'k'.repeat(32)}`).toString('base64')}`)
        .reply(200, me);
      const r = await runCli(['login', '--server', SITE, '--email', 'iago@zulip.com', '--api-key-stdin'], { env, stdin: `${'k'.repeat(32)}\n` });
      expect(r.code).toBe(0);
      expect(readConfigFile(env).profiles.default).toMatchObject({ server: SITE, email: me.delivery_email, apiKey: 'k'.repeat(32), featureLevel: 300 });
    });

    it('with directory login (require_email_format_usernames false) takes a username and says so in the prompt', async () => {
      const env = tempHome().env;
      nock(SITE)
        .get('/api/v1/server_settings')
        .reply(200, settings({ require_email_format_usernames: false, authentication_methods: { password: true, email: false, ldap: true } }))
        .post('/api/v1/fetch_api_key', { username: 'iago', password: 'dir-pass' })
        .reply(200, documentedExample('POST', '/fetch_api_key'));
      const prompter = scriptedPrompter({ password: ['dir-pass'] });
      const r = await runCli(['login', '--server', SITE, '--email', 'iago'], { env, tty: true, prompter });
      expect(r.code).toBe(0);
      expect(prompter.asked).toEqual(['Password for iago (directory login: the username need not be an e-mail address):']);
      expect(readConfigFile(env).profiles.default!.email).toBe('iago@zulip.com');
    });

    it('refuses a username that is not an e-mail where the server requires e-mails, before asking for a password', async () => {
      nock(SITE).get('/api/v1/server_settings').reply(200, settings());
      const prompter = scriptedPrompter({});
      const r = await runCli(['login', '--server', SITE, '--email', 'iago'], { env: tempHome().env, tty: true, prompter });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${SITE} logs in with e-mail addresses, not "iago"`);
      expect(prompter.asked).toEqual([]);
    });
  });

  describe('rate limits and bad replies', () => {
    it('waits out a 429 within --max-wait, says so on stderr, and succeeds', async () => {
      nock(SITE)
        .get('/api/v1/users')
        .query(true)
        .reply(429, { ...schemaExample('RateLimitedError'), 'retry-after': 0.05 }, { 'Retry-After': '0.05' })
        .get('/api/v1/users')
        .query(true)
        .reply(200, documentedExample('GET', '/users'));
      const r = await runCli(['--server', SITE, 'users', 'list', '--json', '--fields', 'user_id'], { env: { ...tempHome().env, ...creds } });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/^chatctl: rate limited by the server; waiting 0\.\d s before retrying GET \/users\n$/);
      expect((JSON.parse(r.stdout) as unknown[]).length).toBeGreaterThan(0);
    });

    it('a 429 asking for more than --max-wait fails at once: exit 75, with the server message', async () => {
      const scope = nock(SITE).get('/api/v1/users').query(true).reply(429, schemaExample('RateLimitedError'), { 'Retry-After': '28.706807374954224' });
      const r = await runCli(['--server', SITE, '--max-wait', '10', 'users', 'list'], { env: { ...tempHome().env, ...creds } });
      expect(scope.isDone()).toBe(true);
      expect(r.code).toBe(75);
      expect(r.stderr).toBe(
        'chatctl: rate limited: the server asks to wait 28.7 s, more than the 10.0 s left of --max-wait\nchatctl: API usage exceeded rate limit (RATE_LIMIT_HIT)\n',
      );
    });

    it('--quiet keeps the wait notices off stderr', async () => {
      nock(SITE)
        .get('/api/v1/users')
        .query(true)
        .reply(429, { ...schemaExample('RateLimitedError'), 'retry-after': 0.01 })
        .get('/api/v1/users')
        .query(true)
        .reply(200, documentedExample('GET', '/users'));
      const r = await runCli(['--server', SITE, '--quiet', 'users', 'list', '--json'], { env: { ...tempHome().env, ...creds } });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
    });

    it("an HTML error page from a proxy is exit 1 with the page's title", async () => {
      nock(SITE)
        .get('/api/v1/users')
        .query(true)
        .reply(403, '<html><head><title>Forbidden by corporate policy</title></head><body>...</body></html>', { 'Content-Type': 'text/html' });
      const r = await runCli(['--server', SITE, 'users', 'list'], { env: { ...tempHome().env, ...creds } });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('chatctl: unexpected 403 response from the server: Forbidden by corporate policy\n');
    });

    it('a gateway page that does not go away is exit 75 after three attempts', async () => {
      const scope = nock(SITE)
        .get('/api/v1/server_settings')
        .times(3)
        .reply(502, '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>');
      const r = await runCli(['--server', SITE, 'server', 'settings'], { env: tempHome().env });
      expect(scope.isDone()).toBe(true);
      expect(r.code).toBe(75);
      expect(r.stderr).toMatch(/chatctl: unexpected 502 response from the server: 502 Bad Gateway\n$/);
      expect(r.stderr.match(/answered 502; retrying/g)).toHaveLength(2);
    });

    it('a malformed reply is exit 1', async () => {
      nock(SITE).get('/api/v1/server_settings').reply(200, '{"result":"success","msg":"", "zulip_version": ');
      const r = await runCli(['--server', SITE, 'server', 'settings'], { env: tempHome().env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('chatctl: unexpected 200 response from the server: {"result":"success"');
    });

    it('fails, rather than reporting success, when the server ignored a parameter its cached level said it had', async () => {
      // The profile says 400; the server was downgraded (or restored from a backup) and ignores user_ids.
      const env = tempHome().env;
      nock(SITE)
        .get('/api/v1/users')
        .query({ user_ids: '[8]' })
        .reply(200, { ...documentedExample('GET', '/users'), ignored_parameters_unsupported: ['user_ids'] });
      nock(SITE)
        .get('/api/v1/server_settings')
        .twice()
        .reply(200, settings({ zulip_feature_level: 300 }));
      writeProfile(env, { server: SITE, email: creds.ZULIP_EMAIL, apiKey: creds.ZULIP_API_KEY, featureLevel: 400, checkedAt: Math.floor(Date.now() / 1000) });
      const r = await runCli(['users', 'list', '--ids', '8'], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        'chatctl: get-users parameter user_ids needs feature level ≥ 384 (server has 300): the server ignored it; the rest of the request was carried out\n',
      );
      expect(readConfigFile(env).profiles.default).toMatchObject({ featureLevel: 300 });
    });

    it('reports parameters the server ignored as a warning', async () => {
      nock(SITE)
        .get('/api/v1/users')
        .query({ user_ids: '[8]' })
        .reply(200, { ...documentedExample('GET', '/users'), ignored_parameters_unsupported: ['user_ids'] });
      const r = await runCli(['--server', SITE, 'api', 'GET', '/users', '-f', 'user_ids=[8]'], { env: { ...tempHome().env, ...creds } });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('chatctl: warning: the server ignored parameters it does not support: user_ids\n');
    });
  });
});
