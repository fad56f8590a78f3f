import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { subscribe, updateUserTopic } from '../../src/api/operations/channels.js';
import { deleteQueue, getEvents, register } from '../../src/api/operations/events.js';
import { createChannelFolder } from '../../src/api/operations/folders.js';
import { sendMessage } from '../../src/api/operations/messages.js';
import { updatePresence } from '../../src/api/operations/presence.js';
import { basicAuthHeader, type WireRequest } from '../../src/api/wire.js';
import type { ChatClient } from '../../src/client/client.js';
import { FEATURE_LEVEL } from '../../src/api/param-levels.js';
import { SERVER_VERSION, setSetting } from '../../src/server/model/realm.js';
import { Router } from '../../src/server/router.js';
import { openDb } from '../../src/server/store/db.js';
import { failure } from '../helpers/api.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

/**
 * Resolves once a poll on the queue is waiting: a poll marks the queue accessed at the current time just
 * before it starts to wait, so the test moves the clock on first and watches for that mark.
 */
async function waiting(org: TestOrg, queueId: string, start: () => Promise<unknown>): Promise<void> {
  org.clock.advance(1);
  const mark = Math.floor(org.clock.now());
  void start();
  const accessed = org.db.prepare('SELECT last_access FROM event_queues WHERE id = ?');
  while ((accessed.get(queueId) as { last_access: number } | undefined)?.last_access !== mark) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.each(TRANSPORTS)('event queues over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);

  describe('POST /register', () => {
    it('returns a new queue, the version and the state of every type, valid against the description', async () => {
      await owner.call(updatePresence, { status: 'active' });
      await owner.call(createChannelFolder, { name: 'Folder', description: '' });
      const general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
      await owner.call(updateUserTopic, { stream_id: general, topic: 'quiet', visibility_policy: 1 });
      org.db.prepare("UPDATE users SET status_text = 'On leave' WHERE id = ?").run(org.owner.id);
      org.addUser({ active: false });
      const res = await owner.call(register, {});
      expect(openapiErrors('post', '/register', 200, res)).toEqual([]);
      expect(res).toMatchObject({
        last_event_id: -1,
        zulip_feature_level: FEATURE_LEVEL,
        zulip_version: SERVER_VERSION,
        zulip_merge_base: SERVER_VERSION,
        svc_feature_level: FEATURE_LEVEL,
        svc_version: SERVER_VERSION,
        svc_merge_base: SERVER_VERSION,
        max_topic_length: 60,
        max_channel_folder_name_length: 60,
        max_channel_folder_description_length: 1024,
        server_typing_started_expiry_period_milliseconds: 45000,
        server_typing_stopped_wait_period_milliseconds: 12000,
        server_typing_started_wait_period_milliseconds: 30000,
        server_presence_ping_interval_seconds: 60,
        server_presence_offline_threshold_seconds: 200,
        realm_empty_topic_display_name: 'general chat',
        realm_name: 'Test org',
        realm_filters: [],
        realm_linkifiers: [],
        user_topics: [{ stream_id: general, topic_name: 'quiet', last_updated: org.clock.now(), visibility_policy: 1 }],
        user_status: { [String(org.owner.id)]: { status_text: 'On leave' } },
        user_id: org.owner.id,
        is_owner: true,
        // Welcome Bot's direct message to the organization's creator is the only message yet.
        max_message_id: org.db.prepare('SELECT max(message_id) FROM user_messages WHERE user_id = ?').pluck().get(org.owner.id) as number,
      });
      expect(res.max_message_id).toBeGreaterThan(0);
      expect(res.queue_id).toMatch(/^[0-9a-f-]{36}$/);
      expect((res.realm_users as { user_id: number }[]).map((u) => u.user_id)).toContain(org.owner.id);
      expect((res.realm_non_active_users as unknown[]).length).toBe(1);
      expect((res.subscriptions as { name: string }[]).map((s) => s.name)).toEqual(['general']);
      expect((res.channel_folders as { name: string }[]).map((f) => f.name)).toEqual(['Folder']);
      expect((res.realm_user_groups as { name: string }[]).map((g) => g.name)).toContain('role:members');
      expect(Object.keys(res.presences as object)).toEqual([org.owner.email]);
      expect(typeof res.server_timestamp).toBe('number');
    });

    it('fetches only the requested types and stores the queue options', async () => {
      const res = await owner.call(register, {
        event_types: ['message'],
        fetch_event_types: ['realm_user_groups', 'presence', 'realm_linkifiers'],
        slim_presence: true,
        apply_markdown: true,
        client_capabilities: { linkifier_url_template: true },
        queue_lifespan_secs: 120,
      });
      expect(
        Object.keys(res)
          .filter((k) => !['result', 'msg', 'queue_id', 'last_event_id'].includes(k) && !/_(feature_level|version|merge_base)$/.test(k))
          .sort(),
      ).toEqual(['presence_last_update_id', 'presences', 'realm_linkifiers', 'realm_user_groups', 'server_timestamp'].sort());
      const row = org.db.prepare('SELECT event_types, options, lifespan_secs FROM event_queues WHERE id = ?').get(res.queue_id) as {
        event_types: string;
        options: string;
        lifespan_secs: number;
      };
      expect(JSON.parse(row.event_types)).toEqual(['message']);
      expect(JSON.parse(row.options)).toMatchObject({ apply_markdown: true, slim_presence: true, client_capabilities: { linkifier_url_template: true } });
      expect(row.lifespan_secs).toBe(120);
    });

    it('rejects unknown client capabilities', async () => {
      const res = await rawRequest(org, kind, { method: 'POST', path: '/register', body: [['client_capabilities', '{"teleport": true}']] });
      expect(res.body).toMatchObject({ msg: 'Argument "teleport" at client_capabilities is unexpected', code: 'BAD_REQUEST' });
      // Names every JS object inherits are unknown keys like any other.
      for (const key of ['constructor', '__proto__', 'toString']) {
        const inherited = await rawRequest(org, kind, { method: 'POST', path: '/register', body: [['client_capabilities', `{"${key}": true}`]] });
        expect(inherited.body).toMatchObject({ msg: `Argument "${key}" at client_capabilities is unexpected`, code: 'BAD_REQUEST' });
      }
    });

    it('shows a guest only what a guest may see', async () => {
      await owner.call(subscribe, { subscriptions: [{ name: 'members only' }] });
      const guest = await as(org.addUser({ role: 600 }));
      const res = await guest.call(register, { fetch_event_types: ['subscription', 'stream', 'realm_user'] });
      expect((res.streams as { name: string }[]).map((s) => s.name)).toEqual(['general']);
      expect(res.never_subscribed).toEqual([]);
      expect(res).toMatchObject({ is_guest: true, can_create_streams: false, can_subscribe_other_users: false });
      expect((await failure(guest.call(register, { all_public_streams: true }))).msg).toBe('User not authorized for this query');
    });
  });

  describe('GET /events', () => {
    it('delivers events with increasing IDs and prunes what is acknowledged', async () => {
      const user = org.addUser();
      const client = await as(user);
      const { queue_id } = await client.call(register, { event_types: ['user_topic'] });
      const general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
      for (const topic of ['a', 'b', 'c']) await client.call(updateUserTopic, { stream_id: general, topic, visibility_policy: 1 });
      const first = await client.call(getEvents, { queue_id: queue_id!, last_event_id: -1 });
      expect(openapiErrors('get', '/events', 200, first)).toEqual([]);
      expect(first.events.map((e) => [e.id, e.topic_name])).toEqual([
        [0, 'a'],
        [1, 'b'],
        [2, 'c'],
      ]);
      const rest = await client.call(getEvents, { queue_id: queue_id!, last_event_id: 1, dont_block: true });
      expect(rest.events.map((e) => e.id)).toEqual([2]);
      const older = await failure(client.call(getEvents, { queue_id: queue_id!, last_event_id: 0, dont_block: true }));
      expect(older).toMatchObject({ msg: 'An event newer than 0 has already been pruned!', code: 'BAD_REQUEST' });
      const unknown = await failure(client.call(getEvents, { queue_id: queue_id!, last_event_id: 7, dont_block: true }));
      expect(unknown.msg).toBe('Event 7 was not in this queue');
      const done = await client.call(getEvents, { queue_id: queue_id!, last_event_id: 2, dont_block: true });
      expect(done.events).toEqual([]);
    });

    it('refuses unknown queues and queues of other users with BAD_EVENT_QUEUE_ID', async () => {
      const res = await rawRequest(org, kind, {
        method: 'GET',
        path: '/events',
        query: [
          ['queue_id', 'nope'],
          ['last_event_id', '-1'],
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'Bad event queue ID: nope', code: 'BAD_EVENT_QUEUE_ID', queue_id: 'nope' });
      const { queue_id } = await owner.call(register, { event_types: ['presence'] });
      const other = await as(org.addUser());
      const theirs = await failure(other.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true }));
      expect(theirs).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', extra: { queue_id } });
    });

    it('wants queue_id and last_event_id, and with dont_block and no queue_id makes a queue', async () => {
      const missingQueue = await rawRequest(org, kind, { method: 'GET', path: '/events', query: [['last_event_id', '-1']] });
      expect(missingQueue.body).toEqual({ result: 'error', msg: "Missing 'queue_id' argument", code: 'BAD_REQUEST' });
      const missingLast = await rawRequest(org, kind, { method: 'GET', path: '/events', query: [['queue_id', 'x']] });
      expect(missingLast.body).toEqual({ result: 'error', msg: "Missing 'last_event_id' argument", code: 'BAD_REQUEST' });
      const made = await owner.call(getEvents, { dont_block: true, event_types: ['user_topic'] });
      expect(made.events).toEqual([]);
      expect(org.db.prepare('SELECT event_types FROM event_queues WHERE id = ?').get(made.queue_id)).toEqual({ event_types: '["user_topic"]' });
    });

    it('gives a queue made by GET /events the defaults of that endpoint: raw Markdown messages, as without apply_markdown', async () => {
      const made = await owner.call(getEvents, { dont_block: true, event_types: ['message'] });
      await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([org.owner.id]), content: 'some **bold** text' });
      const { events } = await owner.call(getEvents, { queue_id: made.queue_id!, last_event_id: -1, dont_block: true });
      expect(events).toHaveLength(1);
      expect(events[0]!.message).toMatchObject({ content: 'some **bold** text', content_type: 'text/x-markdown' });
    });

    it("leaves a message's Gravatar to a client_gravatar queue only where everyone may see the sender's address", async () => {
      const { queue_id } = await owner.call(register, { event_types: ['message'], client_gravatar: true });
      const sender = org.addUser();
      let lastId = -1;
      /** The message event of a direct message `sender` sends now. */
      const sent = async () => {
        await (await as(sender)).call(sendMessage, { type: 'direct', to: JSON.stringify([org.owner.id]), content: 'hello' });
        const { events } = await owner.call(getEvents, { queue_id: queue_id!, last_event_id: lastId, dont_block: true });
        lastId = events.at(-1)!.id;
        return events.at(-1)!;
      };
      setSetting(org.db, 'email_address_visibility', 3);
      try {
        // zerver/lib/message_cache.py finalize_payload: the owner may see the address, but not everyone may.
        expect(await sent()).toMatchObject({ message: { avatar_url: expect.stringMatching(/^https:\/\/secure\.gravatar\.com\/avatar\//) } });
      } finally {
        setSetting(org.db, 'email_address_visibility', 1);
      }
      expect(await sent()).toMatchObject({ message: { avatar_url: null } });
    });

    it('holds a poll until an event arrives in this process', async () => {
      const user = org.addUser();
      const client = await as(user);
      const { queue_id } = await client.call(register, { event_types: ['user_topic'] });
      let poll!: Promise<{ events: unknown[] }>;
      await waiting(org, queue_id!, () => (poll = client.call(getEvents, { queue_id: queue_id!, last_event_id: -1 })));
      const general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
      await client.call(updateUserTopic, { stream_id: general, topic: 'wake', visibility_policy: 3 });
      expect((await poll).events).toEqual([expect.objectContaining({ type: 'user_topic', topic_name: 'wake', id: 0 })]);
    });

    it('keeps a queue alive while a poll waits on it, past a lifespan shorter than the wait', async () => {
      const user = org.addUser();
      const client = await as(user);
      const { queue_id } = await client.call(register, { event_types: ['user_topic'], queue_lifespan_secs: 30 });
      let poll!: Promise<{ events: unknown[] }>;
      await waiting(org, queue_id!, () => (poll = client.call(getEvents, { queue_id: queue_id!, last_event_id: -1 })));
      // 40 s of waiting, short of a heartbeat; the poll looks at its queue every 250 ms meanwhile.
      for (let i = 0; i < 4; i++) {
        org.clock.advance(10);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      // Another client's registration expires idle queues: a queue with a waiting poll is not idle.
      await owner.call(register, { event_types: ['user_topic'], fetch_event_types: [] });
      const general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
      await client.call(updateUserTopic, { stream_id: general, topic: 'kept', visibility_policy: 3 });
      expect((await poll).events).toEqual([expect.objectContaining({ type: 'user_topic', topic_name: 'kept' })]);
    });

    it('answers an idle poll with a heartbeat once its time has come', async () => {
      const { queue_id } = await owner.call(register, { event_types: ['user_topic'] });
      let poll!: Promise<{ events: unknown[] }>;
      await waiting(org, queue_id!, () => (poll = owner.call(getEvents, { queue_id: queue_id!, last_event_id: -1 })));
      // The heartbeat follows the server's clock, which the test moves past the 45–55 s interval.
      org.clock.advance(60);
      const res = await poll;
      expect(res.events).toEqual([{ type: 'heartbeat', id: 0 }]);
      expect(openapiErrors('get', '/events', 200, res)).toEqual([]);
    });

    it('stops waiting when the client goes away', async () => {
      const { queue_id } = await owner.call(register, { event_types: ['user_topic'] });
      const abort = new AbortController();
      let poll!: Promise<{ events: unknown[] }>;
      await waiting(org, queue_id!, () => (poll = owner.call(getEvents, { queue_id: queue_id!, last_event_id: -1 }, { signal: abort.signal })));
      abort.abort();
      // In process the wait ends with nothing; over HTTP the client's request ends with the abort.
      const outcome = await poll.then(
        (res) => res.events,
        (e: unknown) => (e instanceof Error ? e.name : 'error'),
      );
      expect(outcome).toEqual(kind === 'embedded' ? [] : 'AbortError');
    });
  });

  describe('DELETE /events', () => {
    it('deletes the queue; then and for unknown or foreign queues it is BAD_EVENT_QUEUE_ID', async () => {
      const { queue_id } = await owner.call(register, {});
      const other = await as(org.addUser());
      expect((await failure(other.call(deleteQueue, { queue_id: queue_id! }))).code).toBe('BAD_EVENT_QUEUE_ID');
      const res = await owner.call(deleteQueue, { queue_id: queue_id! });
      expect(res).toEqual({ result: 'success', msg: '' });
      expect(openapiErrors('delete', '/events', 200, res)).toEqual([]);
      const again = await rawRequest(org, kind, { method: 'DELETE', path: '/events', body: [['queue_id', queue_id!]] });
      expect(again.body).toEqual({ result: 'error', msg: `Bad event queue ID: ${queue_id}`, code: 'BAD_EVENT_QUEUE_ID', queue_id });
      const missing = await rawRequest(org, kind, { method: 'DELETE', path: '/events' });
      expect(missing.body).toMatchObject({ msg: "Missing 'queue_id' argument", code: 'REQUEST_VARIABLE_MISSING' });
    });

    it('ends a poll waiting on the deleted queue', async () => {
      const { queue_id } = await owner.call(register, { event_types: ['user_topic'] });
      let poll!: Promise<unknown>;
      await waiting(org, queue_id!, () => (poll = owner.call(getEvents, { queue_id: queue_id!, last_event_id: -1 }).catch((e: unknown) => e)));
      await owner.call(deleteQueue, { queue_id: queue_id! });
      expect(await poll).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID' });
    });
  });

  it('expires queues idle past their lifespan', async () => {
    const { queue_id } = await owner.call(register, { queue_lifespan_secs: 30 });
    org.clock.advance(31);
    const res = await failure(owner.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true }));
    expect(res.code).toBe('BAD_EVENT_QUEUE_ID');
  });

  it('stores no events for a queue past its lifespan, even before anything deletes it', async () => {
    const user = org.addUser();
    const client = await as(user);
    await client.call(register, { event_types: ['user_topic'], queue_lifespan_secs: 30 });
    org.clock.advance(31);
    // Changes that only ever emit (no register, poll or delete runs the expiry) must not fill a dead queue.
    const general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
    for (const topic of ['a', 'b', 'c']) await client.call(updateUserTopic, { stream_id: general, topic, visibility_policy: 1 });
    expect(org.db.prepare('SELECT count(*) FROM user_events WHERE user_id = ?').pluck().get(user.id)).toBe(0);
  });
});

describe('event queues across processes', () => {
  let org: TestOrg;
  let second: Router;
  beforeAll(() => {
    org = createTestOrg();
    // A second router with its own connection to the same data dir: another chatctl process.
    second = new Router({ db: openDb(org.dataDir), dataDir: org.dataDir, clock: org.clock });
  });
  afterAll(async () => {
    second.db.close();
    await org.close();
  });

  const viaSecond = (req: Pick<WireRequest, 'method' | 'path'> & Partial<WireRequest>, user: TestUser = org.owner) =>
    second.handle({ query: [], body: [], headers: { authorization: basicAuthHeader(user.email, user.apiKey) }, ...req });

  it.each(TRANSPORTS)('a queue registered through one router is read through the other (%s)', async (kind) => {
    const client = await clientFor(org, kind);
    const { queue_id } = await client.call(register, { event_types: ['user_topic'] });
    const general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
    await client.call(updateUserTopic, { stream_id: general, topic: kind, visibility_policy: 1 });
    const res = await viaSecond({
      method: 'GET',
      path: '/events',
      query: [
        ['queue_id', queue_id!],
        ['last_event_id', '-1'],
        ['dont_block', 'true'],
      ],
    });
    expect(res.body).toMatchObject({ result: 'success', events: [{ type: 'user_topic', topic_name: kind, id: 0 }] });
  });

  it('a poll in one process sees events another process writes to the store', async () => {
    const { queue_id } = await (await clientFor(org, 'embedded')).call(register, { event_types: ['custom'] });
    let poll!: Promise<{ body: unknown }>;
    await waiting(
      org,
      queue_id!,
      () =>
        (poll = viaSecond({
          method: 'GET',
          path: '/events',
          query: [
            ['queue_id', queue_id!],
            ['last_event_id', '-1'],
          ],
        })),
    );
    // Written with a third connection and without this process's wake-up: only the store poll can find it.
    const writer = openDb(org.dataDir);
    try {
      writer.transaction(() => {
        writer.prepare('INSERT INTO event_bodies (event_id, form, body) VALUES (1000, \'\', \'{"type":"custom"}\')').run();
        writer.prepare('INSERT INTO user_events (user_id, n, event_id) VALUES (?, 1000, 1000)').run(org.owner.id);
      })();
    } finally {
      writer.close();
    }
    expect((await poll).body).toMatchObject({ events: [{ type: 'custom', id: 0 }] });
  });
});

describe('long polls on one keep-alive connection (HTTP)', () => {
  it('end one after another with nothing left listening on the connection, and the last ends when its client leaves', async () => {
    const org = createTestOrg();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const warnings: Error[] = [];
    const warned = (w: Error) => warnings.push(w);
    process.on('warning', warned);
    try {
      const site = new URL(await org.http());
      const sockets = new Set<unknown>();
      const get = (path: string) => {
        const req = request({
          hostname: site.hostname,
          port: site.port,
          path: `/api/v1${path}`,
          agent,
          headers: { authorization: basicAuthHeader(org.owner.email, org.owner.apiKey) },
        });
        const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
          req.on('response', (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d));
            res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
          });
          req.on('error', reject);
        });
        req.on('socket', (s) => sockets.add(s));
        req.end();
        return { req, answer };
      };
      const embedded = await clientFor(org, 'embedded');
      const { queue_id } = await embedded.call(register, { event_types: ['message'] });
      // More polls than Node lets listen for one signal before it warns of a leak: each stops listening when it ends.
      let last = -1;
      for (let i = 0; i < 12; i++) {
        let poll!: ReturnType<typeof get>;
        await waiting(org, queue_id!, async () => (poll = get(`/events?queue_id=${queue_id}&last_event_id=${last}`)));
        await embedded.call(sendMessage, { type: 'stream', to: 'general', topic: 'polls', content: `poll ${i}` });
        const { events } = (await poll.answer) as { events: { id: number }[] };
        last = events.at(-1)!.id;
      }
      let leaving!: ReturnType<typeof get>;
      await waiting(org, queue_id!, async () => (leaving = get(`/events?queue_id=${queue_id}&last_event_id=${last}`)));
      leaving.answer.catch(() => undefined);
      leaving.req.destroy();
      await vi.waitFor(() => expect(org.logs).toContainEqual(expect.stringMatching(/"GET \/api\/v1\/events" 499 /)));
      expect(sockets.size).toBe(1);
      expect(warnings.map((w) => w.message)).toEqual([]);
    } finally {
      process.off('warning', warned);
      agent.destroy();
      await org.close();
    }
  });
});
