import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getChannelTopics } from '../../src/api/operations/channels.js';
import { sendMessage } from '../../src/api/operations/messages.js';
import { failure } from '../helpers/api.js';
import { newStream } from '../helpers/channels.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

// GET /users/me/{stream_id}/topics: zerver/views/streams.py get_topics_backend, zerver/lib/topic.py
// get_topic_history_for_stream.
describe.each(TRANSPORTS)('channel topics over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const post = async (user: TestUser, channel: number, topic: string) =>
    (await (await as(user)).call(sendMessage, { type: 'stream', to: String(channel), topic, content: 'hello' })).id;
  const subscribeInStore = (user: TestUser, channel: number) =>
    org.db.prepare('INSERT INTO subscriptions (user_id, stream_id) VALUES (?, ?)').run(user.id, channel);

  it('lists each topic once, named as its newest message names it, with that message ID, newest first', async () => {
    const channel = newStream(org, unique('topics'), { subscribers: [org.owner] });
    await post(org.owner, channel, 'Lunch');
    const other = await post(org.owner, channel, 'plans');
    const newest = await post(org.owner, channel, 'lunch');
    // A direct message is no topic of any channel.
    await (await as(org.owner)).call(sendMessage, { type: 'direct', to: JSON.stringify([org.owner.id]), content: 'note' });
    const reader = org.addUser();
    const res = await (await as(reader)).call(getChannelTopics, { stream_id: channel });
    expect(openapiErrors('get', '/users/me/{stream_id}/topics', 200, res)).toEqual([]);
    expect(res.topics).toEqual([
      { name: 'lunch', max_id: newest },
      { name: 'plans', max_id: other },
    ]);
  });

  it('names the empty topic by its display name unless allow_empty_topic_name', async () => {
    const channel = newStream(org, unique('empty'), { subscribers: [org.owner] });
    const id = await post(org.owner, channel, '');
    const owner = await as(org.owner);
    expect((await owner.call(getChannelTopics, { stream_id: channel })).topics).toEqual([{ name: 'general chat', max_id: id }]);
    expect((await owner.call(getChannelTopics, { stream_id: channel, allow_empty_topic_name: true })).topics).toEqual([{ name: '', max_id: id }]);
  });

  it('shows a private channel with protected history only as far as the caller received it', async () => {
    const early = org.addUser();
    const late = org.addUser();
    const channel = newStream(org, unique('protected'), { inviteOnly: true, subscribers: [org.owner, early] });
    org.db.prepare('UPDATE streams SET history_public_to_subscribers = 0 WHERE id = ?').run(channel);
    const before = await post(org.owner, channel, 'before');
    subscribeInStore(late, channel);
    const after = await post(org.owner, channel, 'after');
    expect((await (await as(early)).call(getChannelTopics, { stream_id: channel })).topics).toEqual([
      { name: 'after', max_id: after },
      { name: 'before', max_id: before },
    ]);
    expect((await (await as(late)).call(getChannelTopics, { stream_id: channel })).topics).toEqual([{ name: 'after', max_id: after }]);
    // An administrator who is not subscribed has no content access to a private channel.
    const admin = org.addUser({ role: 200 });
    expect((await failure((await as(admin)).call(getChannelTopics, { stream_id: channel }))).msg).toBe('Invalid channel ID');
  });

  it('shows a private channel with shared history whole to a late subscriber', async () => {
    const late = org.addUser();
    const channel = newStream(org, unique('shared'), { inviteOnly: true, subscribers: [org.owner] });
    const before = await post(org.owner, channel, 'before');
    subscribeInStore(late, channel);
    expect((await (await as(late)).call(getChannelTopics, { stream_id: channel })).topics).toEqual([{ name: 'before', max_id: before }]);
  });

  it('refuses what the caller may not read: unknown, archived, private channels and, for guests, unsubscribed public ones', async () => {
    const publicChannel = newStream(org, unique('public'), { subscribers: [org.owner] });
    await post(org.owner, publicChannel, 'news');
    const guest = org.addUser({ role: 600 });
    const member = org.addUser();
    const refused = async (user: TestUser, id: number) => (await failure((await as(user)).call(getChannelTopics, { stream_id: id }))).msg;
    expect(await refused(guest, publicChannel)).toBe('Invalid channel ID');
    subscribeInStore(guest, publicChannel);
    expect((await (await as(guest)).call(getChannelTopics, { stream_id: publicChannel })).topics.map((t) => t.name)).toEqual(['news']);
    expect(await refused(member, 987654)).toBe('Invalid channel ID');
    expect(await refused(member, newStream(org, unique('secret'), { inviteOnly: true, subscribers: [org.owner] }))).toBe('Invalid channel ID');
    expect(await refused(member, newStream(org, unique('archived'), { archived: true, subscribers: [member] }))).toBe('Invalid channel ID');
  });
});
