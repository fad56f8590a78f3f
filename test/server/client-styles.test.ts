/**
 * Requests shaped the way the official clients and curl send them, over real HTTP: multipart form bodies
 * (python-zulip-api and zulip-js both send them), parameters of PATCH and DELETE in the query string, and a
 * register / poll / delete round trip as a bot framework does it.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestOrg, type TestOrg } from '../helpers/org.js';

describe("requests in the official clients' styles, over HTTP", () => {
  let org: TestOrg;
  let site: string;
  let auth: string;
  beforeAll(async () => {
    org = createTestOrg();
    site = `${await org.http()}/api/v1`;
    auth = `Basic ${Buffer.from(`${org.owner.email}:${org.owner.apiKey}`).toString('base64')}`;
  });
  afterAll(() => org.close());

  const call = async (method: string, path: string, init: { body?: BodyInit; query?: Record<string, string>; headers?: Record<string, string> } = {}) => {
    const url = new URL(site + path);
    for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
    const res = await fetch(url, { method, body: init.body, headers: { authorization: auth, 'user-agent': 'ZulipPython/0.9.0', ...init.headers } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('takes a multipart/form-data body with plain fields', async () => {
    const form = new FormData();
    form.append('type', 'stream');
    form.append('to', 'general');
    form.append('topic', 'multipart');
    form.append('content', 'sent as multipart');
    const res = await call('POST', '/messages', { body: form });
    expect(res.status).toBe(200);
    expect(org.db.prepare('SELECT content FROM messages WHERE id = ?').pluck().get(res.body.id)).toBe('sent as multipart');
  });

  it('reads PATCH parameters from the query string', async () => {
    const user = org.addUser();
    const res = await call('PATCH', `/users/${user.id}`, { query: { full_name: 'Renamed By Query', role: '300' } });
    expect(res).toEqual({ status: 200, body: { result: 'success', msg: '' } });
    expect(org.db.prepare('SELECT full_name, role FROM users WHERE id = ?').get(user.id)).toEqual({ full_name: 'Renamed By Query', role: 300 });
  });

  /** A request whose target is sent byte for byte (given as a URL, fetch or http.request would percent-encode it first). */
  const raw = (method: string, target: string) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const { hostname, port, pathname } = new URL(site);
      const req = request({ hostname, port, path: `${pathname}${target}`, method, headers: { authorization: auth } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
      });
      req.on('error', reject);
      req.end();
    });

  it('reads a query string written as it stands as a URL parser reads it', async () => {
    // Quotes, apostrophes, brackets and `+` as some scripts and curl send them, beside their percent-encoded forms.
    const content = `content=O'Brien+"<b>"%2B%C3%A9+[x]{y}|~^\\`;
    const sent = await raw('POST', `/messages?type=stream&to=general&topic=raw&${content}`);
    expect(sent.status).toBe(200);
    const stored = org.db.prepare('SELECT content FROM messages WHERE id = ?').pluck().get(sent.body.id);
    expect(stored).toBe(new URL(`http://localhost/?${content}`).searchParams.get('content'));
    expect(stored).toBe(`O'Brien "<b>"+é [x]{y}|~^\\`);
    // A path the URL parser changes (`.` segments, percent-encoded letters) is read as it makes it.
    const user = org.addUser();
    expect((await raw('PATCH', `/users/../users/%6De/../${user.id}?full_name=Dotted+Path`)).status).toBe(200);
    expect(org.db.prepare('SELECT full_name FROM users WHERE id = ?').pluck().get(user.id)).toBe('Dotted Path');
  });

  it.each([
    // Read without the URL parser (printable ASCII, no space, `"` or `#`) ...
    `content=O'Brien+<b>[x]{y}|~^\\%60`,
    'content=%2B%26%3D+plus&content=second',
    'content=%zz%C3%A9%',
    'content=a&&=empty-name&flag&content=b',
    // ... and with it: a fragment is no part of the query, and a quote is percent-encoded on the way.
    'content=before#after',
    'content="quoted"',
  ])('reads the query string %s as a URL parser does', async (query) => {
    const sent = await raw('POST', `/messages?type=stream&to=general&topic=queries&${query}`);
    expect(sent.status).toBe(200);
    const stored = org.db.prepare('SELECT content FROM messages WHERE id = ?').pluck().get(sent.body.id);
    expect(stored).toBe(new URL(`http://localhost/?${query}`).searchParams.get('content'));
    // Parameters no operation reads are named as the parser decoded them.
    const read = await raw('GET', `/users/me?${query}`);
    expect(read.body.ignored_parameters_unsupported).toEqual([...new Set(new URL(`http://localhost/?${query}`).searchParams.keys())].sort());
  });

  it('reads PATCH parameters from a url-encoded body, and DELETE parameters from the query string', async () => {
    const user = org.addUser();
    const patched = await call('PATCH', `/users/${user.id}`, { body: new URLSearchParams({ full_name: 'Renamed By Body' }) });
    expect(patched.status).toBe(200);
    const reg = await call('POST', '/register', { body: new URLSearchParams({ event_types: '["message"]' }) });
    expect(reg.status).toBe(200);
    const queueId = reg.body.queue_id as string;
    const deleted = await call('DELETE', '/events', { query: { queue_id: queueId } });
    expect(deleted).toEqual({ status: 200, body: { result: 'success', msg: '' } });
    const again = await call('DELETE', '/events', { query: { queue_id: queueId } });
    expect(again.body).toEqual({ result: 'error', msg: `Bad event queue ID: ${queueId}`, code: 'BAD_EVENT_QUEUE_ID', queue_id: queueId });
  });

  it("serves a bot framework's register, poll and acknowledge loop", async () => {
    const reg = await call('POST', '/register', { body: new URLSearchParams({ event_types: '["message"]', apply_markdown: 'true' }) });
    const queueId = reg.body.queue_id as string;
    await call('POST', '/messages', { body: new URLSearchParams({ type: 'stream', to: 'general', topic: 'bots', content: 'ping' }) });
    const poll = await call('GET', '/events', { query: { queue_id: queueId, last_event_id: '-1' } });
    const events = poll.body.events as { id: number; type: string; message: { content: string } }[];
    expect(events.map((e) => e.type)).toEqual(['message']);
    expect(events[0]!.message.content).toBe('<p>ping</p>');
    const idle = await call('GET', '/events', { query: { queue_id: queueId, last_event_id: String(events[0]!.id), dont_block: 'true' } });
    expect(idle.body.events).toEqual([]);
  });

  it('answers curl -G style reads and ignores the `client` parameter clients add', async () => {
    const res = await call('GET', '/users', { query: { client_gravatar: 'false', client: 'curl' } });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('ignored_parameters_unsupported');
  });
});
