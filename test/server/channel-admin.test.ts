import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addDefaultStream,
  archiveStream,
  createChannel,
  getStreams,
  getSubscribers,
  removeDefaultStream,
  subscribe,
  unsubscribe,
  updateStream,
} from '../../src/api/operations/channels.js';
import { register } from '../../src/api/operations/events.js';
import { createChannelFolder } from '../../src/api/operations/folders.js';
import type { ChatClient } from '../../src/client/client.js';
import { bad, failure, flatFailure } from '../helpers/api.js';
import type { QueueEvent } from '../../src/api/operations/events.js';
import { eventErrors, listen } from '../helpers/events.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

/** A reader of the events a queue received since the last read (listen's reader returns all of them every time). */
async function newEvents(...args: Parameters<typeof listen>): Promise<() => Promise<QueueEvent[]>> {
  const read = await listen(...args);
  let seen = 0;
  return async () => {
    const all = await read();
    const fresh = all.slice(seen);
    seen = all.length;
    return fresh;
  };
}

/** An event as the OpenAPI check takes it: without the ID the queue gave it. */
const stored = ({ id: _id, ...event }: QueueEvent) => eventErrors(event);

type Row = { name: string; description: string; invite_only: number; history_public_to_subscribers: number; is_archived: number; folder_id: number | null };

describe.each(TRANSPORTS)('channel administration over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const row = (id: number): Row => org.db.prepare('SELECT * FROM streams WHERE id = ?').get(id) as Row;
  const count = (): number => org.db.prepare('SELECT count(*) FROM streams').pluck().get() as number;

  describe('POST /channels/create', () => {
    it('creates the channel, subscribes exactly the users given and tells who may see it', async () => {
      const [a, b, watcher] = [org.addUser(), org.addUser(), org.addUser()];
      const watch = await newEvents(await as(watcher), ['stream', 'subscription']);
      const mine = await newEvents(await as(a), ['stream', 'subscription']);
      const name = unique('made');
      const { id } = await owner.call(createChannel, { name: ` ${name} `, description: 'One\ntwo', subscribers: [a.id, b.id] });
      expect(row(id)).toMatchObject({ name, description: 'One two', invite_only: 0 });
      expect((await owner.call(getSubscribers, { stream_id: id })).subscribers).toEqual([a.id, b.id]);
      const seen = await watch();
      expect(seen.map((e) => [e.type, e.op])).toEqual([
        ['stream', 'create'],
        ['subscription', 'peer_add'],
      ]);
      expect(seen[1]).toMatchObject({ stream_ids: [id], user_ids: [a.id, b.id] });
      expect((await mine()).map((e) => [e.type, e.op])).toEqual([
        ['stream', 'create'],
        ['subscription', 'add'],
      ]);
    });

    it('subscribes nobody when no subscribers are given', async () => {
      const { id } = await owner.call(createChannel, { name: unique('empty'), subscribers: [] });
      expect((await owner.call(getSubscribers, { stream_id: id })).subscribers).toEqual([]);
    });

    it('refuses a name in use (any case), a bad name or an unknown user, and creates nothing', async () => {
      const taken = unique('Taken');
      await owner.call(createChannel, { name: taken, subscribers: [] });
      const before = count();
      const clash = await failure(owner.call(createChannel, { name: taken.toLowerCase(), subscribers: [] }));
      // lib/exceptions.py ChannelExistsError: 409, the name given as channel_name.
      expect(clash).toMatchObject({
        msg: `Channel '${taken.toLowerCase()}' already exists`,
        code: 'CHANNEL_ALREADY_EXISTS',
        status: 409,
        extra: { channel_name: taken.toLowerCase() },
      });
      expect(await flatFailure(owner.call(createChannel, { name: '  ', subscribers: [] }))).toEqual(bad("Channel name can't be empty."));
      expect(await flatFailure(owner.call(createChannel, { name: 'x'.repeat(61), subscribers: [] }))).toEqual(
        bad('Channel name too long (limit: 60 characters).'),
      );
      expect(await flatFailure(owner.call(createChannel, { name: unique('n'), subscribers: [999999] }))).toEqual(bad('No such user'));
      expect(await flatFailure(owner.call(createChannel, { name: unique('n'), subscribers: [], invite_only: true, is_default_stream: true }))).toEqual(
        bad('A default channel cannot be private.'),
      );
      const member = await as(org.addUser());
      expect(await flatFailure(member.call(createChannel, { name: unique('n'), subscribers: [], is_default_stream: true }))).toEqual(
        bad('Insufficient permission'),
      );
      expect(count()).toBe(before);
    });

    it('announces a new default channel, then the default channels, then its subscribers', async () => {
      const [a, watcher] = [org.addUser(), org.addUser()];
      const watch = await newEvents(await as(watcher), ['stream', 'default_streams', 'subscription']);
      const { id } = await owner.call(createChannel, { name: unique('welcome'), subscribers: [a.id], is_default_stream: true });
      const seen = await watch();
      expect(seen.map((e) => [e.type, e.op])).toEqual([
        ['stream', 'create'],
        ['default_streams', undefined],
        ['subscription', 'peer_add'],
      ]);
      expect(seen[1]!.default_streams).toContain(id);
      for (const e of seen) expect(stored(e)).toEqual([]);
    });
  });

  describe('PATCH /streams/{stream_id}', () => {
    it('renames and describes a channel, telling who may see it, the name event under the old name', async () => {
      const watcher = org.addUser();
      const { id } = await owner.call(createChannel, { name: unique('old'), subscribers: [] });
      const oldName = row(id).name;
      const watch = await newEvents(await as(watcher), ['stream']);
      const newName = unique('new');
      const res = await owner.call(updateStream, { stream_id: id, new_name: newName, description: '**bold**' });
      expect(openapiErrors('patch', '/streams/{stream_id}', 200, res)).toEqual([]);
      expect(row(id)).toMatchObject({ name: newName, description: '**bold**' });
      const seen = await watch();
      expect(seen).toEqual([
        expect.objectContaining({
          type: 'stream',
          op: 'update',
          stream_id: id,
          name: oldName,
          property: 'description',
          value: '**bold**',
          rendered_description: '<p><strong>bold</strong></p>',
        }),
        expect.objectContaining({ type: 'stream', op: 'update', stream_id: id, name: oldName, property: 'name', value: newName }),
      ]);
      for (const e of seen) expect(stored(e)).toEqual([]);
    });

    it('refuses the same name, another channel’s name and an over-long description, and changes nothing', async () => {
      const { id } = await owner.call(createChannel, { name: unique('keep'), subscribers: [] });
      const other = unique('Other');
      await owner.call(createChannel, { name: other, subscribers: [] });
      const before = row(id);
      expect(await flatFailure(owner.call(updateStream, { stream_id: id, new_name: before.name }))).toEqual(bad('Channel already has that name.'));
      const clash = await failure(owner.call(updateStream, { stream_id: id, description: 'changed', new_name: other.toUpperCase() }));
      expect(clash).toMatchObject({ msg: `Channel '${other.toUpperCase()}' already exists`, code: 'CHANNEL_ALREADY_EXISTS', status: 409 });
      expect(await flatFailure(owner.call(updateStream, { stream_id: id, description: 'd'.repeat(1025) }))).toEqual(
        bad('description is too long (limit: 1024 characters)'),
      );
      expect(row(id)).toEqual(before);
      await owner.call(updateStream, { stream_id: id, new_name: before.name.toUpperCase() });
      expect(row(id).name).toBe(before.name.toUpperCase());
    });

    it('changes privacy with Zulip’s rules, and protects history when made private', async () => {
      const { id } = await owner.call(createChannel, { name: unique('priv'), subscribers: [org.owner.id] });
      expect(await flatFailure(owner.call(updateStream, { stream_id: id, history_public_to_subscribers: false }))).toEqual(bad('Invalid parameters'));
      expect(await flatFailure(owner.call(updateStream, { stream_id: id, is_web_public: true }))).toEqual(bad('Web-public channels are not enabled.'));
      const [outsider, inside] = [org.addUser(), org.addUser()];
      await owner.call(subscribe, { subscriptions: [{ name: row(id).name }], principals: [inside.id] });
      const watch = await newEvents(await as(outsider), ['stream', 'subscription']);
      const insideWatch = await newEvents(await as(inside), ['stream']);
      await owner.call(updateStream, { stream_id: id, is_private: true });
      expect(row(id)).toMatchObject({ invite_only: 1, history_public_to_subscribers: 0 });
      // actions/streams.py do_change_stream_permission: one invite_only update, to those who may still see
      // the channel; those it now shuts out are told nothing.
      const update = { type: 'stream', op: 'update', stream_id: id, name: row(id).name, property: 'invite_only' };
      expect(await insideWatch()).toEqual([{ ...update, value: true, history_public_to_subscribers: false, is_web_public: false, id: expect.any(Number) }]);
      expect(await watch()).toEqual([]);
      expect(await flatFailure(owner.call(updateStream, { stream_id: id, is_default_stream: true }))).toEqual(bad('A default channel cannot be private.'));
      await owner.call(updateStream, { stream_id: id, is_private: false });
      expect(row(id)).toMatchObject({ invite_only: 0, history_public_to_subscribers: 1 });
      // Those who could not see it get the channel and its subscribers instead of the update.
      const gained = await watch();
      expect(gained.map((e) => [e.type, e.op])).toEqual([
        ['stream', 'create'],
        ['subscription', 'peer_add'],
      ]);
      expect(gained[1]).toMatchObject({ stream_ids: [id], user_ids: [org.owner.id, inside.id].sort((m, n) => m - n) });
      expect(await insideWatch()).toEqual([{ ...update, value: false, history_public_to_subscribers: true, is_web_public: false, id: expect.any(Number) }]);
      for (const e of gained) expect(stored(e)).toEqual([]);
    });

    it('puts a channel in a folder and takes it out', async () => {
      const { id } = await owner.call(createChannel, { name: unique('filed'), subscribers: [] });
      const { channel_folder_id } = await owner.call(createChannelFolder, { name: unique('folder'), description: '' });
      await owner.call(updateStream, { stream_id: id, folder_id: channel_folder_id });
      expect(row(id).folder_id).toBe(channel_folder_id);
      await owner.call(updateStream, { stream_id: id, folder_id: null });
      expect(row(id).folder_id).toBeNull();
      expect(await flatFailure(owner.call(updateStream, { stream_id: id, folder_id: 999999 }))).toEqual(bad('Invalid channel folder ID'));
    });

    it('lets a member administer the channel they created, and no other', async () => {
      const creator = await as(org.addUser());
      const { id } = await creator.call(createChannel, { name: unique('mine'), subscribers: [] });
      await creator.call(updateStream, { stream_id: id, description: 'mine' });
      const someone = await as(org.addUser());
      expect(await flatFailure(someone.call(updateStream, { stream_id: id, description: 'theirs' }))).toEqual(
        bad('You do not have permission to administer this channel.'),
      );
      // zerver/tests/test_default_channels.py test_add_and_remove_stream_as_default.
      expect(await flatFailure(creator.call(updateStream, { stream_id: id, is_default_stream: true }))).toEqual(
        bad('You do not have permission to change default channels.'),
      );
      const secret = await owner.call(createChannel, { name: unique('secret'), subscribers: [org.owner.id], invite_only: true });
      expect(await flatFailure(someone.call(updateStream, { stream_id: secret.id, description: 'x' }))).toEqual(bad('Invalid channel ID'));
    });
  });

  describe('archiving', () => {
    it('archives a channel: a delete for most clients, an is_archived update for those that declared archived_channels', async () => {
      const [plain, aware] = [org.addUser(), org.addUser()];
      const name = unique('old-news');
      const { id } = await owner.call(createChannel, { name, subscribers: [plain.id], is_default_stream: true });
      const plainEvents = await newEvents(await as(plain), ['stream', 'default_streams']);
      const awareEvents = await newEvents(await as(aware), ['stream'], { client_capabilities: { archived_channels: true } });
      const res = await owner.call(archiveStream, { stream_id: id });
      expect(openapiErrors('delete', '/streams/{stream_id}', 200, res)).toEqual([]);
      expect(row(id)).toMatchObject({ name, is_archived: 1 });
      const seen = await plainEvents();
      expect(seen.map((e) => [e.type, e.op])).toEqual([
        ['default_streams', undefined],
        ['stream', 'delete'],
      ]);
      expect(seen[0]!.default_streams).not.toContain(id);
      expect(seen[1]).toEqual({ type: 'stream', op: 'delete', streams: [{ stream_id: id }], stream_ids: [id], id: expect.any(Number) });
      for (const e of seen) expect(stored(e)).toEqual([]);
      expect(await awareEvents()).toEqual([
        { type: 'stream', op: 'update', stream_id: id, name, property: 'is_archived', value: true, id: expect.any(Number) },
      ]);
      expect((await owner.call(getStreams, {})).streams.map((s) => s.stream_id)).not.toContain(id);
      const all = await owner.call(getStreams, { exclude_archived: false, include_default: true });
      expect(all.streams.find((s) => s.stream_id === id)).toMatchObject({ is_archived: true, is_default: false });
      expect(await flatFailure(owner.call(archiveStream, { stream_id: id }))).toEqual(bad('Channel is already deactivated'));
    });

    it('unarchives through PATCH is_archived=false, telling everyone who may see it', async () => {
      const [watcher, aware] = [org.addUser(), org.addUser()];
      const name = unique('back');
      const { id } = await owner.call(createChannel, { name, subscribers: [] });
      expect(await flatFailure(owner.call(updateStream, { stream_id: id, is_archived: false }))).toEqual(bad('Channel is not currently deactivated'));
      await owner.call(archiveStream, { stream_id: id });
      const watch = await newEvents(await as(watcher), ['stream']);
      const awareWatch = await newEvents(await as(aware), ['stream'], { client_capabilities: { archived_channels: true } });
      await owner.call(updateStream, { stream_id: id, is_archived: false });
      expect(row(id).is_archived).toBe(0);
      // for_unarchiving only chooses who gets the create; no client sees it.
      const created = await watch();
      expect(created).toEqual([
        expect.objectContaining({ type: 'stream', op: 'create', streams: [expect.objectContaining({ stream_id: id, is_archived: false })] }),
      ]);
      expect(created[0]).not.toHaveProperty('for_unarchiving');
      expect(stored(created[0]!)).toEqual([]);
      expect(await awareWatch()).toEqual([
        { type: 'stream', op: 'update', stream_id: id, name, property: 'is_archived', value: false, id: expect.any(Number) },
      ]);
      const secret = await owner.call(createChannel, { name: unique('lonely'), subscribers: [org.owner.id], invite_only: true });
      await owner.call(archiveStream, { stream_id: secret.id });
      await owner.call(unsubscribe, { subscriptions: [row(secret.id).name] });
      expect(await flatFailure(owner.call(updateStream, { stream_id: secret.id, is_archived: false }))).toEqual(
        bad('Channel is private and have no subscribers'),
      );
    });
  });

  describe('members and counts', () => {
    it('lists a channel’s active subscribers and counts them in the channel object', async () => {
      const [a, b, gone] = [org.addUser(), org.addUser(), org.addUser()];
      const name = unique('counted');
      const { id } = await owner.call(createChannel, { name, subscribers: [a.id, b.id, gone.id] });
      org.db.prepare('UPDATE users SET is_active = 0 WHERE id = ?').run(gone.id);
      const res = await owner.call(getSubscribers, { stream_id: id });
      expect(openapiErrors('get', '/streams/{stream_id}/members', 200, res)).toEqual([]);
      expect(res.subscribers).toEqual([a.id, b.id]);
      const listed = await owner.call(getStreams, {});
      expect(openapiErrors('get', '/streams', 200, listed)).toEqual([]);
      expect(listed.streams.find((s) => s.stream_id === id)?.subscriber_count).toBe(2);
      expect(await flatFailure(owner.call(getSubscribers, { stream_id: 999999 }))).toEqual(bad('Invalid channel ID'));
    });
  });

  describe('peer events, batched as Zulip batches them', () => {
    it('tells peers of a user who joins several public channels alone in one peer_add, and of their leaving in one peer_remove', async () => {
      const [joiner, peer] = [org.addUser(), org.addUser()];
      const [x, y] = [unique('px'), unique('py')];
      const xId = (await owner.call(createChannel, { name: x, subscribers: [peer.id] })).id;
      const yId = (await owner.call(createChannel, { name: y, subscribers: [peer.id] })).id;
      const peers = await newEvents(await as(peer), ['subscription']);
      const own = await newEvents(await as(joiner), ['subscription']);
      await owner.call(subscribe, { subscriptions: [{ name: x }, { name: y }], principals: [joiner.id] });
      const added = await peers();
      expect(added).toEqual([
        { type: 'subscription', op: 'peer_add', stream_ids: [xId, yId].sort((m, n) => m - n), user_ids: [joiner.id], id: expect.any(Number) },
      ]);
      expect(stored(added[0]!)).toEqual([]);
      await own();
      await owner.call(unsubscribe, { subscriptions: [x, y], principals: [joiner.id] });
      expect(await peers()).toEqual([
        { type: 'subscription', op: 'peer_remove', stream_ids: [xId, yId].sort((m, n) => m - n), user_ids: [joiner.id], id: expect.any(Number) },
      ]);
      expect(await own()).toEqual([
        expect.objectContaining({
          type: 'subscription',
          op: 'remove',
          subscriptions: [
            { stream_id: xId, name: x },
            { stream_id: yId, name: y },
          ],
        }),
      ]);
    });

    it('tells users who joined the same public channels together in one peer_add, a channel with a guest apart', async () => {
      const [a, b, peer, guest] = [org.addUser(), org.addUser(), org.addUser(), org.addUser({ role: 600 })];
      const [x, y, z] = [unique('bx'), unique('by'), unique('bz')];
      const ids = await Promise.all([x, y].map(async (n) => (await owner.call(createChannel, { name: n, subscribers: [peer.id] })).id));
      const zId = (await owner.call(createChannel, { name: z, subscribers: [peer.id, guest.id] })).id;
      const peers = await newEvents(await as(peer), ['subscription']);
      const guestPeers = await newEvents(await as(guest), ['subscription']);
      await owner.call(subscribe, { subscriptions: [{ name: x }, { name: y }, { name: z }], principals: [a.id, b.id] });
      const both = [a.id, b.id].sort((m, n) => m - n);
      expect(await peers()).toEqual([
        { type: 'subscription', op: 'peer_add', stream_ids: [zId], user_ids: both, id: expect.any(Number) },
        { type: 'subscription', op: 'peer_add', stream_ids: ids.sort((m, n) => m - n), user_ids: both, id: expect.any(Number) },
      ]);
      // A guest hears of the channel it is in only.
      expect(await guestPeers()).toEqual([{ type: 'subscription', op: 'peer_add', stream_ids: [zId], user_ids: both, id: expect.any(Number) }]);
    });

    it('leaves a private channel its last subscriber leaves as it is, and tells that user it is gone', async () => {
      const member = org.addUser();
      const name = unique('last');
      const { id } = await owner.call(createChannel, { name, subscribers: [member.id], invite_only: true });
      const own = await newEvents(await as(member), ['subscription', 'stream']);
      await (await as(member)).call(unsubscribe, { subscriptions: [name] });
      // Private channels left empty are no longer archived (zulip/zulip#33696).
      expect(row(id).is_archived).toBe(0);
      const seen = await own();
      expect(seen).toEqual([
        { type: 'subscription', op: 'remove', subscriptions: [{ name, stream_id: id }], id: expect.any(Number) },
        { type: 'stream', op: 'delete', streams: [{ stream_id: id }], stream_ids: [id], id: expect.any(Number) },
      ]);
      for (const e of seen) expect(stored(e)).toEqual([]);
    });

    it('tells a guest who leaves public channels that they are gone, in one delete', async () => {
      const guest = org.addUser({ role: 600 });
      const names = [unique('gx'), unique('gy')];
      const ids = await Promise.all(names.map(async (n) => (await owner.call(createChannel, { name: n, subscribers: [guest.id] })).id));
      const own = await newEvents(await as(guest), ['stream']);
      await owner.call(unsubscribe, { subscriptions: names, principals: [guest.id] });
      expect(await own()).toEqual([{ type: 'stream', op: 'delete', streams: ids.map((i) => ({ stream_id: i })), stream_ids: ids, id: expect.any(Number) }]);
    });
  });

  describe('default channels', () => {
    it("refuses a private channel with Zulip's words, and it stays out of the defaults", async () => {
      const { id } = await owner.call(createChannel, { name: unique('secret'), subscribers: [org.owner.id], invite_only: true });
      expect(await flatFailure(owner.call(addDefaultStream, { stream_id: id }))).toEqual(bad('Private channels cannot be made default.'));
      const all = await owner.call(getStreams, { include_default: true, include_all: true });
      expect(all.streams.find((s) => s.stream_id === id)?.is_default).toBe(false);
    });

    it('sends the IDs of the default channels on every change but adding one again, and lists them at registration', async () => {
      const [member, guest] = [org.addUser(), org.addUser({ role: 600 })];
      const { id } = await owner.call(createChannel, { name: unique('dflt'), subscribers: [] });
      const watch = await newEvents(await as(member), ['default_streams']);
      await owner.call(addDefaultStream, { stream_id: id });
      await owner.call(addDefaultStream, { stream_id: id });
      const state = await (await as(member)).call(register, { fetch_event_types: ['default_streams'] });
      expect(state.realm_default_streams).toContain(id);
      expect((await (await as(guest)).call(register, { fetch_event_types: ['default_streams'] })).realm_default_streams).toEqual([]);
      await owner.call(removeDefaultStream, { stream_id: id });
      await owner.call(removeDefaultStream, { stream_id: id });
      const seen = await watch();
      // actions/default_streams.py: do_add_default_stream sends nothing for a default channel,
      // do_remove_default_stream always sends the list.
      expect(seen.map((e) => (e.default_streams as number[]).includes(id))).toEqual([true, false, false]);
      for (const e of seen) expect(stored(e)).toEqual([]);
      const member2 = await as(org.addUser());
      expect(await flatFailure(member2.call(addDefaultStream, { stream_id: id }))).toEqual({
        msg: 'Must be an organization administrator',
        code: 'UNAUTHORIZED_PRINCIPAL',
        status: 400,
      });
    });
  });
});
