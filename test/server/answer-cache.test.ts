/**
 * Reads answered again from the router's answer cache while the store is unchanged (src/server/answer-cache.ts):
 * every operation the catalogue declares cacheable is kept, and a kept answer never outlives a change, whoever
 * made it, nor reaches anyone but the credentials, host and request it was given to.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationsByArea } from '../../src/api/catalogue.js';
import type { WireRequest } from '../../src/api/wire.js';
import { AnswerCache, ANSWER_CACHE_LIMITS, ReadRequest, readRequest } from '../../src/server/answer-cache.js';
import type { Db } from '../../src/server/store/db.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { rawRequest, TRANSPORTS } from '../helpers/transports.js';

const basic = (u: { email: string; apiKey: string }) => `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString('base64')}`;

describe('operations declared cacheable', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const get = (path: string): WireRequest => ({ method: 'GET', path, query: [], body: [], headers: { authorization: basic(org.owner) } });
  const readOf = (req: WireRequest) => readRequest(req.path, req.query, req.headers);

  it('are each kept after one answer, and the kept answer is the answer', async () => {
    const ok = async (req: WireRequest) => {
      const res = await org.router.handle(req);
      expect(res.status, `${req.method} ${req.path}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body as Record<string, unknown>;
    };
    const send = (path: string, body: [string, string][]) => org.router.handle({ ...get(path), method: 'POST', body });
    const channel = (await ok(get('/streams'))).streams as { stream_id: number }[];
    const groups = (await ok(get('/user_groups'))).user_groups as { id: number }[];
    const sent = await send('/messages', [
      ['type', 'stream'],
      ['to', String(channel[0]!.stream_id)],
      ['topic', 'cache'],
      ['content', 'kept'],
    ]);
    const messageId = (sent.body as { id: number }).id;
    const { id, email } = org.owner;
    const paths: Record<string, string> = {
      'get-own-user': '/users/me',
      'get-user': `/users/${id}`,
      'get-user-by-email': `/users/${email}`,
      'get-user-groups': '/user_groups',
      'get-user-group-members': `/user_groups/${groups[0]!.id}/members`,
      'get-user-group-subgroups': `/user_groups/${groups[0]!.id}/subgroups`,
      'get-is-user-group-member': `/user_groups/${groups[0]!.id}/members/${id}`,
      'get-linkifiers': '/realm/linkifiers',
      'get-realm-domains': '/realm/domains',
      'get-custom-emoji': '/realm/emoji',
      'get-custom-profile-fields': '/realm/profile_fields',
      'get-channel-folders': '/channel_folders',
      'get-streams': '/streams',
      'get-stream': `/streams/${channel[0]!.stream_id}`,
      'get-stream-topics': `/users/me/${channel[0]!.stream_id}/topics`,
      'get-subscribers': `/streams/${channel[0]!.stream_id}/members`,
      'get-subscriptions': '/users/me/subscriptions',
      'get-message': `/messages/${messageId}`,
      'get-attachments': '/attachments',
    };
    const declared = Object.values(operationsByArea)
      .flat()
      .filter((op) => op.cacheable)
      .map((op) => op.name)
      .sort();
    expect(declared).toEqual(Object.keys(paths).sort());
    for (const [name, path] of Object.entries(paths)) {
      const req = get(path);
      const answered = await ok(req);
      const [kept] = org.router.cachedAnswers([{ read: readOf(req), remoteAddress: undefined }]);
      expect(kept?.text, `${name} was not kept`).toBeDefined();
      expect(JSON.parse(kept!.text!), name).toEqual(answered);
      // And the router answers the next one from it, parsed afresh: the caller may change what it gets.
      const again = await ok(req);
      expect(again).toEqual(answered);
      expect(again).not.toBe(answered);
    }
  });

  it('are the only ones kept: a read of another operation is never kept, the first time or later', async () => {
    for (const req of [get('/users'), { ...get('/messages'), query: [['anchor', 'newest'] as [string, string], ['num_before', '5'] as [string, string]] }]) {
      for (let i = 0; i < 3; i++) {
        expect((await org.router.handle(req)).status).toBe(200);
        expect(org.router.cachedAnswers([{ read: readOf(req), remoteAddress: undefined }])[0], req.path).toBeUndefined();
      }
    }
  });

  it('are not kept for a request that failed, nor for one with a body', async () => {
    const wrong = { ...get('/users/me'), headers: { authorization: basic({ email: org.owner.email, apiKey: 'W'.repeat(32) }) } };
    expect((await org.router.handle(wrong)).status).toBe(401);
    expect(org.router.cachedAnswers([{ read: readOf(wrong), remoteAddress: undefined }])[0]).toBeUndefined();
    const missing = get('/users/999999');
    expect((await org.router.handle(missing)).status).toBe(400);
    expect(org.router.cachedAnswers([{ read: readOf(missing), remoteAddress: undefined }])[0]).toBeUndefined();
    // A GET whose parameters come in its body goes the whole way, and is answered by them.
    const avatarOf = async (req: WireRequest) => ((await org.router.handle(req)).body as { user: { avatar_url: string | null } }).user.avatar_url;
    const plain = get(`/users/${org.owner.id}`);
    expect(await avatarOf(plain)).toBeNull();
    expect(await avatarOf(plain)).toBeNull();
    expect(await avatarOf({ ...plain, body: [['client_gravatar', 'false']] })).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\//);
    // A header holding a newline (only an in-process caller can send one) could blur the key: never kept.
    const odd = { ...get('/users/me'), headers: { ...get('/users/me').headers, host: 'a\nb' } };
    expect((await org.router.handle(odd)).status).toBe(200);
    expect(org.router.cachedAnswers([{ read: readOf(odd), remoteAddress: undefined }])[0]).toBeUndefined();
  });
});

describe.each(TRANSPORTS)('a kept answer after a change, over %s', (kind) => {
  let org: TestOrg;
  let other: Db;
  beforeAll(() => {
    org = createTestOrg();
    other = org.otherConnection();
  });
  afterAll(() => org.close());

  const user = (u: TestUser, who: TestUser = org.owner) => rawRequest(org, kind, { method: 'GET', path: `/users/${u.id}` }, who);
  const nameOf = async (u: TestUser, who?: TestUser) => ((await user(u, who)).body as { user: { full_name: string } }).user.full_name;

  it("is replaced by this server's own change at the next read", async () => {
    const u = org.addUser({ name: 'Before' });
    expect(await nameOf(u)).toBe('Before');
    expect(await nameOf(u)).toBe('Before');
    const renamed = await rawRequest(org, kind, { method: 'PATCH', path: `/users/${u.id}`, body: [['full_name', 'After']] });
    expect(renamed.status).toBe(200);
    expect(await nameOf(u)).toBe('After');
  });

  it("is replaced by another process's change at the next read", async () => {
    const u = org.addUser({ name: 'Elsewhere before' });
    expect(await nameOf(u)).toBe('Elsewhere before');
    expect(await nameOf(u)).toBe('Elsewhere before');
    other.prepare('UPDATE users SET full_name = ? WHERE id = ?').run('Elsewhere after', u.id);
    expect(await nameOf(u)).toBe('Elsewhere after');
  });

  it("follows the caller's newest message (max_message_id) and role", async () => {
    const u = org.addUser();
    const me = async () => (await rawRequest(org, kind, { method: 'GET', path: '/users/me' }, u)).body as { max_message_id: number; role: number };
    const before = await me();
    expect(await me()).toEqual(before);
    const sent = await rawRequest(
      org,
      kind,
      {
        method: 'POST',
        path: '/messages',
        body: [
          ['type', 'private'],
          ['to', JSON.stringify([u.id])],
          ['content', 'hello'],
        ],
      },
      org.owner,
    );
    expect(sent.status).toBe(200);
    expect((await me()).max_message_id).toBe((sent.body as { id: number }).id);
    other.prepare('UPDATE users SET role = 200 WHERE id = ?').run(u.id);
    expect((await me()).role).toBe(200);
  });

  it("is each caller's own: two users and a wrong key asking the same path at once", async () => {
    const a = org.addUser();
    const b = org.addUser();
    const wrong = { ...a, apiKey: 'W'.repeat(32) };
    const ask = (u: TestUser) => rawRequest(org, kind, { method: 'GET', path: '/users/me' }, u);
    await Promise.all([ask(a), ask(b)]);
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => ask([a, b, wrong][i % 3]!)));
    answers.forEach((res, i) => {
      if (i % 3 === 2) expect(res.body).toMatchObject({ result: 'error', msg: 'Invalid API key' });
      else expect(res.body).toMatchObject({ result: 'success', user_id: [a, b][i % 3]!.id });
    });
  });
});

describe('kept answers over HTTP', () => {
  let org: TestOrg;
  let site: URL;
  beforeAll(async () => {
    org = createTestOrg();
    site = new URL(await org.http());
  });
  afterAll(() => org.close());

  const exchange = (method: string, path: string, headers: Record<string, string>, form?: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const body = form ? new URLSearchParams(form).toString() : undefined;
      const sent = body ? { ...headers, 'content-type': 'application/x-www-form-urlencoded' } : headers;
      const req = request({ host: site.hostname, port: site.port, method, path: `/api/v1${path}`, headers: sent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('are kept per host: URLs made from the host follow the one the client used', async () => {
    // Notification Bot's avatar is a static file of the server the client reached (zerver/lib/avatar.py).
    const authorization = basic(org.owner);
    const made = await exchange('POST', '/users/me/subscriptions', { authorization }, { subscriptions: JSON.stringify([{ name: 'per-host' }]) });
    expect(made.status).toBe(200);
    const got = await exchange('GET', '/streams?include_public=true', { authorization });
    const channel = (JSON.parse(got.body) as { streams: { name: string; first_message_id: number }[] }).streams.find((c) => c.name === 'per-host')!;
    const avatarSeen = async (host: string, extra: Record<string, string> = {}) => {
      const res = await exchange('GET', `/messages/${channel.first_message_id}`, { authorization, host, ...extra });
      return (JSON.parse(res.body) as { message: { avatar_url: string } }).message.avatar_url;
    };
    const avatar = (host: string) => `http://${host}/static/images/static_avatars/notification-bot.png`;
    expect(await avatarSeen('chat.example.test')).toBe(avatar('chat.example.test'));
    expect(await avatarSeen('chat.example.test')).toBe(avatar('chat.example.test'));
    expect(await avatarSeen('other.example.test')).toBe(avatar('other.example.test'));
    // An empty X-Forwarded-Proto is no scheme at all: the URL is the host's, as without the header.
    expect(await avatarSeen('chat.example.test', { 'x-forwarded-proto': '' })).toBe(avatar('chat.example.test'));
  });

  it('answer HEAD without a body after a GET was kept', async () => {
    const authorization = basic(org.owner);
    expect((await exchange('GET', '/users/me', { authorization })).status).toBe(200);
    const head = await exchange('HEAD', '/users/me', { authorization });
    expect(head).toEqual({ status: 200, body: '' });
  });
});

describe('the answer cache', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const keyFor = (i: number): string => {
    const { key } = new ReadRequest(`/users/${i}`, [], 'Basic x', undefined, undefined);
    if (key === undefined) throw new Error('a plain request has a key');
    return key;
  };
  const answer = (text: string) => ({ status: 200, headers: {}, text, userId: 1 });

  it(`holds at most ${ANSWER_CACHE_LIMITS.answers} answers, making room by dropping the oldest`, () => {
    const cache = new AnswerCache(org.db);
    const stamp = cache.stamp() ?? '';
    for (let i = 0; i <= ANSWER_CACHE_LIMITS.answers; i++) cache.set(keyFor(i), stamp, answer(`{"n":${i}}`));
    const [first, second, last] = cache.find([keyFor(0), keyFor(1), keyFor(ANSWER_CACHE_LIMITS.answers)]);
    expect(first).toBeUndefined();
    expect(second?.text).toBe('{"n":1}');
    expect(last?.text).toBe(`{"n":${ANSWER_CACHE_LIMITS.answers}}`);
  });

  it('keeps no answer longer than its bound, and none past its own bound of characters in all', () => {
    const cache = new AnswerCache(org.db);
    const stamp = cache.stamp() ?? '';
    cache.set(keyFor(0), stamp, answer('x'.repeat(ANSWER_CACHE_LIMITS.answerCharacters)));
    expect(cache.find([keyFor(0)])[0]).toBeUndefined();
    const big = 'y'.repeat(ANSWER_CACHE_LIMITS.answerCharacters - 100);
    const fit = Math.floor(ANSWER_CACHE_LIMITS.characters / ANSWER_CACHE_LIMITS.answerCharacters);
    for (let i = 0; i <= fit; i++) cache.set(keyFor(i), stamp, answer(big));
    const held = cache.find(Array.from({ length: fit + 1 }, (_, i) => keyFor(i))).filter(Boolean).length;
    expect(held).toBeLessThanOrEqual(fit);
    expect(cache.find([keyFor(fit)])[0]?.text).toBe(big);
  });

  it('answers nothing, and keeps nothing, while the store cannot be read', () => {
    const db = org.otherConnection();
    const cache = new AnswerCache(db);
    cache.set(keyFor(1), cache.stamp() ?? '', answer('{}'));
    expect(cache.find([keyFor(1)])[0]?.text).toBe('{}');
    db.close();
    expect(cache.stamp()).toBeUndefined();
    expect(cache.find([keyFor(1)])).toEqual([undefined]);
  });

  it('keeps nothing when the store changed between the read of the stamp and the answer', () => {
    const cache = new AnswerCache(org.db);
    const stamp = cache.stamp() ?? '';
    org.addUser();
    cache.set(keyFor(1), stamp, answer('{}'));
    expect(cache.find([keyFor(1)])[0]).toBeUndefined();
    cache.set(keyFor(1), cache.stamp() ?? '', answer('{}'));
    expect(cache.find([keyFor(1)])[0]?.text).toBe('{}');
    org.addUser();
    expect(cache.find([keyFor(1)])[0]).toBeUndefined();
  });
});
