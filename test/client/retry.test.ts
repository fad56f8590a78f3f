/**
 * The client's retry policy against mocked servers (nock on the global fetch): 429s waited out by the
 * documented `retry-after`, within the --max-wait budget; 502/503/504 and connection errors retried only
 * for requests safe to repeat; replies that are not the envelope. Waits go through an injected sleep that
 * records them, so the tests assert the waits asked for, never durations.
 */
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { fetchApiKey, getServerSettings } from '../../src/api/operations/server.js';
import { getUsers } from '../../src/api/operations/users.js';
import { exitKindOf } from '../../src/cli/core/errors.js';
import { BadResponseError, ChatClient, UnavailableError } from '../../src/client/client.js';
import { HttpTransport } from '../../src/client/http.js';
import { retryPolicy, type RetryPolicy } from '../../src/client/retry.js';
import { documentedExample, schemaExample } from './examples.js';
import { createThing, setThing } from './things.js';

const SITE = 'http://chat.test';
const API = '/api/v1';
const CREDS = { email: 'iago@zulip.com', apiKey: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' };

interface Harness {
  client: ChatClient;
  waits: number[];
  notices: string[];
  warnings: string[];
  trace: string[];
}

function harness(overrides: Partial<RetryPolicy> = {}): Harness {
  const h: Harness = { waits: [], notices: [], warnings: [], trace: [], client: undefined as unknown as ChatClient };
  const policy = retryPolicy({
    random: () => 0.5,
    sleep: async (ms) => {
      h.waits.push(ms);
    },
    ...overrides,
  });
  h.client = new ChatClient(
    new HttpTransport(SITE),
    CREDS,
    { warn: (m) => h.warnings.push(m), notice: (m) => h.notices.push(m), trace: (l) => h.trace.push(l) },
    { retry: policy },
  );
  return h;
}

const success = { result: 'success', msg: '' };
const rateLimited = schemaExample('RateLimitedError');

beforeEach(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe('429: rate limits', () => {
  it('waits the documented retry-after (body float) plus jitter, says so, and retries', async () => {
    const h = harness();
    const scope = nock(SITE)
      .get(`${API}/users`)
      .reply(429, rateLimited, { 'Retry-After': '28.706807374954224' })
      .get(`${API}/users`)
      .reply(200, documentedExample('GET', '/users'));
    const res = await h.client.call(getUsers, {});
    expect(res.members.length).toBeGreaterThan(0);
    expect(scope.isDone()).toBe(true);
    // 28.71 s, plus half (random 0.5) of min(1 s, 20% of the wait + 100 ms).
    expect(h.waits).toEqual([Math.ceil(28706.807374954224 + 500)]);
    expect(h.notices).toEqual([`rate limited by the server; waiting 29.2 s before retrying GET /users`]);
  });

  it('reads the Retry-After header when the body has no retry-after (servers before feature level 36)', async () => {
    const h = harness();
    nock(SITE)
      .get(`${API}/users`)
      .reply(429, { result: 'error', msg: 'API usage exceeded rate limit' }, { 'Retry-After': '3' })
      .get(`${API}/users`)
      .reply(200, { ...success, members: [] });
    await h.client.call(getUsers, {});
    expect(h.waits).toEqual([3000 + 350]);
  });

  it('reads a Retry-After given as an HTTP date', async () => {
    const h = harness();
    const at = new Date(Date.now() + 10_000).toUTCString();
    nock(SITE)
      .get(`${API}/users`)
      .reply(429, 'Too Many Requests', { 'Retry-After': at })
      .get(`${API}/users`)
      .reply(200, { ...success, members: [] });
    await h.client.call(getUsers, {});
    expect(h.waits).toHaveLength(1);
    expect(h.waits[0]).toBeGreaterThan(7000);
    expect(h.waits[0]).toBeLessThanOrEqual(11_000);
  });

  it('retries a request that creates something too: a 429 was refused before anything was done', async () => {
    const h = harness();
    nock(SITE)
      .post(`${API}/things`)
      .reply(429, { ...rateLimited, 'retry-after': 0.2 })
      .post(`${API}/things`)
      .reply(200, { ...success, id: 7 });
    expect((await h.client.call(createThing, { name: 'x' })).id).toBe(7);
    expect(h.waits).toHaveLength(1);
  });

  it('fails at once when the server asks for more than --max-wait: the 429 error, exit 75', async () => {
    const h = harness({ maxWaitMs: 60_000 });
    const scope = nock(SITE)
      .get(`${API}/users`)
      .reply(429, { ...rateLimited, 'retry-after': 120.5 }, { 'Retry-After': '120.5' });
    const e = await h.client.call(getUsers, {}).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 429, code: 'RATE_LIMIT_HIT', msg: 'API usage exceeded rate limit' });
    expect(exitKindOf(e)).toBe('temporary');
    expect(scope.isDone()).toBe(true);
    expect(h.waits).toEqual([]);
    expect(h.notices).toEqual(['rate limited: the server asks to wait 120.5 s, more than the 60.0 s left of --max-wait']);
  });

  it('counts every wait of one request against the budget', async () => {
    const h = harness({ maxWaitMs: 60_000 });
    const scope = nock(SITE)
      .get(`${API}/users`)
      .times(2)
      .reply(429, { ...rateLimited, 'retry-after': 40 });
    const e = await h.client.call(getUsers, {}).catch((x: unknown) => x);
    expect(exitKindOf(e)).toBe('temporary');
    expect(scope.isDone()).toBe(true);
    expect(h.waits).toHaveLength(1);
  });

  it('gives up after a bounded number of 429s even when each wait is short', async () => {
    const h = harness();
    const scope = nock(SITE)
      .get(`${API}/users`)
      .times(6)
      .reply(429, { ...rateLimited, 'retry-after': 0 });
    const e = await h.client.call(getUsers, {}).catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 429 });
    expect(scope.isDone()).toBe(true);
    expect(h.waits).toHaveLength(5);
  });

  it('an HTML 429 page (a proxy limiting) is still a temporary failure once the budget is spent', async () => {
    const h = harness({ maxWaitMs: 0 });
    nock(SITE)
      .get(`${API}/users`)
      .reply(429, '<html><head><title>429 Too Many Requests</title></head><body>nginx</body></html>', { 'Content-Type': 'text/html' });
    const e = await h.client.call(getUsers, {}).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnavailableError);
    expect((e as Error).message).toBe('unexpected 429 response from the server: 429 Too Many Requests');
    expect(exitKindOf(e)).toBe('temporary');
  });
});

describe('502/503/504', () => {
  it('retries a GET with exponential backoff and jitter, and reports each retry', async () => {
    const h = harness({ baseDelayMs: 100 });
    nock(SITE)
      .get(`${API}/users`)
      .reply(502, '<html><head><title>502 Bad Gateway</title></head></html>')
      .get(`${API}/users`)
      .reply(503, { result: 'error', msg: 'Service unavailable', code: 'BAD_REQUEST' })
      .get(`${API}/users`)
      .reply(200, { ...success, members: [] });
    await h.client.call(getUsers, {});
    expect(h.waits).toEqual([150, 250]);
    expect(h.notices).toEqual(['GET /users answered 502; retrying in 0.1 s (attempt 2 of 3)', 'GET /users answered 503; retrying in 0.3 s (attempt 3 of 3)']);
  });

  it('gives up after three attempts: a gateway page is exit 75 with its title', async () => {
    const h = harness({ baseDelayMs: 1 });
    const scope = nock(SITE).get(`${API}/users`).times(3).reply(504, '<html><head><title>504 Gateway Time-out</title></head></html>');
    const e = await h.client.call(getUsers, {}).catch((x: unknown) => x);
    expect(scope.isDone()).toBe(true);
    expect((e as Error).message).toBe('unexpected 504 response from the server: 504 Gateway Time-out');
    expect(exitKindOf(e)).toBe('temporary');
  });

  it('honours a Retry-After on a 503 (maintenance)', async () => {
    const h = harness();
    nock(SITE)
      .get(`${API}/users`)
      .reply(503, 'down for maintenance', { 'Retry-After': '2' })
      .get(`${API}/users`)
      .reply(200, { ...success, members: [] });
    await h.client.call(getUsers, {});
    expect(h.waits).toEqual([2000 + 250]);
  });

  it('never repeats a POST that creates something: the server may have done it', async () => {
    const h = harness();
    const scope = nock(SITE).post(`${API}/things`).reply(504, '<title>504 Gateway Time-out</title>');
    const e = await h.client.call(createThing, { name: 'x' }).catch((x: unknown) => x);
    expect(scope.isDone()).toBe(true);
    expect(e).toMatchObject({ status: 504 });
    expect(h.waits).toEqual([]);
  });

  it('repeats a POST the catalogue marks idempotent', async () => {
    const h = harness();
    nock(SITE).post(`${API}/things/1`).reply(503, 'busy').post(`${API}/things/1`).reply(200, success);
    await h.client.call(setThing, { value: 'v' });
    expect(h.waits).toHaveLength(1);
    expect(setThing.idempotent).toBe(true);
    expect(fetchApiKey.idempotent).toBe(true);
  });

  it('raw requests (chatctl api) count as safe for GET only', async () => {
    const h = harness();
    nock(SITE)
      .get(`${API}/users`)
      .reply(503, 'busy')
      .get(`${API}/users`)
      .reply(200, { ...success, members: [] });
    const get = await h.client.send({ method: 'GET', path: '/users', query: [], body: [], headers: {} });
    expect(get.status).toBe(200);
    const scope = nock(SITE).post(`${API}/users/me/presence`).reply(503, 'busy');
    const post = await h.client.send({ method: 'POST', path: '/users/me/presence', query: [], body: [['status', 'active']], headers: {} });
    expect(post.status).toBe(503);
    expect(scope.isDone()).toBe(true);
    expect(h.waits).toHaveLength(1);
  });
});

describe('connection errors (mocked; real sockets in sockets.test.ts)', () => {
  const error = (code: string, message: string) => Object.assign(new Error(message), { code });

  it('retries a GET after a reset', async () => {
    const h = harness({ baseDelayMs: 1 });
    nock(SITE)
      .get(`${API}/server_settings`)
      .replyWithError(error('ECONNRESET', 'socket hang up'))
      .get(`${API}/server_settings`)
      .reply(200, documentedExample('GET', '/server_settings'));
    const settings = await h.client.call(getServerSettings, {});
    expect(settings.realm_name).toBe('Zulip Dev');
    expect(h.notices).toEqual(['GET /server_settings failed: the connection was reset by the other side; retrying in 0.0 s (attempt 2 of 3)']);
  });

  it('does not repeat a creating POST after a reset (it may have arrived)', async () => {
    const h = harness({ baseDelayMs: 1 });
    const scope = nock(SITE).post(`${API}/things`).replyWithError(error('ECONNRESET', 'socket hang up'));
    await expect(h.client.call(createThing, { name: 'x' })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(scope.isDone()).toBe(true);
    expect(h.waits).toEqual([]);
  });

  it('repeats a creating POST that provably never left: connection refused, no such host', async () => {
    const h = harness({ baseDelayMs: 1 });
    nock(SITE)
      .post(`${API}/things`)
      .replyWithError(error('ECONNREFUSED', 'connect ECONNREFUSED'))
      .post(`${API}/things`)
      .replyWithError(error('EAI_AGAIN', 'getaddrinfo EAI_AGAIN chat.test'))
      .post(`${API}/things`)
      .reply(200, { ...success, id: 3 });
    expect((await h.client.call(createThing, { name: 'x' })).id).toBe(3);
    expect(h.waits).toHaveLength(2);
  });

  it('does not retry what is not a network failure', async () => {
    const h = harness();
    const scope = nock(SITE).get(`${API}/users`).replyWithError(new Error('something else broke'));
    await expect(h.client.call(getUsers, {})).rejects.toThrow('something else broke');
    expect(scope.isDone()).toBe(true);
    expect(h.waits).toEqual([]);
  });
});

describe('replies that are not the envelope', () => {
  it('an HTML error page from a proxy: BadResponseError with the page title, exit 1', async () => {
    const h = harness();
    nock(SITE)
      .get(`${API}/users`)
      .reply(403, '<!DOCTYPE html><html><head><title>Access denied | corp-proxy</title></head><body><h1>Blocked</h1></body></html>');
    const e = await h.client.call(getUsers, {}).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BadResponseError);
    expect((e as Error).message).toBe('unexpected 403 response from the server: Access denied | corp-proxy');
    expect(exitKindOf(e)).toBe('failure');
  });

  it('truncated JSON, and JSON without the envelope, are bad responses too', async () => {
    const h = harness();
    nock(SITE).get(`${API}/users`).reply(200, '{"result": "succ').get(`${API}/users`).reply(200, [1, 2]).get(`${API}/users`).reply(200, '');
    await expect(h.client.call(getUsers, {})).rejects.toThrow('unexpected 200 response from the server: {"result": "succ');
    await expect(h.client.call(getUsers, {})).rejects.toThrow('unexpected 200 response from the server: [1,2]');
    await expect(h.client.call(getUsers, {})).rejects.toBeInstanceOf(BadResponseError);
  });

  it('warns about ignored_parameters_unsupported and still succeeds', async () => {
    const h = harness();
    nock(SITE)
      .get(`${API}/users`)
      .query(true)
      .reply(200, { ...success, members: [], ignored_parameters_unsupported: ['user_ids'] });
    await h.client.call(getUsers, { user_ids: [1] });
    expect(h.warnings).toEqual(['the server ignored parameters it does not support: user_ids']);
  });
});

describe('--verbose trace', () => {
  it('shows every attempt with method, path and status, never the Authorization header or a password', async () => {
    const h = harness({ baseDelayMs: 1 });
    nock(SITE)
      .matchHeader('authorization', /^Basic /)
      .get(`${API}/users`)
      .reply(503, 'busy')
      .get(`${API}/users`)
      .reply(200, { ...success, members: [] });
    await h.client.call(getUsers, {});
    nock(SITE).post(`${API}/fetch_api_key`).reply(200, documentedExample('POST', '/fetch_api_key'));
    await h.client.call(fetchApiKey, { username: 'iago@zulip.com', password: 'hunter2-secret' });
    expect(h.trace.map((l) => l.replace(/ \d+ ms$/, ' N ms'))).toEqual([
      '> GET /users',
      '< 503 GET /users N ms',
      '> GET /users (attempt 2)',
      '< 200 GET /users N ms',
      '> POST /fetch_api_key username=iago@zulip.com password=***',
      '< 200 POST /fetch_api_key N ms',
    ]);
    const all = h.trace.join('\n');
    expect(all).not.toContain('hunter2');
    expect(all).not.toContain(CREDS.apiKey);
    expect(all).not.toContain(Buffer.from(`${CREDS.email}:${CREDS.apiKey}`).toString('base64'));
  });
});

describe('aborting', () => {
  it('stops a wait for a rate limit at once when the signal aborts', async () => {
    const controller = new AbortController();
    const h = harness({ sleep: retryPolicy().sleep });
    nock(SITE)
      .get(`${API}/users`)
      .reply(429, { ...rateLimited, 'retry-after': 30 });
    const pending = h.client.call(getUsers, {}, { signal: controller.signal });
    setTimeout(() => controller.abort(new DOMException('interrupted', 'AbortError')), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
