import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSubscriptions } from '../../src/api/operations/channels.js';
import { getUserGroupMembers, getUserGroups } from '../../src/api/operations/groups.js';
import { getMessages } from '../../src/api/operations/messages.js';
import { getUsers } from '../../src/api/operations/users.js';
import type { ChatClient } from '../../src/client/client.js';
import { seedGroupLike, seedMessages, seedSubscriptions, seedUsers } from '../../src/server/model/bulk-seed.js';
import { insertChannel } from '../../src/server/model/channels.js';
import { createGroup } from '../../src/server/model/group-changes.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor } from '../helpers/transports.js';

// The scale benchmark builds its organizations through these inserts: what they write must read back through
// the API as what the API itself would have written.
describe('bulk seeding', () => {
  let org: TestOrg;
  let ids: number[];
  let channelId: number;
  let groupId: number;
  let lastMessage: number;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    const now = org.clock.now();
    org.db.transaction(() => {
      ids = seedUsers(
        org.db,
        [1, 2, 3].map((i) => ({ email: `seeded${i}@example.com`, full_name: `Seeded ${i}`, role: i === 3 ? 600 : 400 })),
        now,
      );
      channelId = insertChannel(
        org.db,
        { name: 'seeded', description: '', invite_only: false, is_web_public: false, folder_id: null, is_default: false, creator_id: org.owner.id },
        now,
      ).id;
      seedSubscriptions(org.db, channelId, [org.owner.id, ...ids]);
      seedSubscriptions(org.db, channelId, [ids[0]!]);
      const template = createGroup(org.db, { emit() {} }, org.owner.row, { name: 'template', description: 'A seeded group', members: [ids[0]!] }, now);
      groupId = seedGroupLike(org.db, template, 'copy', [ids[1]!, ids[2]!]);
      lastMessage = seedMessages(
        org.db,
        [0, 1, 2].map((i) => ({
          senderId: ids[i]!,
          channelId,
          topic: `topic ${i % 2}`,
          text: `Seeded message ${i}`,
          dateSent: now + i,
          recipientIds: [org.owner.id, ids[0]!],
        })),
      );
    })();
    owner = await clientFor(org, 'embedded');
  });
  afterAll(() => org.close());

  it('lists the seeded users with their roles, active, and able to sign in by API key', async () => {
    const { members } = await owner.call(getUsers, {});
    const seeded = members.filter((m) => ids.includes(m.user_id));
    expect(seeded.map((m) => [m.email, m.full_name, m.role, m.is_active])).toEqual([
      ['seeded1@example.com', 'Seeded 1', 400, true],
      ['seeded2@example.com', 'Seeded 2', 400, true],
      ['seeded3@example.com', 'Seeded 3', 600, true],
    ]);
    const row = org.db.prepare('SELECT email, api_key FROM users WHERE id = ?').get(ids[0]) as { email: string; api_key: string };
    const seededClient = await clientFor(org, 'embedded', { email: row.email, apiKey: row.api_key });
    expect((await seededClient.call(getUsers, {})).members.length).toBe(members.length);
  });

  it('subscribes each user once, with the subscriber list the API reports', async () => {
    const { subscriptions } = await owner.call(getSubscriptions, { include_subscribers: true });
    const seeded = subscriptions.find((s) => s.stream_id === channelId);
    expect(seeded?.name).toBe('seeded');
    expect(seeded?.subscribers).toEqual([org.owner.id, ...ids].sort((a, b) => a - b));
  });

  it('copies a group with its settings under a new name and its own members', async () => {
    const { user_groups } = await owner.call(getUserGroups, {});
    const [template, copy] = ['template', 'copy'].map((name) => user_groups.find((g) => g.name === name));
    expect(copy?.id).toBe(groupId);
    const { name: _t, id: _ti, members: _tm, ...templateRest } = template!;
    const { name: _c, id: _ci, members: _cm, ...copyRest } = copy!;
    expect(copyRest).toEqual(templateRest);
    expect((await owner.call(getUserGroupMembers, { user_group_id: groupId })).members).toEqual([ids[1], ids[2]]);
  });

  it('stores channel messages that read back in order, read by their sender and unread by the others given a copy', async () => {
    const narrow = [{ operator: 'channel', operand: 'seeded' }];
    const { messages } = await owner.call(getMessages, { anchor: 'oldest', num_after: 10, narrow });
    expect(messages.map((m) => [m.id, m.sender_id, m.subject, m.content, m.flags])).toEqual([
      [lastMessage - 2, ids[0], 'topic 0', '<p>Seeded message 0</p>', []],
      [lastMessage - 1, ids[1], 'topic 1', '<p>Seeded message 1</p>', []],
      [lastMessage, ids[2], 'topic 0', '<p>Seeded message 2</p>', []],
    ]);
    const row = org.db.prepare('SELECT email, api_key FROM users WHERE id = ?').get(ids[0]) as { email: string; api_key: string };
    const first = await clientFor(org, 'embedded', { email: row.email, apiKey: row.api_key });
    const own = await first.call(getMessages, { anchor: 'oldest', num_after: 10, narrow });
    expect(own.messages.map((m) => m.flags)).toEqual([['read'], [], []]);
  });
});
