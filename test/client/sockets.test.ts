/**
 * The HTTP transport and the client's retries over real sockets on 127.0.0.1: timeouts, resets, refused
 * connections, bodies cut short, keep-alive reuse, closing. Counts and orders are asserted, never durations.
 */
import { getGlobalDispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { getServerSettings } from '../../src/api/operations/server.js';
import { getUsers } from '../../src/api/operations/users.js';
import { exitKindOf } from '../../src/cli/core/errors.js';
import type { ChatctlError } from '../../src/errors.js';
import { ChatClient } from '../../src/client/client.js';
import { HttpTransport, type HttpOptions } from '../../src/client/http.js';
import { retryPolicy } from '../../src/client/retry.js';
import { USER_AGENT } from '../../src/version.js';
import { closedPort, json, startServer, SUCCESS, type TestServer } from './servers.js';
import { createThing } from './things.js';

const CREDS = { email: 'iago@zulip.com', apiKey: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' };

const servers: TestServer[] = [];
const clients: ChatClient[] = [];

async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const t = await startServer(handler);
  servers.push(t);
  return t;
}

function clientOf(site: string, opts: HttpOptions = {}, trace?: string[]): ChatClient {
  const c = new ChatClient(new HttpTransport(site, opts), CREDS, { trace: trace && ((l) => trace.push(l)) }, { retry: retryPolicy({ baseDelayMs: 10 }) });
  clients.push(c);
  return c;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((t) => t.close()));
});

describe('timeouts', () => {
  it('retries a GET whose response headers never came, and succeeds on the next attempt', async () => {
    const t = await serve((_req, res, _body, n) => {
      if (n > 1) json(res, 200, { ...SUCCESS, members: [] });
    });
    const trace: string[] = [];
    await clientOf(t.url, { responseTimeout: 200 }, trace).call(getUsers, {});
    expect(t.requests).toHaveLength(2);
    expect(trace.filter((l) => l.startsWith('<')).map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['< UND_ERR_HEADERS_TIMEOUT', '< 200']);
  });

  it('does not repeat a creating POST that timed out; the failure is temporary (exit 75)', async () => {
    const t = await serve(() => undefined);
    const e = await clientOf(t.url, { responseTimeout: 200 })
      .call(createThing, { name: 'x' })
      .catch((x: unknown) => x);
    expect(t.requests).toHaveLength(1);
    expect(exitKindOf(e)).toBe('temporary');
  });

  it('gives up after three attempts when a GET keeps timing out', async () => {
    const t = await serve(() => undefined);
    const e = await clientOf(t.url, { responseTimeout: 100 })
      .call(getServerSettings, {})
      .catch((x: unknown) => x);
    expect(t.requests).toHaveLength(3);
    expect(exitKindOf(e)).toBe('temporary');
  });
});

describe('connection failures', () => {
  it('retries a GET after the server reset the connection', async () => {
    const t = await serve((req, res, _body, n) => {
      if (n === 1) req.socket.destroy();
      else json(res, 200, { ...SUCCESS, members: [] });
    });
    await clientOf(t.url).call(getUsers, {});
    expect(t.requests).toHaveLength(2);
  });

  it('does not repeat a creating POST after a reset', async () => {
    const t = await serve((req) => req.socket.destroy());
    const e = await clientOf(t.url)
      .call(createThing, { name: 'x' })
      .catch((x: unknown) => x);
    expect(t.requests).toHaveLength(1);
    expect(exitKindOf(e)).toBe('temporary');
  });

  it('retries a GET whose body was cut short', async () => {
    const t = await serve((req, res, _body, n) => {
      if (n === 1) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"result":"success","msg":"","members":[');
        setTimeout(() => req.socket.destroy(), 20);
      } else json(res, 200, { ...SUCCESS, members: [] });
    });
    await clientOf(t.url).call(getUsers, {});
    expect(t.requests).toHaveLength(2);
  });

  it('retries even a creating POST when the connection was refused (it never left), then gives up: exit 75', async () => {
    const port = await closedPort();
    const trace: string[] = [];
    const e = await clientOf(`http://127.0.0.1:${port}`, {}, trace)
      .call(createThing, { name: 'x' })
      .catch((x: unknown) => x);
    expect(trace.filter((l) => l.startsWith('> POST /things'))).toHaveLength(3);
    expect(trace.filter((l) => l.startsWith('< ECONNREFUSED'))).toHaveLength(3);
    expect(exitKindOf(e)).toBe('temporary');
  });
});

describe('connections', () => {
  it('reuses keep-alive connections for sequential requests, and closes them when the client closes', async () => {
    const t = await serve((_req, res) => json(res, 200, { ...SUCCESS, members: [] }));
    const client = clientOf(t.url);
    for (let i = 0; i < 20; i++) await client.call(getUsers, {});
    expect(t.requests).toHaveLength(20);
    // undici may open a second connection while the first is being handed back; never one per request.
    expect(t.connections).toBeLessThanOrEqual(2);
    expect(t.open).toBeGreaterThan(0);
    await client.close();
    expect(await t.idle()).toBe(true);
  });

  it('identifies itself as chatctl/<version> and asks for JSON', async () => {
    const t = await serve((_req, res) => json(res, 200, { ...SUCCESS, members: [] }));
    await clientOf(t.url).call(getUsers, {});
    expect(t.requests[0]!.headers['user-agent']).toBe(USER_AGENT);
    expect(USER_AGENT).toMatch(/^chatctl\/\d+\.\d+\.\d+/);
    expect(t.requests[0]!.headers.accept).toBe('application/json');
    expect(t.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from(`${CREDS.email}:${CREDS.apiKey}`).toString('base64')}`);
  });

  it('installs one global dispatcher while transports use it, and puts the previous one back after the last closes', async () => {
    const before = getGlobalDispatcher();
    const t = await serve((_req, res) => json(res, 200, { ...SUCCESS, members: [] }));
    const a = clientOf(t.url);
    const b = clientOf(t.url);
    await Promise.all([a.call(getUsers, {}), b.call(getUsers, {})]);
    const installed = getGlobalDispatcher();
    expect(installed).not.toBe(before);
    await a.close();
    expect(getGlobalDispatcher()).toBe(installed);
    await b.call(getUsers, {});
    await b.close();
    expect(getGlobalDispatcher()).toBe(before);
  });
});

describe('redirects', () => {
  it('never turns a redirected POST into a GET: nothing is followed, and the error names where to go (exit 1)', async () => {
    const t = await serve((req, res) => {
      if (req.method === 'POST') {
        res.writeHead(301, { location: '/api/v1/things/' });
        res.end();
      } else json(res, 200, { ...SUCCESS, id: 0 });
    });
    const e = await clientOf(t.url)
      .call(createThing, { name: 'x' })
      .catch((x: unknown) => x);
    expect(t.requests.map((r) => r.method)).toEqual(['POST']);
    expect(exitKindOf(e)).toBe('failure');
    expect((e as Error).message).toBe(`${t.url} answered POST /things with a redirect (301) to ${t.url}/api/v1/things/; nothing was sent there`);
  });

  it('still follows a redirected GET, which changes nothing', async () => {
    const t = await serve((req, res) => {
      if (req.url === '/api/v1/users') {
        res.writeHead(302, { location: '/api/v1/users/' });
        res.end();
      } else json(res, 200, { ...SUCCESS, members: [] });
    });
    expect(await clientOf(t.url).call(getUsers, {})).toMatchObject({ members: [] });
    expect(t.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/v1/users', 'GET /api/v1/users/']);
    // The credentials go along within the same origin.
    expect(t.requests.map((r) => r.headers.authorization?.startsWith('Basic '))).toEqual([true, true]);
  });

  it('stops at a redirect to another origin, for GET as for POST: nothing goes there, and the new site is named', async () => {
    const moved = await serve((_req, res) => json(res, 200, { ...SUCCESS, members: [], id: 1 }));
    const old = await serve((req, res) => {
      res.writeHead(301, { location: `${moved.url}/chat/api/v1${req.url!.slice('/api/v1'.length)}` });
      res.end();
    });
    for (const call of [() => clientOf(old.url).call(getUsers, {}), () => clientOf(old.url).call(createThing, { name: 'x' })]) {
      const e = await call().catch((x: unknown) => x);
      expect(exitKindOf(e)).toBe('failure');
      expect((e as Error).message).toMatch(
        /answered (GET \/users|POST \/things) with a redirect \(301\) to http:\/\/127\.0\.0\.1:\d+\/chat\/api\/v1\/(users|things); nothing was sent there$/,
      );
      expect((e as ChatctlError).hint).toBe(
        `if the organization moved to ${moved.url}/chat, use that address: --server ${moved.url}/chat (or chatctl login --server ${moved.url}/chat)`,
      );
    }
    expect(moved.requests).toEqual([]);
  });

  it('gives up on a redirect loop after a few hops', async () => {
    const t = await serve((req, res) => {
      res.writeHead(302, { location: `${req.url}x` });
      res.end();
    });
    const e = await clientOf(t.url)
      .call(getUsers, {})
      .catch((x: unknown) => x);
    expect((e as Error).message).toMatch(/answered GET \/users with a redirect \(302\) to .*\/api\/v1\/usersxxxxxx; nothing was sent there/);
    expect(t.requests).toHaveLength(6);
  });
});
