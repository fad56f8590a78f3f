import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/api/operations/channels.js';
import { getEvents, register, type QueueEvent } from '../../src/api/operations/events.js';
import { sendMessage, updateMessage } from '../../src/api/operations/messages.js';
import { addReaction } from '../../src/api/operations/reactions.js';
import type { ChatClient } from '../../src/client/client.js';
import { failure } from '../helpers/api.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

/** Message events of a queue as [content, flags], and the types of the others, in order. */
interface Seen {
  messages: [content: string, flags: string[]][];
  others: string[];
}

/**
 * Queues registered with a narrow or with `all_public_streams` (zerver/tornado/event_queue.py,
 * zerver/lib/narrow_predicate.py): which message events they take, and what other events still reach them.
 */
describe.each(TRANSPORTS)('narrowed event queues over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  let n = 0;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  /** A channel of its own for each test (names differ by case from the narrows that name them). */
  async function channel(members: TestUser[], inviteOnly = false): Promise<string> {
    const name = `Denmark ${++n}`;
    await owner.call(subscribe, { subscriptions: [{ name }], principals: members.map((m) => m.id), invite_only: inviteOnly });
    return name;
  }
  async function seen(client: ChatClient, queueId: string): Promise<Seen> {
    const res = await client.call(getEvents, { queue_id: queueId, last_event_id: -1, dont_block: true });
    expect(openapiErrors('get', '/events', 200, res)).toEqual([]);
    const messages = res.events.filter((e: QueueEvent) => e.type === 'message');
    return {
      messages: messages.map((e) => [(e.message as { content: string }).content, e.flags as string[]]),
      others: res.events.filter((e) => e.type !== 'message').map((e) => e.type),
    };
  }

  it('a queue narrowed to a channel takes only that channel’s messages, not direct messages', async () => {
    const user = org.addUser();
    const client = await as(user);
    const denmark = await channel([user]);
    const other = await channel([user]);
    const { queue_id } = await client.call(register, { narrow: [['channel', denmark.toUpperCase()]], apply_markdown: false });
    await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([user.id]), content: 'a direct message' });
    await owner.call(sendMessage, { type: 'stream', to: other, topic: 't', content: 'elsewhere' });
    await owner.call(sendMessage, { type: 'stream', to: denmark, topic: 't', content: 'in Denmark' });
    expect((await seen(client, queue_id!)).messages).toEqual([['in Denmark', []]]);
  });

  it('every other event still reaches a narrowed queue: edits and reactions of messages outside the narrow', async () => {
    const user = org.addUser();
    const client = await as(user);
    const denmark = await channel([user]);
    const { queue_id } = await client.call(register, { narrow: [['channel', denmark]] });
    const { id } = await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([user.id]), content: 'a direct message' });
    await owner.call(addReaction, { message_id: id, emoji_name: 'octopus' });
    await owner.call(updateMessage, { message_id: id, content: 'edited' });
    expect(await seen(client, queue_id!)).toEqual({ messages: [], others: ['reaction', 'update_message'] });
  });

  it('narrows by topic, sender, direct messages, mentions and resolved topics, with the queue’s own flags', async () => {
    const user = org.addUser();
    const client = await as(user);
    const denmark = await channel([user]);
    const queue = async (narrow: [string, string][]) => (await client.call(register, { narrow, apply_markdown: false })).queue_id!;
    const byTopic = await queue([['topic', 'LUNCH']]);
    const bySender = await queue([['sender', org.owner.email.toUpperCase()]]);
    const direct = await queue([['is', 'dm']]);
    const mentioned = await queue([
      ['channel', denmark],
      ['is', 'mentioned'],
    ]);
    const resolved = await queue([['is', 'resolved']]);
    const other = org.addUser();
    const otherClient = await as(other);
    await owner.call(subscribe, { subscriptions: [{ name: denmark }], principals: [other.id] });
    await owner.call(sendMessage, { type: 'stream', to: denmark, topic: 'lunch', content: 'soup' });
    await otherClient.call(sendMessage, { type: 'stream', to: denmark, topic: 'dinner', content: `@**${user.row.full_name}** pasta` });
    await otherClient.call(sendMessage, { type: 'direct', to: JSON.stringify([user.id]), content: 'psst' });
    await owner.call(sendMessage, { type: 'stream', to: denmark, topic: '✔ done', content: 'closed' });
    expect((await seen(client, byTopic)).messages).toEqual([['soup', []]]);
    expect((await seen(client, bySender)).messages.map(([c]) => c)).toEqual(['soup', 'closed']);
    expect((await seen(client, direct)).messages).toEqual([['psst', []]]);
    expect((await seen(client, mentioned)).messages).toEqual([[`@**${user.row.full_name}** pasta`, ['mentioned']]]);
    expect((await seen(client, resolved)).messages).toEqual([['closed', []]]);
  });

  it('a narrowed queue also takes matching messages of public channels its user is not subscribed to, without flags', async () => {
    const user = org.addUser();
    const client = await as(user);
    const open = await channel([]);
    const closed = await channel([], true);
    const { queue_id } = await client.call(register, { narrow: [['is', 'unread']], apply_markdown: false });
    const plain = (await client.call(register, {})).queue_id!;
    await owner.call(sendMessage, { type: 'stream', to: open, topic: 't', content: 'public news' });
    await owner.call(sendMessage, { type: 'stream', to: closed, topic: 't', content: 'secret' });
    expect((await seen(client, queue_id!)).messages).toEqual([['public news', []]]);
    // A queue without a narrow takes the user's own messages only.
    expect((await seen(client, plain)).messages).toEqual([]);
  });

  it('an all_public_streams queue takes every public channel’s messages; its user’s own copies keep their flags', async () => {
    const user = org.addUser();
    const client = await as(user);
    const open = await channel([]);
    const mine = await channel([user]);
    const closed = await channel([], true);
    const { queue_id } = await client.call(register, { all_public_streams: true, apply_markdown: false });
    await owner.call(sendMessage, { type: 'stream', to: open, topic: 't', content: 'public news' });
    await owner.call(sendMessage, { type: 'stream', to: mine, topic: 't', content: `@**${user.row.full_name}** hi` });
    await owner.call(sendMessage, { type: 'stream', to: closed, topic: 't', content: 'secret' });
    expect((await seen(client, queue_id!)).messages).toEqual([
      ['public news', []],
      [`@**${user.row.full_name}** hi`, ['mentioned']],
    ]);
  });

  it('a guest’s narrowed queue takes only messages the guest receives', async () => {
    const guest = org.addUser({ role: 600 });
    const client = await as(guest);
    const open = await channel([]);
    const theirs = await channel([guest]);
    const { queue_id } = await client.call(register, { narrow: [['is', 'unread']], apply_markdown: false });
    await owner.call(sendMessage, { type: 'stream', to: open, topic: 't', content: 'not for guests' });
    await owner.call(sendMessage, { type: 'stream', to: theirs, topic: 't', content: 'for the guest' });
    expect((await seen(client, queue_id!)).messages).toEqual([['for the guest', []]]);
  });

  it('refuses narrows a queue cannot filter by, before making a queue', async () => {
    const before = org.db.prepare('SELECT count(*) FROM event_queues').pluck().get();
    expect(await failure(owner.call(register, { narrow: [['search', 'lunch']] }))).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Operator search not supported.',
    });
    expect((await failure(owner.call(register, { narrow: [['is', 'followed']] }))).msg).toBe('Operand followed not supported.');
    expect(
      (
        await failure(
          owner.call(register, {
            narrow: [
              ['channel', 'general'],
              ['dm', '1'],
            ],
          }),
        )
      ).msg,
    ).toBe('Operator dm not supported.');
    // Only the legacy [operator, operand] pairs: a Zulip server takes no {operator, operand} objects here.
    expect((await failure(owner.call(register, { narrow: [{ operator: 'channel', operand: 'general' }] }))).msg).toBe('narrow[0] is not a list');
    expect(org.db.prepare('SELECT count(*) FROM event_queues').pluck().get()).toBe(before);
  });
});
