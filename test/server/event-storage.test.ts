/**
 * Bounded event state: an event is stored once per form however many queues get it, a user's queues and a
 * queue's pending events are bounded, and what expires is cleaned up in bounded steps.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateUserTopic } from '../../src/api/operations/channels.js';
import { deleteQueue, getEvents, register } from '../../src/api/operations/events.js';
import { sendMessage } from '../../src/api/operations/messages.js';
import { deactivateUser } from '../../src/api/operations/users.js';
import { acknowledge, emitEvent, MAX_PENDING_EVENTS, MAX_QUEUES_PER_USER, pendingEvents, type QueueRow } from '../../src/server/model/event-queues.js';
import { sweep } from '../../src/server/housekeeping.js';
import { LOGIN_FAILURES_KEPT_SECONDS } from '../../src/server/model/login-failures.js';
import { DB_FILE, openDb } from '../../src/server/store/db.js';
import { migrations } from '../../src/server/store/migrations.js';
import { failure } from '../helpers/api.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';
import { applyMigrations } from '../helpers/schema.js';

const count = (org: TestOrg, sql: string, ...args: unknown[]): number =>
  org.db
    .prepare(sql)
    .pluck()
    .get(...args) as number;

describe.each(TRANSPORTS)('event storage over %s', (kind) => {
  let org: TestOrg;
  let general: number;
  beforeAll(() => {
    org = createTestOrg();
    general = count(org, "SELECT id FROM streams WHERE name = 'general'");
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const poll = async (user: TestUser, queueId: string) => (await as(user)).call(getEvents, { queue_id: queueId, last_event_id: -1, dont_block: true });
  /** A typing notification from `user` to themselves, as it comes over the wire. */
  const typingTo = (user: TestUser) =>
    rawRequest(
      org,
      kind,
      {
        method: 'POST',
        path: '/typing',
        body: [
          ['op', 'start'],
          ['to', JSON.stringify([user.id])],
        ],
      },
      user,
    );

  it("writes one body for a guest's typing however many queues the guest has, each queue still getting it", async () => {
    const guest = org.addUser({ role: 600 });
    const client = await as(guest);
    const queues: string[] = [];
    for (let i = 0; i < 40; i++) queues.push((await client.call(register, { event_types: ['typing'], fetch_event_types: [] })).queue_id!);
    const payloads = count(org, 'SELECT count(*) FROM event_bodies');
    const bytes = count(org, 'SELECT coalesce(sum(length(body)), 0) FROM event_bodies');
    expect((await typingTo(guest)).status).toBe(200);
    expect(count(org, 'SELECT count(*) FROM event_bodies')).toBe(payloads + 1);
    expect(count(org, 'SELECT count(*) FROM user_events WHERE user_id = ?', guest.id)).toBe(1);
    const oneEvent = count(org, 'SELECT coalesce(sum(length(body)), 0) FROM event_bodies') - bytes;
    expect(oneEvent).toBeLessThan(1000);
    for (const q of [queues[0]!, queues[39]!]) {
      expect((await poll(guest, q)).events).toMatchObject([{ type: 'typing', op: 'start', sender: { user_id: guest.id } }]);
    }
  });

  it('writes as much log for a typing notification to a user with 50 queues as to one with a single queue', async () => {
    const guest = org.addUser({ role: 600 });
    const client = await as(guest);
    const typing = () => typingTo(guest);
    /** Bytes of write-ahead log one typing request writes, from an emptied log. */
    const logOfOne = async () => {
      org.db.pragma('wal_checkpoint(TRUNCATE)');
      expect((await typing()).status).toBe(200);
      return statSync(join(org.dataDir, `${DB_FILE}-wal`)).size;
    };
    const first = (await client.call(register, { event_types: ['typing'], fetch_event_types: [] })).queue_id!;
    await typing();
    const oneQueue = await logOfOne();
    const queues = [first];
    for (let i = 1; i < 50; i++) queues.push((await client.call(register, { event_types: ['typing'], fetch_event_types: [] })).queue_id!);
    await typing();
    const fiftyQueues = await logOfOne();
    // A few pages either way (a B-tree page split); a row per queue wrote about 300 KB.
    expect(fiftyQueues).toBeLessThanOrEqual(oneQueue + 3 * 4120);
    expect(fiftyQueues).toBeLessThan(64 * 1024);
    expect((await poll(guest, queues[49]!)).events.map((e) => e.id)).toEqual([0, 1]);
    expect((await poll(guest, first)).events.map((e) => e.id)).toEqual([0, 1, 2, 3]);
  });

  it("numbers each queue's own events from 0 whatever else its user's log holds, and frees the log once every queue has read it", async () => {
    const user = org.addUser();
    const client = await as(user);
    const messages = (await client.call(register, { event_types: ['message', 'typing'], fetch_event_types: [] })).queue_id!;
    const typingOnly = (await client.call(register, { event_types: ['typing'], fetch_event_types: [] })).queue_id!;
    for (const content of ['one', 'two']) await client.call(sendMessage, { type: 'direct', to: JSON.stringify([user.id]), content });
    expect((await typingTo(user)).status).toBe(200);
    expect((await poll(user, messages)).events).toMatchObject([
      { type: 'message', id: 0 },
      { type: 'message', id: 1 },
      { type: 'typing', id: 2 },
    ]);
    expect((await poll(user, typingOnly)).events).toMatchObject([{ type: 'typing', id: 0 }]);
    expect(count(org, 'SELECT count(*) FROM user_events WHERE user_id = ?', user.id)).toBe(3);
    await client.call(getEvents, { queue_id: messages, last_event_id: 2, dont_block: true });
    expect(count(org, 'SELECT count(*) FROM user_events WHERE user_id = ?', user.id)).toBe(1);
    expect((await client.call(getEvents, { queue_id: typingOnly, last_event_id: 0, dont_block: true })).events).toEqual([]);
    expect(count(org, 'SELECT count(*) FROM user_events WHERE user_id = ?', user.id)).toBe(0);
    const refused = await failure(client.call(getEvents, { queue_id: typingOnly, last_event_id: 1, dont_block: true }));
    expect(refused.msg).toBe('Event 1 was not in this queue');
  });

  it('stores a message once per rendering form, and each queue gets the form it registered for', async () => {
    const user = org.addUser();
    const client = await as(user);
    const html = [];
    const markdown = [];
    for (let i = 0; i < 3; i++) {
      html.push((await client.call(register, { event_types: ['message'], fetch_event_types: [], apply_markdown: true })).queue_id!);
      markdown.push((await client.call(register, { event_types: ['message'], fetch_event_types: [], apply_markdown: false })).queue_id!);
    }
    const payloads = count(org, 'SELECT count(*) FROM event_bodies');
    await client.call(sendMessage, { type: 'direct', to: JSON.stringify([user.id]), content: '**bold**' });
    expect(count(org, 'SELECT count(*) FROM event_bodies')).toBe(payloads + 2);
    for (const q of html) expect((await poll(user, q)).events).toMatchObject([{ type: 'message', message: { content: '<p><strong>bold</strong></p>' } }]);
    for (const q of markdown)
      expect((await poll(user, q)).events).toMatchObject([{ type: 'message', message: { content: '**bold**', content_type: 'text/x-markdown' } }]);
  });

  it('deletes a body once no queue references it any more, not before', async () => {
    const user = org.addUser();
    const client = await as(user);
    const a = (await client.call(register, { event_types: ['user_topic'], fetch_event_types: [] })).queue_id!;
    const b = (await client.call(register, { event_types: ['user_topic'], fetch_event_types: [] })).queue_id!;
    await client.call(updateUserTopic, { stream_id: general, topic: `t-${kind}`, visibility_policy: 1 });
    const payload = count(org, 'SELECT event_id FROM user_events WHERE user_id = ?', user.id);
    await client.call(getEvents, { queue_id: a, last_event_id: 0, dont_block: true });
    expect(count(org, 'SELECT count(*) FROM event_bodies WHERE event_id = ?', payload)).toBe(1);
    await client.call(deleteQueue, { queue_id: b });
    expect(count(org, 'SELECT count(*) FROM event_bodies WHERE event_id = ?', payload)).toBe(0);
    expect(count(org, 'SELECT count(*) FROM user_events WHERE user_id = ?', user.id)).toBe(0);
  });

  it("deletes a deactivated user's queues with their bodies, leaving none behind", async () => {
    const user = org.addUser();
    const client = await as(user);
    const q = (await client.call(register, { event_types: ['user_topic'], fetch_event_types: [] })).queue_id!;
    await client.call(updateUserTopic, { stream_id: general, topic: `d-${kind}`, visibility_policy: 1 });
    expect((await poll(user, q)).events).toHaveLength(1);
    const payload = count(org, 'SELECT event_id FROM user_events WHERE user_id = ?', user.id);
    await (await as(org.owner)).call(deactivateUser, { user_id: user.id });
    expect(count(org, 'SELECT count(*) FROM event_queues WHERE user_id = ?', user.id)).toBe(0);
    expect(count(org, 'SELECT count(*) FROM event_bodies WHERE event_id = ?', payload)).toBe(0);
    expect(count(org, 'SELECT count(*) FROM user_events WHERE user_id = ?', user.id)).toBe(0);
  });

  it(`keeps a user's ${MAX_QUEUES_PER_USER} most recently used queues: a new one pushes out the least recently used`, async () => {
    const user = org.addUser();
    const client = await as(user);
    const queues: string[] = [];
    for (let i = 0; i < MAX_QUEUES_PER_USER; i++) {
      queues.push((await client.call(register, { event_types: ['user_topic'], fetch_event_types: [] })).queue_id!);
      org.clock.advance(1);
    }
    // The first queue is polled, so the second is now the one idle longest.
    await poll(user, queues[0]!);
    org.clock.advance(1);
    const newest = (await client.call(register, { event_types: ['user_topic'], fetch_event_types: [] })).queue_id!;
    expect((await failure(poll(user, queues[1]!))).code).toBe('BAD_EVENT_QUEUE_ID');
    for (const q of [queues[0]!, queues[2]!, newest]) expect((await poll(user, q)).events).toEqual([]);
    expect(count(org, 'SELECT count(*) FROM event_queues WHERE user_id = ? AND dead = 0', user.id)).toBe(MAX_QUEUES_PER_USER);
  });

  it(`keeps a queue that lags ${MAX_PENDING_EVENTS} events behind in its user's log only with events it does not take`, async () => {
    const user = org.addUser();
    const client = await as(user);
    const drained = (await client.call(register, { event_types: ['custom'], fetch_event_types: [] })).queue_id!;
    const typingOnly = (await client.call(register, { event_types: ['typing'], fetch_event_types: [] })).queue_id!;
    org.db.transaction(() => {
      for (let i = 0; i < MAX_PENDING_EVENTS; i++) emitEvent(org.db, { type: 'custom', n: i }, [user.id], org.clock.now());
    })();
    await client.call(getEvents, { queue_id: drained, last_event_id: MAX_PENDING_EVENTS - 1, dont_block: true });
    org.db.transaction(() => emitEvent(org.db, { type: 'custom', n: 'over' }, [user.id], org.clock.now()))();
    expect((await client.call(getEvents, { queue_id: drained, last_event_id: MAX_PENDING_EVENTS, dont_block: true })).events).toEqual([]);
    expect((await poll(user, typingOnly)).events).toEqual([]);
    expect(count(org, 'SELECT count(*) FROM user_events WHERE user_id = ?', user.id)).toBeLessThan(2);
  });

  it(`drops a queue that holds ${MAX_PENDING_EVENTS} undrained events: its next poll is told to register again`, async () => {
    const user = org.addUser();
    const client = await as(user);
    const drained = (await client.call(register, { event_types: ['custom'], fetch_event_types: [] })).queue_id!;
    const full = (await client.call(register, { event_types: ['custom'], fetch_event_types: [] })).queue_id!;
    org.db.transaction(() => {
      for (let i = 0; i < MAX_PENDING_EVENTS; i++) emitEvent(org.db, { type: 'custom', n: i }, [user.id], org.clock.now());
    })();
    await client.call(getEvents, { queue_id: drained, last_event_id: MAX_PENDING_EVENTS - 1, dont_block: true });
    expect(pendingEvents(org.db, full)).toHaveLength(MAX_PENDING_EVENTS);
    org.db.transaction(() => emitEvent(org.db, { type: 'custom', n: 'over' }, [user.id], org.clock.now()))();
    const next = await client.call(getEvents, { queue_id: drained, last_event_id: MAX_PENDING_EVENTS - 1, dont_block: true });
    expect(next.events).toEqual([{ type: 'custom', n: 'over', id: MAX_PENDING_EVENTS }]);
    const dropped = await failure(poll(user, full));
    expect({ code: dropped.code, msg: dropped.msg }).toEqual({ code: 'BAD_EVENT_QUEUE_ID', msg: `Bad event queue ID: ${full}` });
  });
});

describe('cleanup', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('expires a few idle queues per request and leaves the rest, with their events, to the sweep', async () => {
    const user = org.addUser();
    const client = await clientFor(org, 'embedded', user);
    for (let i = 0; i < 30; i++) await client.call(register, { event_types: ['custom'], fetch_event_types: [], queue_lifespan_secs: 60 });
    org.db.transaction(() => emitEvent(org.db, { type: 'custom' }, [user.id], org.clock.now()))();
    org.clock.advance(61);
    const before = count(org, 'SELECT count(*) FROM event_queues');
    await client.call(register, { event_types: ['custom'], fetch_event_types: [] });
    const afterRequest = count(org, 'SELECT count(*) FROM event_queues');
    // One request deleted some expired queues and added its own, but did not take on all 30.
    expect(afterRequest).toBeGreaterThan(before - 30 + 1);
    expect(afterRequest).toBeLessThan(before + 1);
    expect(sweep(org.db, org.dataDir, org.clock, 0).queues).toBe(afterRequest - 1);
    expect(count(org, 'SELECT count(*) FROM event_queues')).toBe(1);
    expect(count(org, 'SELECT count(*) FROM event_bodies b WHERE NOT EXISTS (SELECT 1 FROM user_events u WHERE u.event_id = b.event_id)')).toBe(0);
    expect(count(org, 'SELECT count(*) FROM user_events')).toBe(0);
  });

  it('deletes login failures older than the rate-limit window, and keeps recent ones', () => {
    const now = org.clock.now();
    const insert = org.db.prepare('INSERT INTO login_failures (username, at) VALUES (?, ?)');
    for (let i = 0; i < 250; i++) insert.run(`nobody${i}@example.com`, now - LOGIN_FAILURES_KEPT_SECONDS - 1 - i);
    insert.run('recent@example.com', now - 10);
    expect(sweep(org.db, org.dataDir, org.clock, 0).loginFailures).toBe(250);
    expect(org.db.prepare('SELECT username FROM login_failures').pluck().all()).toEqual(['recent@example.com']);
  });

  it('each failed login clears some expired failures too, without serve', async () => {
    const now = org.clock.now();
    const insert = org.db.prepare('INSERT INTO login_failures (username, at) VALUES (?, ?)');
    for (let i = 0; i < 5; i++) insert.run(`old${i}@example.com`, now - LOGIN_FAILURES_KEPT_SECONDS - 100);
    const res = await rawRequest(
      org,
      'embedded',
      {
        method: 'POST',
        path: '/fetch_api_key',
        body: [
          ['username', 'who@example.com'],
          ['password', 'wrong'],
        ],
      },
      null,
    );
    expect(res.status).toBe(401);
    expect(org.db.prepare('SELECT username FROM login_failures ORDER BY at').pluck().all()).toEqual(['recent@example.com', 'who@example.com']);
  });
});

describe('migration 5', () => {
  it('keeps the events queued in a data dir written before it, and their IDs', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chatctl-migrate-'));
    const old = new Database(join(dataDir, DB_FILE));
    applyMigrations(old, 4);
    old.prepare("INSERT INTO users (id, email, full_name, api_key, date_joined) VALUES (1, 'a@example.com', 'A', 'k', 0)").run();
    const queue = old.prepare('INSERT INTO event_queues (id, user_id, lifespan_secs, last_access, last_event_id, pruned_through) VALUES (?, 1, 600, 0, ?, 2)');
    queue.run('q1', 4);
    queue.run('q2', 0);
    const event = old.prepare('INSERT INTO events (queue_id, id, event) VALUES (?, ?, ?)');
    event.run('q1', 3, '{"type":"custom","n":3}');
    event.run('q1', 4, '{"type":"custom","n":4}');
    event.run('q2', 0, '{"type":"other"}');
    old.close();
    const db = openDb(dataDir);
    try {
      expect(pendingEvents(db, 'q1')).toEqual([
        { type: 'custom', n: 3, id: 3 },
        { type: 'custom', n: 4, id: 4 },
      ]);
      expect(pendingEvents(db, 'q2')).toEqual([{ type: 'other', id: 0 }]);
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'events'").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });
});

describe('migration 15', () => {
  it("keeps each queue's pending events and IDs in its user's shared log, and numbers new events after them", () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chatctl-migrate-'));
    const old = new Database(join(dataDir, DB_FILE));
    applyMigrations(old, 14);
    old.prepare("INSERT INTO users (id, email, full_name, api_key, date_joined) VALUES (100, 'a@example.com', 'A', 'k', 0)").run();
    const queue = old.prepare(
      'INSERT INTO event_queues (id, user_id, options, lifespan_secs, last_access, last_event_id, pruned_through) VALUES (?, 100, ?, 600, 0, ?, ?)',
    );
    queue.run('q1', '{}', 3, 1);
    queue.run('q2', '{}', 0, -1);
    queue.run('empty', '{}', 5, 5);
    const payload = old.prepare('INSERT INTO event_payloads (id, event) VALUES (?, ?)');
    const reference = old.prepare('INSERT INTO queue_events (queue_id, id, payload_id) VALUES (?, ?, ?)');
    payload.run(7, '{"type":"custom","n":2}');
    payload.run(8, '{"type":"custom","n":3}');
    payload.run(9, '{"type":"other"}');
    reference.run('q1', 2, 7);
    reference.run('q1', 3, 8);
    reference.run('q2', 0, 9);
    old.close();
    const db = openDb(dataDir);
    try {
      expect(pendingEvents(db, 'q1')).toEqual([
        { type: 'custom', n: 2, id: 2 },
        { type: 'custom', n: 3, id: 3 },
      ]);
      expect(pendingEvents(db, 'q2')).toEqual([{ type: 'other', id: 0 }]);
      expect(pendingEvents(db, 'empty')).toEqual([]);
      db.transaction(() => emitEvent(db, { type: 'custom', n: 4 }, [100]))();
      expect(pendingEvents(db, 'q1').at(-1)).toEqual({ type: 'custom', n: 4, id: 4 });
      expect(pendingEvents(db, 'q2').at(-1)).toEqual({ type: 'custom', n: 4, id: 1 });
      expect(pendingEvents(db, 'empty')).toEqual([{ type: 'custom', n: 4, id: 6 }]);
      const row = (id: string) => db.prepare('SELECT * FROM event_queues WHERE id = ?').get(id) as QueueRow;
      db.transaction(() => {
        acknowledge(db, row('q1'), 4);
        acknowledge(db, row('q2'), 1);
        acknowledge(db, row('empty'), 6);
      })();
      expect(db.prepare('SELECT count(*) FROM user_events').pluck().get()).toBe(0);
      expect(db.prepare('SELECT count(*) FROM event_bodies').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });
});
