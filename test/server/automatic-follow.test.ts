/**
 * Topics followed or unmuted automatically when one sends or is mentioned, with a new Zulip user's
 * settings: follow the topics one starts, unmute those one sends to in a muted channel, follow where mentioned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateUserTopic } from '../../src/api/operations/channels.js';
import { sendMessage } from '../../src/api/operations/messages.js';
import type { ChatClient } from '../../src/client/client.js';
import { ownerChannel } from '../helpers/channels.js';
import { listen } from '../helpers/events.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

const FOLLOWED = 3;
const UNMUTED = 2;
const MUTED = 1;

describe.each(TRANSPORTS)('automatic follow over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const policyOf = (user: TestUser, channelId: number, topic: string) =>
    org.db.prepare('SELECT visibility_policy FROM user_topics WHERE user_id = ? AND stream_id = ? AND topic = ?').pluck().get(user.id, channelId, topic);
  const muteChannel = (user: TestUser, channelId: number) =>
    org.db.prepare('UPDATE subscriptions SET is_muted = 1 WHERE user_id = ? AND stream_id = ?').run(user.id, channelId);

  it('follows the topic one starts: answered with policy 3, recorded, announced before the message', async () => {
    const c = await ownerChannel(org, owner, []);
    const events = await listen(owner, ['user_topic', 'message']);
    const first = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'launch', content: 'first' });
    expect(first.automatic_new_visibility_policy).toBe(FOLLOWED);
    expect(openapiErrors('post', '/messages', 200, first)).toEqual([]);
    expect(policyOf(org.owner, c.id, 'launch')).toBe(FOLLOWED);
    const second = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'LAUNCH', content: 'second' });
    expect(second).not.toHaveProperty('automatic_new_visibility_policy');
    const got = await events();
    expect(got.map((e) => e.type)).toEqual(['user_topic', 'message', 'message']);
    expect(got[0]).toEqual({
      type: 'user_topic',
      id: got[0]!.id,
      stream_id: c.id,
      topic_name: 'launch',
      last_updated: org.clock.now(),
      visibility_policy: FOLLOWED,
    });
    expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: got })).toEqual([]);
  });

  it('does not follow a topic someone else started, nor for bots or direct messages', async () => {
    const member = org.addUser();
    const bot = org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
    const c = await ownerChannel(org, owner, [member, bot]);
    await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'owned', content: 'first' });
    const reply = await (await as(member)).call(sendMessage, { type: 'stream', to: c.name, topic: 'owned', content: 'reply' });
    expect(reply).not.toHaveProperty('automatic_new_visibility_policy');
    expect(policyOf(member, c.id, 'owned')).toBeUndefined();
    const byBot = await (await as(bot)).call(sendMessage, { type: 'stream', to: c.name, topic: 'bot topic', content: 'beep' });
    expect(byBot).not.toHaveProperty('automatic_new_visibility_policy');
    expect(policyOf(bot, c.id, 'bot topic')).toBeUndefined();
    const dm = await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([member.id]), content: 'psst' });
    expect(dm).not.toHaveProperty('automatic_new_visibility_policy');
  });

  it('unmutes the topics one sends to in a muted channel, and follows those one starts there', async () => {
    const member = org.addUser();
    const c = await ownerChannel(org, owner, [member]);
    await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'busy', content: 'first' });
    muteChannel(member, c.id);
    const client = await as(member);
    expect((await client.call(sendMessage, { type: 'stream', to: c.name, topic: 'busy', content: 'reply' })).automatic_new_visibility_policy).toBe(UNMUTED);
    expect(policyOf(member, c.id, 'busy')).toBe(UNMUTED);
    expect(await client.call(sendMessage, { type: 'stream', to: c.name, topic: 'busy', content: 'again' })).not.toHaveProperty(
      'automatic_new_visibility_policy',
    );
    expect((await client.call(sendMessage, { type: 'stream', to: c.name, topic: 'new', content: 'mine' })).automatic_new_visibility_policy).toBe(FOLLOWED);
  });

  it('makes the recipients one mentions by name follow the topic, unless they muted it', async () => {
    const name = (prefix: string) => unique(prefix, '-');
    const mentioned = org.addUser({ name: name('Mia Mentioned') });
    const muter = org.addUser({ name: name('Max Muter') });
    const silent = org.addUser({ name: name('Sid Silent') });
    const outsider = org.addUser({ name: name('Otto Outsider') });
    const c = await ownerChannel(org, owner, [mentioned, muter, silent]);
    await (await as(muter)).call(updateUserTopic, { stream_id: c.id, topic: 'review', visibility_policy: MUTED });
    const events = await listen(await as(mentioned), ['user_topic']);
    const named = [mentioned, muter, outsider].map((u) => `@**${u.row.full_name}**`);
    const content = [...named, `@_**${silent.row.full_name}**`].join(' ');
    await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'review', content });
    expect(policyOf(mentioned, c.id, 'review')).toBe(FOLLOWED);
    expect(policyOf(muter, c.id, 'review')).toBe(MUTED);
    expect(policyOf(silent, c.id, 'review')).toBeUndefined();
    expect(policyOf(outsider, c.id, 'review')).toBeUndefined();
    expect((await events()).map((e) => [e.type, e.topic_name, e.visibility_policy])).toEqual([['user_topic', 'review', FOLLOWED]]);
  });
});
