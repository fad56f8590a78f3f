import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEvents, register } from '../../src/api/operations/events.js';
import { getRealmPresence, getUserPresence, updatePresence } from '../../src/api/operations/presence.js';
import { setSetting } from '../../src/server/model/realm.js';
import { failure } from '../helpers/api.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, TestClock, type TestOrg } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

const DAY = 86400;

describe.each(TRANSPORTS)('presence over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    // A fractional clock: server_timestamp keeps the fraction, stored times are whole seconds.
    org = createTestOrg({ clock: new TestClock(1_760_000_000.25) });
  });
  afterAll(() => org.close());

  describe('POST /users/me/presence', () => {
    it('answers in the legacy format keyed by e-mail, with a fractional server_timestamp', async () => {
      const user = org.addUser();
      const other = org.addUser();
      const t = Math.floor(org.clock.now());
      await (await clientFor(org, kind, other)).call(updatePresence, { status: 'active' });
      const res = await (await clientFor(org, kind, user)).call(updatePresence, { status: 'active' });
      expect(openapiErrors('post', '/users/me/presence', 200, res)).toEqual([]);
      expect(res.server_timestamp).toBe(org.clock.now());
      expect(res.presences![other.email]).toEqual({
        aggregated: { client: 'website', status: 'active', timestamp: t },
        website: { client: 'website', status: 'active', timestamp: t, pushable: false },
      });
      expect(res.presence_last_update_id).toBeGreaterThan(0);
    });

    it("answers with what was stored before the caller's report: their own entry is absent, then their previous one", async () => {
      const user = org.addUser();
      const client = await clientFor(org, kind, user);
      const first = await client.call(updatePresence, { status: 'idle', slim_presence: true });
      expect(first.presences).not.toHaveProperty(String(user.id));
      const idleAt = Math.floor(org.clock.now());
      org.clock.advance(120);
      const second = await client.call(updatePresence, { status: 'active', slim_presence: true });
      // The idle report, not this active one.
      expect(second.presences![String(user.id)]).toEqual({ active_timestamp: Math.floor(user.row.date_joined), idle_timestamp: idleAt });
      const third = await client.call(updatePresence, { status: 'active', slim_presence: true });
      const activeAt = Math.floor(org.clock.now());
      expect(third.presences![String(user.id)]).toEqual({ active_timestamp: activeAt, idle_timestamp: activeAt });
    });

    it('uses the modern format with last_update_id or slim_presence, returning only newer data', async () => {
      const a = org.addUser();
      const b = org.addUser();
      const clientA = await clientFor(org, kind, a);
      await clientA.call(updatePresence, { status: 'idle', ping_only: true });
      const first = await clientA.call(updatePresence, { status: 'idle', last_update_id: -1 });
      expect(openapiErrors('post', '/users/me/presence', 200, first)).toEqual([]);
      const t = Math.floor(org.clock.now());
      expect(first.presences![String(a.id)]).toEqual({ active_timestamp: Math.floor(a.row.date_joined), idle_timestamp: t });
      const cursor = first.presence_last_update_id!;
      const nothingNew = await clientA.call(updatePresence, { status: 'idle', last_update_id: cursor });
      expect(nothingNew).toMatchObject({ presences: {}, presence_last_update_id: cursor });
      await (await clientFor(org, kind, b)).call(updatePresence, { status: 'active' });
      const newer = await clientA.call(updatePresence, { status: 'idle', last_update_id: cursor });
      expect(Object.keys(newer.presences!)).toEqual([String(b.id)]);
      expect(newer.presence_last_update_id).toBeGreaterThan(cursor);
      const slim = await clientA.call(updatePresence, { status: 'idle', slim_presence: true });
      expect(Object.keys(slim.presences!)).toContain(String(b.id));
    });

    it('limits history to 14 days by default, to history_limit_days when given, and 0 returns nothing', async () => {
      const fresh = createTestOrg();
      try {
        const [first, second, reader] = [fresh.addUser(), fresh.addUser(), fresh.addUser()];
        await (await clientFor(fresh, kind, first)).call(updatePresence, { status: 'active', ping_only: true });
        const secondClient = await clientFor(fresh, kind, second);
        await secondClient.call(updatePresence, { status: 'active', ping_only: true });
        const cursor = (await secondClient.call(updatePresence, { status: 'active', last_update_id: -1 })).presence_last_update_id!;
        fresh.clock.advance(20 * DAY);
        const client = await clientFor(fresh, kind, reader);
        await client.call(updatePresence, { status: 'active', ping_only: true });
        const res = await client.call(updatePresence, { status: 'active' });
        expect(Object.keys(res.presences!)).toEqual([reader.email]);
        const month = await client.call(updatePresence, { status: 'active', history_limit_days: 30 });
        expect(Object.keys(month.presences!).sort()).toEqual([first.email, second.email, reader.email].sort());
        const none = await client.call(updatePresence, { status: 'active', history_limit_days: 0 });
        expect(none.presences).toEqual({});
        // A positive cursor means the client has the older data: only the window of IDs applies, not of time.
        const withCursor = await client.call(updatePresence, { status: 'active', last_update_id: cursor - 1 });
        expect(Object.keys(withCursor.presences!).sort()).toEqual([String(second.id), String(reader.id)].sort());
      } finally {
        await fresh.close();
      }
    });

    it('with ping_only records presence and returns nothing else', async () => {
      const user = org.addUser();
      const res = await (await clientFor(org, kind, user)).call(updatePresence, { status: 'active', ping_only: true });
      expect(res).toEqual({ result: 'success', msg: '' });
      expect(org.db.prepare('SELECT last_active_time FROM presence WHERE user_id = ?').get(user.id)).toEqual({ last_active_time: Math.floor(org.clock.now()) });
    });

    it('records nothing for users sharing no presence; a realm without presence returns none', async () => {
      const hidden = org.addUser();
      org.db.prepare('UPDATE users SET presence_enabled = 0 WHERE id = ?').run(hidden.id);
      await (await clientFor(org, kind, hidden)).call(updatePresence, { status: 'active' });
      expect(org.db.prepare('SELECT 1 FROM presence WHERE user_id = ?').get(hidden.id)).toBeUndefined();
      const fresh = createTestOrg();
      try {
        setSetting(fresh.db, 'presence_disabled', true);
        const res = await (await clientFor(fresh, kind)).call(updatePresence, { status: 'active' });
        expect(res).toMatchObject({ presences: {}, presence_last_update_id: -1 });
      } finally {
        await fresh.close();
      }
    });

    it('refuses bots and unknown statuses', async () => {
      const bot = await clientFor(org, kind, org.addUser({ bot: { type: 1, ownerId: org.owner.id } }));
      expect((await failure(bot.call(updatePresence, { status: 'active' }))).msg).toBe('This endpoint does not accept bot requests.');
      const member = await clientFor(org, kind, org.addUser());
      expect(await failure(member.call(updatePresence, { status: 'away' }))).toMatchObject({ msg: 'Invalid status: away', code: 'BAD_REQUEST' });
      const missing = await rawRequest(org, kind, { method: 'POST', path: '/users/me/presence' });
      expect(missing.body).toMatchObject({ msg: "Missing 'status' argument", code: 'REQUEST_VARIABLE_MISSING' });
    });

    it('turns idle in the legacy format once activity is 70 s older than the connection, and throttles writes', async () => {
      const fresh = createTestOrg();
      try {
        const user = fresh.addUser();
        const client = await clientFor(fresh, kind, user);
        await client.call(updatePresence, { status: 'active' });
        const activeAt = fresh.clock.now();
        const row = () => fresh.db.prepare('SELECT last_active_time, last_connected_time, last_update_id FROM presence WHERE user_id = ?').get(user.id);
        const before = row();
        fresh.clock.advance(30);
        await client.call(updatePresence, { status: 'active' });
        expect(row()).toEqual(before);
        fresh.clock.advance(100);
        await client.call(updatePresence, { status: 'idle' });
        expect(row()).toMatchObject({ last_active_time: activeAt, last_connected_time: fresh.clock.now() });
        // The idle report shows in the next answer (each answer precedes its own report).
        const res = await client.call(updatePresence, { status: 'idle' });
        expect((res.presences![user.email] as Record<string, unknown>).aggregated).toEqual({ client: 'website', status: 'idle', timestamp: fresh.clock.now() });
      } finally {
        await fresh.close();
      }
    });

    it('announces a user coming online with a presence event', async () => {
      const fresh = createTestOrg();
      try {
        const watcher = await clientFor(fresh, kind);
        const { queue_id } = await watcher.call(register, { event_types: ['presence'], fetch_event_types: [] });
        const user = fresh.addUser();
        const client = await clientFor(fresh, kind, user);
        // Long enough after joining that the joining time does not read as recent activity.
        fresh.clock.advance(100);
        await client.call(updatePresence, { status: 'idle' });
        fresh.clock.advance(60);
        await client.call(updatePresence, { status: 'active' });
        fresh.clock.advance(60);
        await client.call(updatePresence, { status: 'active' });
        const { events } = await watcher.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true });
        expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events })).toEqual([]);
        // The first report, then coming back active; the next ping changes nothing worth announcing.
        expect(events.map((e) => (e.presence as { website: { status: string } }).website.status)).toEqual(['idle', 'active']);
        expect(events[0]).toMatchObject({ type: 'presence', user_id: user.id, email: user.email, server_timestamp: expect.any(Number) });
      } finally {
        await fresh.close();
      }
    });
  });

  describe('GET /realm/presence', () => {
    it('lists everyone in the legacy format', async () => {
      const user = org.addUser();
      await (await clientFor(org, kind, user)).call(updatePresence, { status: 'active' });
      const bot = await clientFor(org, kind, org.addUser({ bot: { type: 1, ownerId: org.owner.id } }));
      const res = await bot.call(getRealmPresence, {});
      expect(openapiErrors('get', '/realm/presence', 200, res)).toEqual([]);
      expect(res.presences[user.email]).toMatchObject({ aggregated: { status: 'active' } });
      expect(res).not.toHaveProperty('presence_last_update_id');
    });
  });

  describe('GET /users/{user_id_or_email}/presence', () => {
    it('gives one user by ID or e-mail, aggregated turning offline after the threshold', async () => {
      const fresh = createTestOrg();
      try {
        const user = fresh.addUser();
        await (await clientFor(fresh, kind, user)).call(updatePresence, { status: 'active' });
        const reader = await clientFor(fresh, kind);
        const t = fresh.clock.now();
        const byId = await reader.call(getUserPresence, { user_id_or_email: String(user.id) });
        expect(openapiErrors('get', '/users/{user_id_or_email}/presence', 200, byId)).toEqual([]);
        expect(byId.presence).toEqual({ aggregated: { status: 'active', timestamp: t }, website: { status: 'active', timestamp: t } });
        fresh.clock.advance(201);
        const byEmail = await reader.call(getUserPresence, { user_id_or_email: user.email });
        expect(byEmail.presence).toEqual({ aggregated: { status: 'offline', timestamp: t }, website: { status: 'active', timestamp: t } });
        const slim = await reader.call(getUserPresence, { user_id_or_email: String(user.id), slim_presence: true });
        expect(slim.presence).toEqual({ active_timestamp: t, idle_timestamp: t });
      } finally {
        await fresh.close();
      }
    });

    it('reports unknown users, bots and users with no data', async () => {
      const reader = await clientFor(org, kind);
      expect((await failure(reader.call(getUserPresence, { user_id_or_email: '999999' }))).msg).toBe('No such user');
      expect((await failure(reader.call(getUserPresence, { user_id_or_email: 'nobody@example.com' }))).msg).toBe('No such user');
      const bot = org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
      expect((await failure(reader.call(getUserPresence, { user_id_or_email: String(bot.id) }))).msg).toBe('Presence is not supported for bot users.');
      const quiet = org.addUser();
      expect((await failure(reader.call(getUserPresence, { user_id_or_email: quiet.email }))).msg).toBe(`No presence data for ${quiet.email}`);
    });
  });
});
