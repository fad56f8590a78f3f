import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { muteTopic, updateUserTopic } from '../../src/api/operations/channels.js';
import { getEvents, register } from '../../src/api/operations/events.js';
import type { ChatClient } from '../../src/client/client.js';
import { failure } from '../helpers/api.js';
import { createChannel } from '../helpers/channels.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('topic preferences over %s', (kind) => {
  let org: TestOrg;
  let general: number;
  beforeAll(() => {
    org = createTestOrg();
    general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
  });
  afterAll(() => org.close());

  const policies = (user: TestUser) =>
    org.db.prepare('SELECT stream_id, topic, visibility_policy FROM user_topics WHERE user_id = ? ORDER BY topic').all(user.id);

  async function member(): Promise<{ user: TestUser; client: ChatClient }> {
    const user = org.addUser();
    return { user, client: await clientFor(org, kind, user) };
  }

  async function privateChannel(): Promise<number> {
    return (await createChannel(org, await clientFor(org, kind), unique('private'), { invite_only: true })).id;
  }

  describe('POST /user_topics', () => {
    it('sets each policy, replaces it, and removes it with 0, emitting user_topic', async () => {
      const { user, client } = await member();
      const { queue_id } = await client.call(register, { event_types: ['user_topic'], fetch_event_types: [] });
      const res = await client.call(updateUserTopic, { stream_id: general, topic: 'lunch', visibility_policy: 1 });
      expect(res).toEqual({ result: 'success', msg: '' });
      expect(openapiErrors('post', '/user_topics', 200, res)).toEqual([]);
      await client.call(updateUserTopic, { stream_id: general, topic: 'dinner', visibility_policy: 3 });
      await client.call(updateUserTopic, { stream_id: general, topic: 'lunch', visibility_policy: 2 });
      expect(policies(user)).toEqual([
        { stream_id: general, topic: 'dinner', visibility_policy: 3 },
        { stream_id: general, topic: 'lunch', visibility_policy: 2 },
      ]);
      await client.call(updateUserTopic, { stream_id: general, topic: 'lunch', visibility_policy: 0 });
      // Setting the current value again succeeds, changing nothing and telling nobody (as a server does).
      const before = org.db.prepare('SELECT last_updated FROM user_topics WHERE user_id = ? AND topic = ?').pluck().get(user.id, 'dinner');
      org.clock.advance(60);
      await client.call(updateUserTopic, { stream_id: general, topic: 'lunch', visibility_policy: 0 });
      await client.call(updateUserTopic, { stream_id: general, topic: 'dinner', visibility_policy: 3 });
      expect(policies(user)).toEqual([{ stream_id: general, topic: 'dinner', visibility_policy: 3 }]);
      expect(org.db.prepare('SELECT last_updated FROM user_topics WHERE user_id = ? AND topic = ?').pluck().get(user.id, 'dinner')).toBe(before);
      const { events } = await client.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true });
      expect(events.map((e) => [e.topic_name, e.visibility_policy])).toEqual([
        ['lunch', 1],
        ['dinner', 3],
        ['lunch', 2],
        ['lunch', 0],
      ]);
      expect(events[0]).toEqual({
        type: 'user_topic',
        stream_id: general,
        topic_name: 'lunch',
        last_updated: org.clock.now() - 60,
        visibility_policy: 1,
        id: 0,
      });
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events })).toEqual([]);
    });

    it('reads "(no topic)" and the empty-topic display name as the empty topic', async () => {
      const { user, client } = await member();
      await client.call(updateUserTopic, { stream_id: general, topic: '(no topic)', visibility_policy: 1 });
      await client.call(updateUserTopic, { stream_id: general, topic: 'general chat', visibility_policy: 3 });
      expect(policies(user)).toEqual([{ stream_id: general, topic: '', visibility_policy: 3 }]);
    });

    it('limits topics to 60 characters and policies to 0–3', async () => {
      const { client } = await member();
      expect((await failure(client.call(updateUserTopic, { stream_id: general, topic: 'x'.repeat(61), visibility_policy: 1 }))).msg).toBe(
        'topic is too long (limit: 60 characters)',
      );
      await client.call(updateUserTopic, { stream_id: general, topic: 'é'.repeat(60), visibility_policy: 1 });
      const res = await rawRequest(org, kind, {
        method: 'POST',
        path: '/user_topics',
        body: [
          ['stream_id', String(general)],
          ['topic', 't'],
          ['visibility_policy', '4'],
        ],
      });
      expect(res.body).toEqual({ result: 'error', msg: 'Invalid visibility_policy: Value error, Not in the list of possible values', code: 'BAD_REQUEST' });
    });

    it('needs access to set a policy but only an existing channel to remove one', async () => {
      const { user, client } = await member();
      const hidden = await privateChannel();
      expect((await failure(client.call(updateUserTopic, { stream_id: hidden, topic: 't', visibility_policy: 1 }))).msg).toBe('Invalid channel ID');
      await client.call(updateUserTopic, { stream_id: hidden, topic: 't', visibility_policy: 0 });
      expect(policies(user)).toEqual([]);
      expect((await failure(client.call(updateUserTopic, { stream_id: 987654, topic: 't', visibility_policy: 0 }))).msg).toBe('Invalid channel ID');
      expect((await failure(client.call(updateUserTopic, { stream_id: 987654, topic: 't', visibility_policy: 3 }))).msg).toBe('Invalid channel ID');
    });
  });

  describe('PATCH /users/me/subscriptions/muted_topics (deprecated)', () => {
    it('mutes by channel ID or name and unmutes, succeeding when nothing changes', async () => {
      const { user, client } = await member();
      const res = await client.call(muteTopic, { stream_id: general, topic: 'noise', op: 'add' });
      expect(res).toEqual({ result: 'success', msg: '' });
      expect(openapiErrors('patch', '/users/me/subscriptions/muted_topics', 200, res)).toEqual([]);
      await client.call(muteTopic, { stream: 'general', topic: 'noise', op: 'add' });
      expect(policies(user)).toEqual([{ stream_id: general, topic: 'noise', visibility_policy: 1 }]);
      await client.call(muteTopic, { stream: 'general', topic: 'noise', op: 'remove' });
      await client.call(muteTopic, { stream_id: general, topic: 'noise', op: 'remove' });
      expect(policies(user)).toEqual([]);
    });

    it('wants exactly one of stream_id and stream, and a known op', async () => {
      const { client } = await member();
      const neither = await rawRequest(org, kind, {
        method: 'PATCH',
        path: '/users/me/subscriptions/muted_topics',
        body: [
          ['topic', 't'],
          ['op', 'add'],
        ],
      });
      // zerver/lib/streams.py check_for_exactly_one_stream_arg: the missing-argument text as a plain BAD_REQUEST.
      expect(neither.status).toBe(400);
      expect(neither.body).toEqual({ result: 'error', msg: "Missing 'stream_id' argument", code: 'BAD_REQUEST' });
      const both = await failure(client.call(muteTopic, { stream_id: general, stream: 'general', topic: 't', op: 'add' }));
      expect(both).toMatchObject({
        msg: 'Unsupported parameter combination: stream_id, stream',
        code: 'BAD_REQUEST',
        extra: { parameters: 'stream_id, stream' },
      });
      const op = await rawRequest(org, kind, {
        method: 'PATCH',
        path: '/users/me/subscriptions/muted_topics',
        body: [
          ['stream_id', String(general)],
          ['topic', 't'],
          ['op', 'toggle'],
        ],
      });
      expect(op.body).toMatchObject({ msg: 'Invalid op', code: 'BAD_REQUEST' });
    });

    it('needs access to mute, and reports unknown channels', async () => {
      const { client } = await member();
      const hidden = await privateChannel();
      expect((await failure(client.call(muteTopic, { stream_id: hidden, topic: 't', op: 'add' }))).msg).toBe('Invalid channel ID');
      expect((await failure(client.call(muteTopic, { stream: 'nowhere', topic: 't', op: 'add' }))).msg).toBe("Invalid channel name 'nowhere'");
      expect((await failure(client.call(muteTopic, { stream: 'nowhere', topic: 't', op: 'remove' }))).msg).toBe('Topic is not muted');
      await client.call(muteTopic, { stream_id: hidden, topic: 't', op: 'remove' });
    });
  });
});
