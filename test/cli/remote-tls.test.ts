/**
 * The CLI against an HTTPS server behind a private CA (made with openssl) and through a local CONNECT
 * proxy: --ca-file and ZULIP_CERT_BUNDLE, the CA remembered in the profile at login, the error and hint
 * without it, HTTPS_PROXY and NO_PROXY from the environment.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../helpers/cli.js';
import { hasOpenssl, makeCerts, type Certs } from '../client/certs.js';
import { documentedExample } from '../client/examples.js';
import { startConnectProxy, type TestProxy } from '../client/proxies.js';
import { json, startHttpsServer, type TestServer } from '../client/servers.js';

const KEY = 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv';

describe.skipIf(!hasOpenssl())('an HTTPS server with a private CA', () => {
  let certs: Certs;
  let server: TestServer;
  const proxies: TestProxy[] = [];
  beforeAll(async () => {
    certs = makeCerts();
    server = await startHttpsServer({ key: certs.serverKey, cert: certs.serverCert }, (req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/api/v1/server_settings')
        json(res, 200, { ...documentedExample('GET', '/server_settings'), zulip_feature_level: 421, realm_url: server.url });
      else if (path === '/api/v1/fetch_api_key') json(res, 200, documentedExample('POST', '/fetch_api_key'));
      else if (path === '/api/v1/users') json(res, 200, documentedExample('GET', '/users'));
      else json(res, 404, { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
    });
  });
  afterEach(async () => {
    await Promise.all(proxies.splice(0).map((p) => p.close()));
  });
  afterAll(() => server.close());

  it('without the CA: exit 1, the reason, and how to trust the CA', async () => {
    const r = await runCli(['--server', server.url, 'server', 'settings'], { env: tempHome().env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `chatctl: cannot verify the TLS certificate of ${server.url}: UNABLE_TO_VERIFY_LEAF_SIGNATURE\n` +
        "hint: trust your organization's CA with --ca-file FILE (or ZULIP_CERT_BUNDLE); --insecure turns verification off\n",
    );
  });

  it('with --ca-file or ZULIP_CERT_BUNDLE', async () => {
    const flag = await runCli(['--server', server.url, '--ca-file', certs.caFile, 'server', 'settings', '--json'], { env: tempHome().env });
    expect(flag.code).toBe(0);
    expect(JSON.parse(flag.stdout)).toMatchObject({ realm_name: 'Zulip Dev' });
    const viaEnv = await runCli(['--server', server.url, 'server', 'settings', '--json'], { env: { ...tempHome().env, ZULIP_CERT_BUNDLE: certs.caFile } });
    expect(viaEnv.code).toBe(0);
    const missing = await runCli(['--server', server.url, '--ca-file', join(certs.dir, 'nope.pem'), 'server', 'settings'], { env: tempHome().env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`cannot read the CA bundle ${join(certs.dir, 'nope.pem')}: no such file or directory`);
  });

  it('login --ca-file remembers the CA in the profile for later commands', async () => {
    const { env } = tempHome();
    const login = await runCli(['login', '--server', server.url, '--ca-file', certs.caFile, '--email', 'iago@zulip.com', '--password-stdin'], {
      env,
      stdin: 'pw-iago-1\n',
    });
    expect(login.code).toBe(0);
    const config = JSON.parse(readFileSync(join(env.CHATCTL_CONFIG_DIR!, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
    expect(config.profiles.default).toMatchObject({ server: server.url, email: 'iago@zulip.com', apiKey: KEY, caFile: certs.caFile, featureLevel: 421 });
    const list = await runCli(['users', 'list', '--json', '--fields', 'email'], { env });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toContainEqual({ email: 'AARON@zulip.com' });
  });

  it('through HTTPS_PROXY (a CONNECT tunnel), unless NO_PROXY names the host', async () => {
    const proxy = await startConnectProxy();
    proxies.push(proxy);
    const env = { ...tempHome().env, HTTPS_PROXY: proxy.url };
    const via = await runCli(['--server', server.url, '--ca-file', certs.caFile, 'server', 'settings', '--json'], { env });
    expect(via.code).toBe(0);
    expect(proxy.seen).toEqual([`CONNECT 127.0.0.1:${server.port}`]);
    const past = await runCli(['--server', server.url, '--ca-file', certs.caFile, 'server', 'settings', '--json'], { env: { ...env, NO_PROXY: '127.0.0.1' } });
    expect(past.code).toBe(0);
    expect(proxy.seen).toHaveLength(1);
  });
});
