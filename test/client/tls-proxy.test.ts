/**
 * TLS and proxies over real sockets on 127.0.0.1: a private CA made with openssl, client certificates,
 * verification off only when asked, a CONNECT proxy for HTTPS and a forward proxy for plain HTTP, NO_PROXY.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getServerSettings } from '../../src/api/operations/server.js';
import { exitKindOf, reportError } from '../../src/cli/core/errors.js';
import { ChatClient } from '../../src/client/client.js';
import { HttpTransport, type HttpOptions } from '../../src/client/http.js';
import { retryPolicy } from '../../src/client/retry.js';
import { loadTls, TlsError } from '../../src/client/tls.js';
import { hasOpenssl, makeCerts, type Certs } from './certs.js';
import { documentedExample } from './examples.js';
import { startConnectProxy, startForwardProxy, type TestProxy } from './proxies.js';
import { json, startHttpsServer, startServer, type TestServer } from './servers.js';

const settings = documentedExample('GET', '/server_settings');
const clients: ChatClient[] = [];
const closers: (() => Promise<void>)[] = [];

function clientOf(site: string, opts: HttpOptions): ChatClient {
  const c = new ChatClient(new HttpTransport(site, opts), null, {}, { retry: retryPolicy({ baseDelayMs: 5 }) });
  clients.push(c);
  return c;
}

async function track<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
  const t = await thing;
  closers.push(() => t.close());
  return t;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe.skipIf(!hasOpenssl())('a server behind a private CA', () => {
  let certs: Certs;
  let server: TestServer;
  beforeAll(async () => {
    certs = makeCerts();
    server = await startHttpsServer({ key: certs.serverKey, cert: certs.serverCert }, (_req, res) => json(res, 200, settings));
  });
  afterAll(() => server.close());

  it('is refused without the CA: a TLS error that says how to fix it, exit 1', async () => {
    const e = await clientOf(server.url, {})
      .call(getServerSettings, {})
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TlsError);
    expect((e as Error).message).toBe(`cannot verify the TLS certificate of ${server.url}: UNABLE_TO_VERIFY_LEAF_SIGNATURE`);
    expect(exitKindOf(e)).toBe('failure');
    expect(reportError(e).hint).toContain('--ca-file');
    expect(server.requests).toHaveLength(0);
  });

  it('is refused with a CA that did not sign it', async () => {
    await expect(clientOf(server.url, { tls: loadTls({ caFile: certs.otherCaFile }) }).call(getServerSettings, {})).rejects.toBeInstanceOf(TlsError);
  });

  it('is trusted with --ca-file', async () => {
    const res = await clientOf(server.url, { tls: loadTls({ caFile: certs.caFile }) }).call(getServerSettings, {});
    expect(res.realm_name).toBe('Zulip Dev');
  });

  it('is reached without verification only when asked (--insecure)', async () => {
    const res = await clientOf(server.url, { tls: loadTls({ insecure: true }) }).call(getServerSettings, {});
    expect(res.result).toBe('success');
  });

  it('through a CONNECT proxy (HTTPS_PROXY): the tunnel carries TLS to the origin, CA and all', async () => {
    const proxy = await track(startConnectProxy());
    const res = await clientOf(server.url, { tls: loadTls({ caFile: certs.caFile }), proxy: { httpsProxy: proxy.url } }).call(getServerSettings, {});
    expect(res.realm_name).toBe('Zulip Dev');
    expect(proxy.seen).toEqual([`CONNECT 127.0.0.1:${server.port}`]);
  });

  it('past the proxy for hosts in NO_PROXY', async () => {
    const proxy = await track(startConnectProxy());
    await clientOf(server.url, { tls: loadTls({ caFile: certs.caFile }), proxy: { httpsProxy: proxy.url, noProxy: 'localhost,127.0.0.1' } }).call(
      getServerSettings,
      {},
    );
    expect(proxy.seen).toEqual([]);
  });

  it('a proxy that refuses the tunnel is a temporary failure, retried for a GET', async () => {
    const proxy = await track(startConnectProxy({ refuse: 502 }));
    const e = await clientOf(server.url, { tls: loadTls({ caFile: certs.caFile }), proxy: { httpsProxy: proxy.url } })
      .call(getServerSettings, {})
      .catch((x: unknown) => x);
    expect(proxy.seen).toHaveLength(3);
    expect(exitKindOf(e)).toBe('temporary');
  });
});

describe.skipIf(!hasOpenssl())('client certificates', () => {
  let certs: Certs;
  let server: TestServer;
  beforeAll(async () => {
    certs = makeCerts();
    server = await startHttpsServer({ key: certs.serverKey, cert: certs.serverCert, ca: certs.ca, requestCert: true, rejectUnauthorized: true }, (req, res) =>
      json(res, 200, { ...settings, realm_name: (req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN ?? '' }),
    );
  });
  afterAll(() => server.close());

  it('are presented from ZULIP_CERT and ZULIP_CERT_KEY', async () => {
    const res = await clientOf(server.url, { tls: loadTls({ caFile: certs.caFile, clientCert: certs.clientCertFile, clientKey: certs.clientKeyFile }) }).call(
      getServerSettings,
      {},
    );
    expect(res.realm_name).toBe('client@example.com');
  });

  it('may hold the key in the same PEM file', async () => {
    const res = await clientOf(server.url, { tls: loadTls({ caFile: certs.caFile, clientCert: certs.clientBundleFile }) }).call(getServerSettings, {});
    expect(res.realm_name).toBe('client@example.com');
  });

  it('are needed where the server asks for one (TLS 1.2: refused in the handshake, with a hint)', async () => {
    const strict = await track(
      startHttpsServer(
        { key: certs.serverKey, cert: certs.serverCert, ca: certs.ca, requestCert: true, rejectUnauthorized: true, maxVersion: 'TLSv1.2' },
        (_req, res) => json(res, 200, settings),
      ),
    );
    const e = await clientOf(strict.url, { tls: loadTls({ caFile: certs.caFile }) })
      .call(getServerSettings, {})
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TlsError);
    expect((e as Error).message).toMatch(
      new RegExp(`^the TLS handshake with ${strict.url} failed: the server wants a client certificate \\(ERR_SSL_[\\w/]+\\)$`),
    );
    expect(reportError(e).hint).toContain('ZULIP_CERT');
    expect(strict.requests).toHaveLength(0);
  });

  it('are needed where the server asks for one (TLS 1.3: the server hangs up after the handshake)', async () => {
    const before = server.requests.length;
    await expect(clientOf(server.url, { tls: loadTls({ caFile: certs.caFile }) }).call(getServerSettings, {})).rejects.toThrow('fetch failed');
    expect(server.requests).toHaveLength(before);
  });

  it('without their key are a usage error before anything is sent', () => {
    expect(() => loadTls({ clientCert: certs.clientCertFile })).toThrow(`no private key for the client certificate ${certs.clientCertFile}`);
    expect(() => loadTls({ caFile: `${certs.dir}/missing.pem` })).toThrow(`cannot read the CA bundle ${certs.dir}/missing.pem: no such file or directory`);
    expect(() => loadTls({ caFile: certs.clientKeyFile })).toThrow('holds no PEM certificate');
  });
});

describe('a plain-HTTP server behind a forward proxy (HTTP_PROXY)', () => {
  let proxy: TestProxy;
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((_req, res) => json(res, 200, settings));
    proxy = await startForwardProxy();
  });
  afterAll(async () => {
    await proxy.close();
    await server.close();
  });

  it('sends absolute-URI requests to the proxy', async () => {
    const res = await clientOf(server.url, { proxy: { httpProxy: proxy.url } }).call(getServerSettings, {});
    expect(res.realm_name).toBe('Zulip Dev');
    expect(proxy.seen).toEqual([`GET ${server.url}/api/v1/server_settings`]);
    expect(server.requests[0]!.headers.host).toBe(`127.0.0.1:${server.port}`);
  });
});
