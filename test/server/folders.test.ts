import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/api/operations/channels.js';
import { getEvents, register } from '../../src/api/operations/events.js';
import { createChannelFolder, getChannelFolders, reorderChannelFolders, updateChannelFolder } from '../../src/api/operations/folders.js';
import type { ChatClient } from '../../src/client/client.js';
import { failure } from '../helpers/api.js';
import { unique } from '../helpers/names.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

// Channel folders are newer than the OpenAPI description (feature level 389), so bodies are checked field by field.
describe.each(TRANSPORTS)('channel folders over %s', (kind) => {
  let org: TestOrg;
  let admin: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    admin = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const create = async (name = unique('folder'), description = '') => (await admin.call(createChannelFolder, { name, description })).channel_folder_id;

  it('creates a folder with a rendered description, listed in order for every user', async () => {
    const name = unique('Frontend');
    const res = await admin.call(createChannelFolder, { name, description: 'Channels for <b>frontend</b>' });
    expect(Object.keys(res).sort()).toEqual(['channel_folder_id', 'msg', 'result']);
    const member = await clientFor(org, kind, org.addUser());
    const { channel_folders } = await member.call(getChannelFolders, {});
    expect(channel_folders.find((f) => f.id === res.channel_folder_id)).toEqual({
      id: res.channel_folder_id,
      name,
      description: 'Channels for <b>frontend</b>',
      rendered_description: '<p>Channels for &lt;b&gt;frontend&lt;/b&gt;</p>',
      order: res.channel_folder_id,
      date_created: org.clock.now(),
      creator_id: org.owner.id,
      is_archived: false,
    });
  });

  it('checks names: blank, unprintable, duplicates without case, lengths', async () => {
    const name = unique('Backend');
    await create(name);
    expect((await failure(admin.call(createChannelFolder, { name: name.toUpperCase(), description: '' }))).msg).toBe('Channel folder name already in use');
    expect((await failure(admin.call(createChannelFolder, { name: '  ', description: '' }))).msg).toBe("Channel folder name can't be empty.");
    expect((await failure(admin.call(createChannelFolder, { name: 'a\u0000b', description: '' }))).msg).toBe(
      'Invalid character in channel folder name, at position 2.',
    );
    expect((await failure(admin.call(createChannelFolder, { name: 'n'.repeat(61), description: '' }))).msg).toBe('name is too long (limit: 60 characters)');
    expect((await failure(admin.call(createChannelFolder, { name: unique('ok'), description: 'd'.repeat(1025) }))).msg).toBe(
      'description is too long (limit: 1024 characters)',
    );
    const missing = await rawRequest(org, kind, { method: 'POST', path: '/channel_folders/create', body: [['name', unique('x')]] });
    expect(missing.body).toMatchObject({ msg: "Missing 'description' argument", code: 'REQUEST_VARIABLE_MISSING' });
  });

  describe('PATCH /channel_folders/{id}', () => {
    it('renames, describes, archives and unarchives, each with a channel_folder update event', async () => {
      const id = await create();
      const { queue_id } = await admin.call(register, { event_types: ['channel_folder'], fetch_event_types: [] });
      const renamed = unique('Renamed');
      const res = await admin.call(updateChannelFolder, { channel_folder_id: id, name: renamed, description: 'New **text**' });
      expect(res).toEqual({ result: 'success', msg: '' });
      await admin.call(updateChannelFolder, { channel_folder_id: id, is_archived: true });
      expect((await admin.call(getChannelFolders, {})).channel_folders.map((f) => f.id)).not.toContain(id);
      const archived = (await admin.call(getChannelFolders, { include_archived: true })).channel_folders.find((f) => f.id === id);
      expect(archived).toMatchObject({ name: renamed, description: 'New **text**', is_archived: true });
      await admin.call(updateChannelFolder, { channel_folder_id: id, is_archived: false });
      const { events } = await admin.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true });
      expect(events.map((e) => e.data)).toEqual([
        { name: renamed },
        { description: 'New **text**', rendered_description: '<p>New <strong>text</strong></p>' },
        { is_archived: true },
        { is_archived: false },
      ]);
      expect(events[0]).toMatchObject({ type: 'channel_folder', op: 'update', channel_folder_id: id });
    });

    it('changes nothing and sends nothing for unchanged values', async () => {
      const name = unique('Same');
      const id = await create(name);
      const { queue_id } = await admin.call(register, { event_types: ['channel_folder'], fetch_event_types: [] });
      await admin.call(updateChannelFolder, { channel_folder_id: id, name, description: '', is_archived: false });
      expect((await admin.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true })).events).toEqual([]);
    });

    it('refuses an unknown folder, a taken name and archiving while channels are in it', async () => {
      expect(await failure(admin.call(updateChannelFolder, { channel_folder_id: 99999, name: 'x' }))).toMatchObject({
        msg: 'Invalid channel folder ID',
        code: 'BAD_REQUEST',
      });
      const taken = unique('Taken');
      await create(taken);
      const id = await create();
      expect((await failure(admin.call(updateChannelFolder, { channel_folder_id: id, name: taken.toLowerCase() }))).msg).toBe(
        'Channel folder name already in use',
      );
      expect((await failure(admin.call(updateChannelFolder, { channel_folder_id: id, name: ' ' }))).msg).toBe("Channel folder name can't be empty.");
      await admin.call(subscribe, { subscriptions: [{ name: unique('inside') }], folder_id: id });
      expect((await failure(admin.call(updateChannelFolder, { channel_folder_id: id, is_archived: true }))).msg).toBe(
        'You need to remove all the channels from this folder to archive it.',
      );
    });

    it('is for administrators only', async () => {
      const id = await create();
      const moderator = await clientFor(org, kind, org.addUser({ role: 300 }));
      expect(await failure(moderator.call(updateChannelFolder, { channel_folder_id: id, name: 'x' }))).toMatchObject({
        msg: 'Must be an organization administrator',
        code: 'UNAUTHORIZED_PRINCIPAL',
      });
    });
  });

  describe('PATCH /channel_folders (reorder)', () => {
    it('orders folders as listed and sends a reorder event', async () => {
      const fresh = createTestOrg();
      try {
        const owner = await clientFor(fresh, kind);
        const ids = [];
        for (const name of ['a', 'b', 'c']) ids.push((await owner.call(createChannelFolder, { name, description: '' })).channel_folder_id);
        const { queue_id } = await owner.call(register, { event_types: ['channel_folder'], fetch_event_types: [] });
        const order = [ids[2]!, ids[0]!, ids[1]!];
        await owner.call(reorderChannelFolders, { order });
        expect((await owner.call(getChannelFolders, {})).channel_folders.map((f) => [f.id, f.order])).toEqual([
          [ids[2], 0],
          [ids[0], 1],
          [ids[1], 2],
        ]);
        const { events } = await owner.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true });
        expect(events).toEqual([{ type: 'channel_folder', op: 'reorder', order, id: 0 }]);
        expect((await failure(owner.call(reorderChannelFolders, { order: [ids[0]!, ids[1]!] }))).msg).toBe('Invalid order mapping.');
      } finally {
        await fresh.close();
      }
    });
  });

  it('sends add events to everyone', async () => {
    const member = await clientFor(org, kind, org.addUser({ role: 600 }));
    const { queue_id } = await member.call(register, { event_types: ['channel_folder'], fetch_event_types: [] });
    const id = await create();
    const { events } = await member.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true });
    expect(events).toEqual([{ type: 'channel_folder', op: 'add', channel_folder: expect.objectContaining({ id, is_archived: false }), id: 0 }]);
  });
});
