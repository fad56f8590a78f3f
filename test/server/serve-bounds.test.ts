/**
 * What `serve` grants a client before and beside its request (src/server/http-bounds.ts, start-queue.ts):
 * nothing large is read before the key is checked, connections are capped in all and per address, slow
 * or silent clients are closed, every method gets a JSON answer, and a request that cannot start in time
 * is answered 503 with Retry-After. Real sockets on 127.0.0.1, with the bounds made small.
 */
import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LIMITS, showBytes } from '../../src/api/limits.js';
import { createApiServer } from '../../src/server/http.js';
import { type HttpBounds, SERVE_BOUNDS } from '../../src/server/http-bounds.js';
import { StartQueue } from '../../src/server/start-queue.js';
import { trustedProxies } from '../../src/server/client-address.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';

const basic = (email: string, key: string): string => `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`;
const keyOf = (user: TestUser): string => basic(user.email, user.apiKey);

/** A connection to `port`, its answers gathered; `closed` resolves when the server (or the test) closes it. */
function open(port: number, localAddress = '127.0.0.1'): Promise<{ socket: Socket; text: () => string; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    let text = '';
    const opened = Date.now();
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - opened)));
    socket.on('data', (d) => {
      text += d.toString('utf8');
    });
    // A reset after the answer is how a refused upload may end; the answer is what counts.
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, text: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Waits until `test` holds, checking every 10 ms, for at most `ms`. */
async function until(test: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const statusOf = (answer: string): number => Number(answer.split(' ')[1]);
const headerOf = (answer: string, name: string): string | undefined =>
  new RegExp(`^${name}: (.*)$`, 'mi').exec(answer.slice(0, answer.indexOf('\r\n\r\n')))?.[1]?.trim();
/** The JSON body of the last answer in `text`. */
const jsonOf = (text: string): unknown => JSON.parse(text.slice(text.lastIndexOf('\r\n\r\n') + 4));

/** A server over `org` within `bounds`, its log lines in `logs`. */
async function serverFor(org: TestOrg, bounds: Partial<HttpBounds>, logs: string[] = []): Promise<{ server: Server; port: number }> {
  const server = createApiServer(org.router, (l) => logs.push(l), { ...SERVE_BOUNDS, ...bounds });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

const stop = async (server: Server) => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
};

describe('serve checks the key before it reads a body that may be large', () => {
  let org: TestOrg;
  let server: Server;
  let port: number;
  beforeAll(async () => {
    org = createTestOrg();
    ({ server, port } = await serverFor(org, {}));
  });
  afterAll(async () => {
    await stop(server);
    await org.close();
  });

  const uploadHead = (authorization: string | null, extra = '') =>
    `POST /api/v1/user_uploads HTTP/1.1\r\nhost: x\r\n${authorization ? `authorization: ${authorization}\r\n` : ''}` +
    `content-type: multipart/form-data; boundary=b\r\ncontent-length: ${25 * 1024 * 1024}\r\n${extra}\r\n`;

  it.each([
    ['no key', null, 'Not logged in: API authentication or user session required'],
    ['a wrong key', 'wrong', 'Invalid API key'],
  ])('answers a 25 MiB upload with %s 401 on its headers alone, before one byte of the body is sent', async (_name, key, msg) => {
    const c = await open(port);
    c.socket.write(uploadHead(key === null ? null : key === 'wrong' ? basic(org.owner.email, 'x'.repeat(32)) : key));
    await until(() => c.text().includes('\r\n\r\n{'));
    expect(statusOf(c.text())).toBe(401);
    expect(headerOf(c.text(), 'www-authenticate')).toBe('Basic realm="zulip"');
    expect(jsonOf(c.text())).toEqual({ result: 'error', msg, code: 'UNAUTHORIZED' });
    c.socket.destroy();
  });

  it('asks an expect: 100-continue upload for its body only once its key is checked', async () => {
    const refused = await open(port);
    refused.socket.write(uploadHead(null, 'expect: 100-continue\r\n'));
    await until(() => refused.text().includes('\r\n\r\n{'));
    expect(refused.text()).not.toContain('100 Continue');
    expect(statusOf(refused.text())).toBe(401);
    refused.socket.destroy();
    const allowed = await open(port);
    allowed.socket.write(uploadHead(keyOf(org.owner), 'expect: 100-continue\r\n'));
    await until(() => allowed.text().includes('100 Continue'));
    allowed.socket.destroy();
  });

  it('holds an operation that takes no key to a small body, and refuses a larger one with 413 naming the bound', async () => {
    const c = await open(port);
    const body = `username=${org.owner.email}&password=${'p'.repeat(LIMITS.bodyBeforeAuthBytes)}`;
    c.socket.write(
      `POST /api/v1/fetch_api_key HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    await until(() => c.text().includes('\r\n\r\n{'));
    expect(statusOf(c.text())).toBe(413);
    expect(jsonOf(c.text())).toEqual({
      result: 'error',
      msg: `The request body is too large (limit: ${showBytes(LIMITS.bodyBeforeAuthBytes)})`,
      code: 'REQUEST_TOO_LARGE',
    });
    c.socket.destroy();
  });

  it('reads a large body once its key is checked: an authenticated 1 MiB upload is stored', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(1024 * 1024)]), 'big.bin');
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/user_uploads`, { method: 'POST', body: form, headers: { authorization: keyOf(org.owner) } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ result: 'success', url: expect.stringMatching(/big\.bin$/) });
  });

  it('answers every method in JSON: CONNECT and TRACE 405, a method HTTP does not know 400', async () => {
    const ask = async (head: string) => {
      const c = await open(port);
      c.socket.write(head);
      await until(() => c.text().includes('\r\n\r\n{'));
      c.socket.destroy();
      return { status: statusOf(c.text()), body: jsonOf(c.text()) };
    };
    expect(await ask('CONNECT 127.0.0.1:22 HTTP/1.1\r\nhost: 127.0.0.1:22\r\n\r\n')).toEqual({
      status: 405,
      body: { result: 'error', msg: 'Method Not Allowed', allowed_methods: [] },
    });
    expect(await ask('TRACE /api/v1/users/me HTTP/1.1\r\nhost: x\r\n\r\n')).toEqual({
      status: 405,
      body: { result: 'error', msg: 'Method Not Allowed', allowed_methods: ['GET', 'HEAD'] },
    });
    expect(await ask('BREW /api/v1/users/me HTTP/1.1\r\nhost: x\r\n\r\n')).toEqual({
      status: 400,
      body: { result: 'error', msg: 'Malformed HTTP request', code: 'BAD_REQUEST' },
    });
  });
});

describe('serve caps connections and closes slow or silent ones', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('caps connections from one address and in all, answering the one over with a JSON 503, and counts closed ones out', async () => {
    const { server, port } = await serverFor(org, { connections: 3, connectionsPerAddress: 2 });
    try {
      const first = [await open(port), await open(port)];
      const third = await open(port);
      await third.closed;
      expect(statusOf(third.text())).toBe(503);
      expect(headerOf(third.text(), 'retry-after')).toBe('1');
      expect(jsonOf(third.text())).toEqual({ result: 'error', msg: 'The server is overloaded; try again later', code: 'BAD_REQUEST' });
      // Another address has its own share, up to the total.
      const other = await open(port, '127.0.0.2');
      const overTotal = await open(port, '127.0.0.3');
      await overTotal.closed;
      expect(statusOf(overTotal.text())).toBe(503);
      // A connection that closes leaves room for another, which is served (once the server has seen it close).
      first[0]!.socket.destroy();
      await first[0]!.closed;
      let answer = '';
      for (let i = 0; i < 50 && !answer.includes('"success"'); i++) {
        const again = await open(port);
        again.socket.write('GET /api/v1/server_settings HTTP/1.1\r\nhost: x\r\n\r\n');
        await until(() => again.text().includes('\r\n\r\n{') || again.socket.destroyed);
        answer = again.text();
        again.socket.destroy();
      }
      expect(statusOf(answer)).toBe(200);
      for (const c of [first[1]!, other]) c.socket.destroy();
    } finally {
      await stop(server);
    }
  });

  it("holds a trusted proxy's connections to the total cap alone: they carry many clients", async () => {
    const { server, port } = await serverFor(org, { connections: 4, connectionsPerAddress: 2, trustedProxies: trustedProxies(['127.0.0.20']) });
    try {
      const viaProxy = [await open(port, '127.0.0.20'), await open(port, '127.0.0.20'), await open(port, '127.0.0.20')];
      viaProxy[2]!.socket.write('GET /api/v1/server_settings HTTP/1.1\r\nhost: x\r\n\r\n');
      await until(() => viaProxy[2]!.text().includes('\r\n\r\n{'));
      expect(statusOf(viaProxy[2]!.text())).toBe(200);
      // Another address is still held to its own share, and the proxy to the total.
      const [a, b, c] = [await open(port, '127.0.0.21'), await open(port, '127.0.0.21'), await open(port, '127.0.0.20')];
      await c.closed;
      expect(statusOf(c.text())).toBe(503);
      for (const s of [...viaProxy, a, b]) s.socket.destroy();
    } finally {
      await stop(server);
    }
  });

  it('closes a slowloris (headers never finished), an idle connection and a stalled body, each with a JSON 408', async () => {
    const { server, port } = await serverFor(org, { headersTimeoutMs: 300, checkIntervalMs: 100, requestTimeoutMs: 5000, bodyIdleMs: 300 });
    try {
      const slow = await open(port);
      slow.socket.write('GET /api/v1/users/me HTTP/1.1\r\nhost: x\r\n');
      const drip = setInterval(() => slow.socket.writable && slow.socket.write('x-drip: 1\r\n'), 50);
      const idle = await open(port);
      const stalled = await open(port);
      stalled.socket.write(
        `PATCH /api/v1/users/me HTTP/1.1\r\nhost: x\r\nauthorization: ${keyOf(org.owner)}\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: 100\r\n\r\nfull_name=`,
      );
      const times = await Promise.all([slow.closed, idle.closed, stalled.closed]);
      clearInterval(drip);
      // Generous: the bounds are 0.3 s; what matters is that they end at all, far below a default's minutes.
      for (const ms of times) expect(ms).toBeLessThan(4000);
      for (const c of [slow, idle]) expect(jsonOf(c.text())).toEqual({ result: 'error', msg: 'The request took too long to arrive', code: 'BAD_REQUEST' });
      expect(statusOf(stalled.text())).toBe(408);
      expect(jsonOf(stalled.text())).toEqual({ result: 'error', msg: 'The request body took too long to arrive', code: 'BAD_REQUEST' });
    } finally {
      await stop(server);
    }
  });
});

describe('serve under more requests than it can start in time', () => {
  it('answers those that waited past the deadline with 503 and Retry-After, serves the others, and logs each wait', async () => {
    const org = createTestOrg();
    const logs: string[] = [];
    const { server, port } = await serverFor(org, { queueDeadlineMs: 100 }, logs);
    // Once first, so that the handlers' module is loaded before the burst.
    await fetch(`http://127.0.0.1:${port}/api/v1/users/me?n=0`, { headers: { authorization: keyOf(org.owner) } });
    logs.length = 0;
    // Every request's work takes 200 ms of the event loop, as a message to a large channel can.
    const answer = org.router.answer.bind(org.router);
    const spy = vi.spyOn(org.router, 'answer').mockImplementation((...args) => {
      const until = performance.now() + 200;
      while (performance.now() < until);
      return answer(...args);
    });
    try {
      const clients = await Promise.all(Array.from({ length: 6 }, () => open(port)));
      for (const c of clients) c.socket.write(`GET /api/v1/users/me?n=1 HTTP/1.1\r\nhost: x\r\nauthorization: ${keyOf(org.owner)}\r\n\r\n`);
      await until(() => clients.every((c) => c.text().includes('\r\n\r\n{')), 10_000);
      const answers = clients.map((c) => c.text());
      const refused = answers.filter((a) => statusOf(a) === 503);
      expect(answers.filter((a) => statusOf(a) === 200).length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      for (const a of refused) {
        expect(headerOf(a, 'retry-after')).toBe('1');
        expect(jsonOf(a)).toEqual({ result: 'error', msg: 'The server is overloaded; try again later', code: 'BAD_REQUEST' });
      }
      const waits = logs
        .filter((l) => l.includes('"GET /api/v1/users/me"'))
        .map((l) => [Number(l.split(' ')[3]), Number(/\(queued ([\d.]+)ms\)$/.exec(l)?.[1])]);
      expect(waits).toHaveLength(6);
      for (const [status, queued] of waits) expect(status === 503 ? queued! > 100 : queued! <= 100).toBe(true);
      for (const c of clients) c.socket.destroy();
    } finally {
      spy.mockRestore();
      await stop(server);
      await org.close();
    }
  });
});

describe('the start queue', () => {
  it('starts one request per turn of the event loop, in order, and refuses at once those past the deadline', async () => {
    let now = 0;
    const queue = new StartQueue(100, () => now);
    const seen: string[] = [];
    const push = (name: string, arrived: number) =>
      void queue.turn(arrived).then(({ waitedMs, late }) => seen.push(`${late ? 'refuse' : 'start'} ${name} ${waitedMs}`));
    now = 150;
    push('a', 0);
    push('b', 60);
    push('c', 100);
    push('d', 120);
    expect(seen).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['refuse a 150', 'start b 90']);
    now = 210;
    await new Promise((r) => setImmediate(r));
    expect(seen.slice(2)).toEqual(['refuse c 110', 'start d 90']);
    await new Promise((r) => setImmediate(r));
    expect(queue.length).toBe(0);
  });

  it('gives turns in the order requests arrived, one that comes back after stepping out of the line included', async () => {
    let now = 0;
    const queue = new StartQueue(1000, () => now);
    const seen: string[] = [];
    const push = (name: string, arrived: number) => void queue.turn(arrived).then(() => seen.push(name));
    push('first', 0);
    now = 50;
    push('later', 40);
    push('back in line', 10);
    for (let i = 0; i < 4; i++) await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['first', 'back in line', 'later']);
  });

  it('starts nothing at once in a turn that started a request, though a callback later in that turn asks', async () => {
    const queue = new StartQueue(1000, () => 0);
    const seen: string[] = [];
    void queue.turn(0).then(() => seen.push('a'));
    void queue.turn(0).then(() => seen.push('b'));
    // The turn `a` started in passes; the next one starts `b`, and then a read asks for a turn.
    await new Promise((r) => setImmediate(r));
    setImmediate(() => void queue.turn(0).then(() => seen.push('late in the turn')));
    await new Promise((r) => setImmediate(r));
    await Promise.resolve();
    expect(seen).toEqual(['a', 'b']);
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['a', 'b', 'late in the turn']);
  });

  it('starts a request at once on an idle server, and the next one only a turn later', async () => {
    const queue = new StartQueue(100, () => 0);
    const seen: string[] = [];
    void queue.turn(0).then(() => seen.push('a'));
    void queue.turn(0).then(() => seen.push('b'));
    await Promise.resolve();
    expect(seen).toEqual(['a']);
    // The turn `a` started in passes without starting another.
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['a']);
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['a', 'b']);
    // Idle again: the next request starts at once.
    void queue.turn(0).then(() => seen.push('c'));
    await new Promise((r) => setImmediate(r));
    await Promise.resolve();
    expect(seen).toEqual(['a', 'b', 'c']);
  });
});
