import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getStream, getStreams, getSubscriptions, subscribe, unsubscribe } from '../../src/api/operations/channels.js';
import { register } from '../../src/api/operations/events.js';
import { createChannelFolder } from '../../src/api/operations/folders.js';
import type { ChatClient } from '../../src/client/client.js';
import { failure } from '../helpers/api.js';
import { listen } from '../helpers/events.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('channels over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);

  describe('POST /users/me/subscriptions', () => {
    it('creates missing channels with a recipient row and subscribes the caller, keyed by user ID', async () => {
      const member = org.addUser();
      const client = await as(member);
      const name = unique('created');
      const res = await client.call(subscribe, { subscriptions: [{ name, description: 'About\nthings' }] });
      expect(openapiErrors('post', '/users/me/subscriptions', 200, res)).toEqual([]);
      expect(res.subscribed).toEqual({ [String(member.id)]: [name] });
      expect(res.already_subscribed).toEqual({});
      expect(res).not.toHaveProperty('unauthorized');
      const row = org.db.prepare('SELECT * FROM streams WHERE name = ?').get(name) as {
        id: number;
        description: string;
        creator_id: number;
        rendered_description: string;
      };
      expect(row).toMatchObject({ description: 'About things', creator_id: member.id, rendered_description: '<p>About things</p>' });
      expect(org.db.prepare('SELECT 1 FROM recipients WHERE stream_id = ?').get(row.id)).toBeDefined();
      const again = await client.call(subscribe, { subscriptions: [{ name }] });
      expect(again.subscribed).toEqual({});
      expect(again.already_subscribed).toEqual({ [String(member.id)]: [name] });
    });

    it('subscribes principals given by ID or e-mail and reports per user', async () => {
      const a = org.addUser();
      const b = org.addUser();
      const name = unique('team');
      const res = await owner.call(subscribe, { subscriptions: [{ name }], principals: [a.id, b.id] });
      expect(res.subscribed).toEqual({ [String(a.id)]: [name], [String(b.id)]: [name] });
      const byEmail = await owner.call(subscribe, { subscriptions: [{ name }], principals: [a.email] });
      expect(byEmail.already_subscribed).toEqual({ [String(a.id)]: [name] });
    });

    it('refuses unknown and deactivated principals', async () => {
      const gone = org.addUser({ active: false });
      expect((await failure(owner.call(subscribe, { subscriptions: [{ name: unique('p') }], principals: [999999] }))).msg).toBe('No such user');
      expect((await failure(owner.call(subscribe, { subscriptions: [{ name: unique('p') }], principals: [gone.id] }))).msg).toBe('User is deactivated');
      expect((await failure(owner.call(subscribe, { subscriptions: [{ name: unique('p') }], principals: ['nobody@example.com'] }))).msg).toBe('No such user');
    });

    it('creates private channels with protected history unless asked, and only admins make default channels', async () => {
      const name = unique('secret');
      await owner.call(subscribe, { subscriptions: [{ name }], invite_only: true });
      expect(org.db.prepare('SELECT invite_only, history_public_to_subscribers FROM streams WHERE name = ?').get(name)).toEqual({
        invite_only: 1,
        history_public_to_subscribers: 0,
      });
      const member = await as(org.addUser());
      const refused = await failure(member.call(subscribe, { subscriptions: [{ name: unique('d') }], is_default_stream: true }));
      expect(refused).toMatchObject({ msg: 'Insufficient permission', code: 'BAD_REQUEST' });
      const privateDefault = await failure(owner.call(subscribe, { subscriptions: [{ name: unique('d') }], is_default_stream: true, invite_only: true }));
      expect(privateDefault.msg).toBe('A default channel cannot be private.');
      const webPublic = await failure(owner.call(subscribe, { subscriptions: [{ name: unique('w') }], is_web_public: true }));
      expect(webPublic.msg).toBe('Web-public channels are not enabled.');
      const defaultName = unique('default');
      await owner.call(subscribe, { subscriptions: [{ name: defaultName }], is_default_stream: true });
      expect(org.db.prepare('SELECT is_default FROM streams WHERE name = ?').get(defaultName)).toEqual({ is_default: 1 });
    });

    it('validates channel names as a Zulip server does', async () => {
      expect((await failure(owner.call(subscribe, { subscriptions: [{ name: '   ' }] }))).msg).toBe("Channel name can't be empty.");
      expect((await failure(owner.call(subscribe, { subscriptions: [{ name: 'x'.repeat(61) }] }))).msg).toBe('Channel name too long (limit: 60 characters).');
      expect((await failure(owner.call(subscribe, { subscriptions: [{ name: 'ab\u0007c' }] }))).msg).toBe('Invalid character in channel name, at position 3.');
      const tooLong = await failure(owner.call(subscribe, { subscriptions: [{ name: unique('n'), description: 'd'.repeat(1025) }] }));
      expect(tooLong.msg).toBe('subscriptions[0]["description"] is too long (limit: 1024 characters)');
    });

    it('puts new channels in a folder, refusing an unknown one', async () => {
      const { channel_folder_id } = await owner.call(createChannelFolder, { name: unique('folder'), description: '' });
      const name = unique('foldered');
      await owner.call(subscribe, { subscriptions: [{ name }], folder_id: channel_folder_id });
      expect(org.db.prepare('SELECT folder_id FROM streams WHERE name = ?').get(name)).toEqual({ folder_id: channel_folder_id });
      expect((await failure(owner.call(subscribe, { subscriptions: [{ name: unique('x') }], folder_id: 99999 }))).msg).toBe('Invalid channel folder ID');
    });

    it('refuses private channels the caller cannot access, or lists them when errors are not fatal', async () => {
      const name = unique('closed');
      await owner.call(subscribe, { subscriptions: [{ name }], invite_only: true });
      const member = await as(org.addUser());
      const fatal = await failure(member.call(subscribe, { subscriptions: [{ name }] }));
      expect(fatal).toMatchObject({ msg: `Unable to access channel (${name}).`, code: 'BAD_REQUEST' });
      const open = unique('open');
      const lenient = await member.call(subscribe, { subscriptions: [{ name }, { name: open }], authorization_errors_fatal: false });
      expect(lenient.unauthorized).toEqual([name]);
      expect(Object.values(lenient.subscribed)).toEqual([[open]]);
      expect(openapiErrors('post', '/users/me/subscriptions', 200, lenient)).toEqual([]);
    });

    it('refuses guests', async () => {
      const guest = await as(org.addUser({ role: 600 }));
      expect(await failure(guest.call(subscribe, { subscriptions: [{ name: 'general' }] }))).toMatchObject({ msg: 'Not allowed for guest users' });
    });

    it('sends stream create, subscription add and peer_add events', async () => {
      const watcher = org.addUser();
      const newcomer = org.addUser();
      const watch = await listen(await as(watcher), ['stream', 'subscription']);
      const mine = await listen(await as(newcomer), ['stream', 'subscription']);
      const name = unique('evented');
      await owner.call(subscribe, { subscriptions: [{ name }], principals: [newcomer.id] });
      const stream = org.db.prepare('SELECT id FROM streams WHERE name = ?').get(name) as { id: number };
      const seen = await watch();
      expect(seen.map((e) => [e.type, e.op])).toEqual([
        ['stream', 'create'],
        ['subscription', 'peer_add'],
      ]);
      expect(seen[1]).toMatchObject({ stream_ids: [stream.id], user_ids: [newcomer.id] });
      const own = await mine();
      expect(own.map((e) => [e.type, e.op])).toEqual([
        ['stream', 'create'],
        ['subscription', 'add'],
      ]);
      expect((own[1]!.subscriptions as { name: string; subscribers: number[] }[])[0]).toMatchObject({ name, subscribers: [newcomer.id] });
      const res = await rawRequest(
        org,
        kind,
        {
          method: 'GET',
          path: '/events',
          query: [
            ['queue_id', (await (await as(newcomer)).call(register, { event_types: ['subscription'] })).queue_id!],
            ['last_event_id', '-1'],
            ['dont_block', 'true'],
          ],
        },
        newcomer,
      );
      expect(openapiErrors('get', '/events', 200, res.body)).toEqual([]);
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: [...seen, ...own] })).toEqual([]);
    });

    it('announces a private channel only to those who may see it', async () => {
      const outsider = org.addUser();
      const admin = org.addUser({ role: 200 });
      const outside = await listen(await as(outsider), ['stream']);
      const adminView = await listen(await as(admin), ['stream']);
      await owner.call(subscribe, { subscriptions: [{ name: unique('hidden') }], invite_only: true });
      expect(await outside()).toEqual([]);
      expect((await adminView()).map((e) => e.op)).toEqual(['create']);
    });
  });

  describe('DELETE /users/me/subscriptions', () => {
    it('removes the caller and reports channels they were not in', async () => {
      const member = org.addUser();
      const client = await as(member);
      const [a, b] = [unique('leave'), unique('stay')];
      await client.call(subscribe, { subscriptions: [{ name: a }] });
      await owner.call(subscribe, { subscriptions: [{ name: b }] });
      const res = await client.call(unsubscribe, { subscriptions: [a, b] });
      expect(res).toMatchObject({ removed: [a], not_removed: [b] });
      expect(openapiErrors('delete', '/users/me/subscriptions', 200, res)).toEqual([]);
      expect(
        org.db.prepare('SELECT active FROM subscriptions s JOIN streams c ON c.id = s.stream_id WHERE c.name = ? AND user_id = ?').get(a, member.id),
      ).toEqual({ active: 0 });
    });

    it('reports missing channels and needs permission to remove others', async () => {
      const member = org.addUser();
      const client = await as(member);
      expect((await failure(client.call(unsubscribe, { subscriptions: ['no such channel', 'nor this'] }))).msg).toBe(
        'Channel(s) (no such channel, nor this) do not exist',
      );
      const other = org.addUser();
      const name = unique('shared');
      await owner.call(subscribe, { subscriptions: [{ name }], principals: [other.id] });
      expect((await failure(client.call(unsubscribe, { subscriptions: [name], principals: [other.id] }))).msg).toBe('Insufficient permission');
      const ownBot = org.addUser({ bot: { type: 1, ownerId: member.id } });
      await owner.call(subscribe, { subscriptions: [{ name }], principals: [ownBot.id] });
      expect((await client.call(unsubscribe, { subscriptions: [name], principals: [ownBot.id] })).removed).toEqual([name]);
      expect((await owner.call(unsubscribe, { subscriptions: [name], principals: [other.id] })).removed).toEqual([name]);
    });

    it('sends remove to the user and peer_remove to the others', async () => {
      const leaver = org.addUser();
      const peer = org.addUser();
      const name = unique('peers');
      await owner.call(subscribe, { subscriptions: [{ name }], principals: [leaver.id, peer.id] });
      const own = await listen(await as(leaver), ['subscription']);
      const other = await listen(await as(peer), ['subscription']);
      await (await as(leaver)).call(unsubscribe, { subscriptions: [name] });
      const stream = org.db.prepare('SELECT id FROM streams WHERE name = ?').get(name) as { id: number };
      const mine = await own();
      expect(mine).toEqual([{ type: 'subscription', op: 'remove', subscriptions: [{ stream_id: stream.id, name }], id: 0 }]);
      expect(await other()).toEqual([{ type: 'subscription', op: 'peer_remove', stream_ids: [stream.id], user_ids: [leaver.id], id: 0 }]);
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: mine })).toEqual([]);
    });
  });

  describe('GET /users/me/subscriptions', () => {
    it('lists subscriptions with settings and, when asked, subscribers', async () => {
      const member = org.addUser();
      const client = await as(member);
      const name = unique('listed');
      await client.call(subscribe, { subscriptions: [{ name }] });
      const res = await client.call(getSubscriptions, { include_subscribers: true });
      expect(openapiErrors('get', '/users/me/subscriptions', 200, res)).toEqual([]);
      const sub = res.subscriptions.find((s) => s.name === name)!;
      expect(sub).toMatchObject({
        subscribers: [member.id],
        is_muted: false,
        in_home_view: true,
        pin_to_top: false,
        desktop_notifications: null,
        invite_only: false,
        creator_id: member.id,
        is_archived: false,
      });
      expect(sub.color).toMatch(/^#[0-9a-f]{6}$/);
      expect(res.subscriptions.map((s) => s.name)).toContain('general');
      const bare = await client.call(getSubscriptions, {});
      expect(bare.subscriptions[0]).not.toHaveProperty('subscribers');
      // Sorted by name in code-point order, as a Zulip server sorts: capitals first.
      const [lower, upper] = [unique('aa sorted'), unique('ZZ sorted')];
      await client.call(subscribe, { subscriptions: [{ name: lower }, { name: upper }] });
      const names = (await client.call(getSubscriptions, {})).subscriptions.map((s) => s.name);
      expect(names.indexOf(upper)).toBeLessThan(names.indexOf(lower));
      expect(names).toEqual([...names].sort());
    });
  });

  describe('GET /streams and /streams/{id}', () => {
    it('shows public channels to members, private ones only to their subscribers and administrators', async () => {
      const secret = unique('private');
      await owner.call(subscribe, { subscriptions: [{ name: secret }], invite_only: true });
      const id = (org.db.prepare('SELECT id FROM streams WHERE name = ?').get(secret) as { id: number }).id;
      const member = await as(org.addUser());
      const listed = await member.call(getStreams, {});
      expect(openapiErrors('get', '/streams', 200, listed)).toEqual([]);
      expect(listed.streams.map((s) => s.name)).toContain('general');
      expect(listed.streams.map((s) => s.name)).not.toContain(secret);
      expect((await failure(member.call(getStream, { stream_id: id }))).msg).toBe('Invalid channel ID');
      const admin = await as(org.addUser({ role: 200 }));
      const seen = await admin.call(getStream, { stream_id: id });
      expect(openapiErrors('get', '/streams/{stream_id}', 200, seen)).toEqual([]);
      expect(seen.stream).toMatchObject({ name: secret, invite_only: true, stream_id: id });
      expect((await admin.call(getStreams, { include_all: true })).streams.map((s) => s.name)).toContain(secret);
      expect((await failure(member.call(getStream, { stream_id: 987654 }))).msg).toBe('Invalid channel ID');
    });

    it("takes the legacy include_all_active from a non-administrator as include_all, as today's Zulip does", async () => {
      // zerver/views/streams.py get_streams_backend: `if include_all_active is True: include_all = True`, then
      // do_get_streams lists what the caller has metadata access to (level 356). Zulip 9.0 refused non-administrators
      // ("User not authorized for this query", lib/streams.py); today's source no longer does.
      const theirs = unique('theirs');
      const others = unique('others');
      const memberUser = org.addUser();
      const member = await as(memberUser);
      await member.call(subscribe, { subscriptions: [{ name: theirs }], invite_only: true });
      await owner.call(subscribe, { subscriptions: [{ name: others }], invite_only: true });
      const legacy = await rawRequest(org, kind, { method: 'GET', path: '/streams', query: [['include_all_active', 'true']] }, memberUser);
      expect(legacy.status).toBe(200);
      expect(openapiErrors('get', '/streams', 200, legacy.body)).toEqual([]);
      const names = (legacy.body as { streams: { name: string }[] }).streams.map((c) => c.name);
      expect(names).toEqual(expect.arrayContaining(['general', theirs]));
      expect(names).not.toContain(others);
      const current = (await member.call(getStreams, { include_all: true })).streams.map((c) => c.name);
      expect(names).toEqual(current);
    });

    it('shows guests only their channels, and flags defaults with include_default', async () => {
      const guestUser = org.addUser({ role: 600 });
      const guest = await as(guestUser);
      const pub = unique('public');
      await owner.call(subscribe, { subscriptions: [{ name: pub }] });
      const names = (await guest.call(getStreams, {})).streams.map((s) => s.name);
      expect(names).toContain('general');
      expect(names).not.toContain(pub);
      const general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
      const pubId = (org.db.prepare('SELECT id FROM streams WHERE name = ?').get(pub) as { id: number }).id;
      expect((await failure(guest.call(getStream, { stream_id: pubId }))).msg).toBe('Invalid channel ID');
      const withDefaults = await owner.call(getStreams, { include_default: true });
      expect(withDefaults.streams.find((s) => s.stream_id === general)).toMatchObject({ is_default: true });
      expect(openapiErrors('get', '/streams', 200, withDefaults)).toEqual([]);
    });

    it('leaves archived channels out unless asked', async () => {
      const name = unique('archived');
      await owner.call(subscribe, { subscriptions: [{ name }] });
      org.db.prepare('UPDATE streams SET is_archived = 1 WHERE name = ?').run(name);
      expect((await owner.call(getStreams, {})).streams.map((s) => s.name)).not.toContain(name);
      const all = await owner.call(getStreams, { exclude_archived: false });
      expect(all.streams.find((s) => s.name === name)).toMatchObject({ is_archived: true });
    });

    it("adds a bot's owner's channels with include_owner_subscribed, and accessible ones with include_can_access_content", async () => {
      const ownerUser = org.addUser();
      const name = unique('owned');
      await (await as(ownerUser)).call(subscribe, { subscriptions: [{ name }], invite_only: true });
      const bot = await as(org.addUser({ bot: { type: 1, ownerId: ownerUser.id } }));
      expect((await bot.call(getStreams, {})).streams.map((s) => s.name)).not.toContain(name);
      expect((await bot.call(getStreams, { include_owner_subscribed: true })).streams.map((s) => s.name)).toContain(name);
      const content = await (await as(ownerUser)).call(getStreams, { include_public: false, include_subscribed: false, include_can_access_content: true });
      expect(content.streams.map((s) => s.name)).toEqual(expect.arrayContaining(['general', name]));
    });

    it('shows web-public channels to guests', async () => {
      const name = unique('web');
      await owner.call(subscribe, { subscriptions: [{ name }] });
      const { id } = org.db.prepare('SELECT id FROM streams WHERE name = ?').get(name) as { id: number };
      org.db.prepare('UPDATE streams SET is_web_public = 1 WHERE id = ?').run(id);
      const guest = await as(org.addUser({ role: 600 }));
      expect((await guest.call(getStream, { stream_id: id })).stream.is_web_public).toBe(true);
      expect((await guest.call(getStreams, { include_web_public: true })).streams.map((s) => s.stream_id)).toContain(id);
    });
  });
});
