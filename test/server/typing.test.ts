import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/api/operations/messages.js';
import { setMessageEditTypingStatus, setTypingStatus } from '../../src/api/operations/typing.js';
import { setSetting } from '../../src/server/model/realm.js';
import { newStream } from '../helpers/channels.js';
import { eventErrors, openQueue, takeNumberedEvents } from '../helpers/events.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, statusAndBody, TRANSPORTS } from '../helpers/transports.js';

const badRequest = (msg: string) => ({ status: 400, body: { result: 'error', msg, code: 'BAD_REQUEST' } });

describe.each(TRANSPORTS)('typing notifications over %s', (kind) => {
  let org: TestOrg;
  let ann: TestUser;
  let bob: TestUser;
  let gus: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    ann = org.addUser({ name: 'Ann' });
    bob = org.addUser({ name: 'Bob' });
    gus = org.addUser({ role: 600, name: 'Gus Guest' });
  });
  afterAll(() => org.close());

  const post = (user: TestUser, body: [string, string][]) => rawRequest(org, kind, { method: 'POST', path: '/typing', body }, user);
  /** A queue of a client that takes channel typing events (it declared stream_typing_notifications). */
  const channelQueue = (user: TestUser) => openQueue(org, user, { options: { client_capabilities: { stream_typing_notifications: true } } });
  /** A message through the real send. */
  const storeMessage = async (sender: TestUser, to: { streamId: number; topic: string } | { userIds: number[] }) =>
    (
      await (
        await clientFor(org, kind, sender)
      ).call(
        sendMessage,
        'streamId' in to
          ? { type: 'stream', to: String(to.streamId), topic: to.topic, content: 'hi' }
          : { type: 'direct', to: JSON.stringify(to.userIds), content: 'hi' },
      )
    ).id;

  describe('POST /typing, direct', () => {
    it('sends the typing event to every recipient and the sender, the sender appended last', async () => {
      const queues = [org.owner, ann, bob].map((u) => openQueue(org, u));
      const res = await (await clientFor(org, kind, ann)).call(setTypingStatus, { op: 'start', to: [bob.id] });
      // The documented response is SimpleSuccess: exactly this.
      expect(res).toEqual({ result: 'success', msg: '' });
      const expected = {
        type: 'typing',
        op: 'start',
        message_type: 'direct',
        sender: { user_id: ann.id, email: ann.email },
        recipients: [
          { user_id: bob.id, email: bob.email },
          { user_id: ann.id, email: ann.email },
        ],
      };
      const [ownerEvents, annEvents, bobEvents] = queues.map((q) => takeNumberedEvents(org, q));
      expect(ownerEvents).toEqual([]);
      expect(annEvents).toMatchObject([expected]);
      expect(bobEvents).toMatchObject([expected]);
      expect(eventErrors(bobEvents[0]!)).toEqual([]);
    });

    it('sends stop the same way, defaulting type to direct, and keeps the sender where the list has them', async () => {
      const q = openQueue(org, bob);
      await (await clientFor(org, kind, ann)).call(setTypingStatus, { op: 'stop', to: [ann.id, bob.id] });
      const [event] = takeNumberedEvents(org, q);
      expect(event).toMatchObject({ op: 'stop', message_type: 'direct', recipients: [{ user_id: ann.id }, { user_id: bob.id }] });
      expect(eventErrors(event!)).toEqual([]);
    });

    it('uses the API e-mail addresses when real ones are hidden', async () => {
      setSetting(org.db, 'email_address_visibility', 3);
      try {
        const q = openQueue(org, bob);
        await post(ann, [
          ['op', 'start'],
          ['to', `[${bob.id}]`],
        ]);
        const [event] = takeNumberedEvents(org, q);
        // Both transports reach the organization at 127.0.0.1, the host of the placeholder addresses.
        expect(event).toMatchObject({ sender: { user_id: ann.id, email: `user${ann.id}@127.0.0.1` } });
      } finally {
        setSetting(org.db, 'email_address_visibility', 1);
      }
    });

    it('skips recipients who turned typing notifications off, and deactivated ones, but still lists them', async () => {
      const quiet = org.addUser();
      const gone = org.addUser({ active: false });
      org.db.prepare('UPDATE users SET receives_typing_notifications = 0 WHERE id = ?').run(quiet.id);
      const [qQuiet, qGone, qAnn] = [quiet, gone, ann].map((u) => openQueue(org, u));
      const res = await post(ann, [
        ['op', 'start'],
        ['to', `[${quiet.id},${gone.id}]`],
      ]);
      expect(res.status).toBe(200);
      expect(takeNumberedEvents(org, qQuiet)).toEqual([]);
      expect(takeNumberedEvents(org, qGone)).toEqual([]);
      const [event] = takeNumberedEvents(org, qAnn);
      expect((event!.recipients as { user_id: number }[]).map((r) => r.user_id)).toEqual([quiet.id, gone.id, ann.id]);
    });

    it.each([
      ['no to', [['op', 'start']], "Missing 'to' argument"],
      [
        'an empty to',
        [
          ['op', 'start'],
          ['to', '[]'],
        ],
        "Empty 'to' list",
      ],
      [
        'an unknown user',
        [
          ['op', 'start'],
          ['to', '[999999]'],
        ],
        'Invalid user ID 999999',
      ],
      [
        'the removed private type',
        [
          ['type', 'private'],
          ['op', 'start'],
          ['to', '[1]'],
        ],
        'Invalid type',
      ],
      [
        'an unknown op',
        [
          ['op', 'begin'],
          ['to', '[1]'],
        ],
        'Invalid op',
      ],
      [
        'to that is not a list',
        [
          ['op', 'start'],
          ['to', '5'],
        ],
        'to is not a list',
      ],
      [
        'to with a string',
        [
          ['op', 'start'],
          ['to', '["x"]'],
        ],
        'to[0] is not an integer',
      ],
    ] as const)('refuses %s', async (_name, body, msg) => {
      expect(
        statusAndBody(
          await post(
            ann,
            body.map(([k, v]) => [k, v] as [string, string]),
          ),
        ),
      ).toEqual(badRequest(msg));
    });

    it('refuses a missing op with the missing-argument code', async () => {
      const res = await post(ann, [['to', `[${bob.id}]`]]);
      expect(res.body).toEqual({ result: 'error', msg: "Missing 'op' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'op' });
    });

    it('refuses a sender who turned direct-message typing notifications off, and sends nothing', async () => {
      const shy = org.addUser();
      org.db.prepare('UPDATE users SET send_private_typing_notifications = 0 WHERE id = ?').run(shy.id);
      const q = openQueue(org, bob);
      expect(
        statusAndBody(
          await post(shy, [
            ['op', 'start'],
            ['to', `[${bob.id}]`],
          ]),
        ),
      ).toEqual(badRequest('User has disabled typing notifications for direct messages'));
      expect(takeNumberedEvents(org, q)).toEqual([]);
    });

    it('rejects the whole request when one ID is unknown', async () => {
      const q = openQueue(org, bob);
      expect(
        statusAndBody(
          await post(ann, [
            ['op', 'start'],
            ['to', `[${bob.id},424242]`],
          ]),
        ),
      ).toEqual(badRequest('Invalid user ID 424242'));
      expect(takeNumberedEvents(org, q)).toEqual([]);
    });
  });

  describe('POST /typing, channel', () => {
    let streamId: number;
    beforeAll(() => {
      streamId = newStream(org, `design-${kind}`, { subscribers: [ann, bob] });
    });

    it.each(['stream', 'channel'])('sends type %s typing to the channel subscribers only', async (type) => {
      const [qAnn, qBob, qOwner] = [ann, bob, org.owner].map(channelQueue);
      const res = await post(ann, [
        ['type', type],
        ['op', 'start'],
        ['stream_id', String(streamId)],
        ['topic', '  plans  '],
      ]);
      expect(res.body).toEqual({ result: 'success', msg: '' });
      const expected = {
        type: 'typing',
        op: 'start',
        message_type: 'stream',
        sender: { user_id: ann.id, email: ann.email },
        stream_id: streamId,
        topic: 'plans',
      };
      const [annEvents, bobEvents] = [takeNumberedEvents(org, qAnn), takeNumberedEvents(org, qBob)];
      expect(annEvents).toMatchObject([expected]);
      expect(bobEvents).toMatchObject([expected]);
      expect(Object.keys(bobEvents[0]!).sort()).toEqual([...Object.keys(expected), 'id'].sort());
      expect(eventErrors(bobEvents[0]!)).toEqual([]);
      expect(takeNumberedEvents(org, qOwner)).toEqual([]);
    });

    it('delivers channel typing only to queues registered with stream_typing_notifications (4.1 rule 7)', async () => {
      const legacy = openQueue(org, bob);
      const capable = openQueue(org, bob, { options: { client_capabilities: { stream_typing_notifications: true } } });
      await post(ann, [
        ['type', 'stream'],
        ['op', 'start'],
        ['stream_id', String(streamId)],
        ['topic', 'plans'],
      ]);
      expect(takeNumberedEvents(org, legacy)).toEqual([]);
      expect(takeNumberedEvents(org, capable)).toMatchObject([{ type: 'typing', message_type: 'stream', stream_id: streamId }]);
      // Direct-message typing needs no capability.
      await post(ann, [
        ['op', 'start'],
        ['to', `[${bob.id}]`],
      ]);
      expect(takeNumberedEvents(org, legacy)).toMatchObject([{ type: 'typing', message_type: 'direct' }]);
    });

    it('ignores to for a channel', async () => {
      const res = await post(ann, [
        ['type', 'stream'],
        ['op', 'stop'],
        ['stream_id', String(streamId)],
        ['topic', 't'],
        ['to', `[${bob.id}]`],
      ]);
      expect(res.body).toEqual({ result: 'success', msg: '' });
    });

    it.each(['(no topic)', 'general chat'])('reads the topic %j as the empty topic, and accepts subject', async (alias) => {
      const q = channelQueue(bob);
      await post(ann, [
        ['type', 'channel'],
        ['op', 'start'],
        ['stream_id', String(streamId)],
        ['subject', alias],
      ]);
      expect(takeNumberedEvents(org, q)).toMatchObject([{ topic: '' }]);
    });

    it('sends nothing, successfully, in a channel of more than 100 subscribers', async () => {
      const crowd = Array.from({ length: 100 }, () => org.addUser());
      const big = newStream(org, `town-hall-${kind}`, { subscribers: [ann, ...crowd] });
      const q = channelQueue(crowd[0]!);
      const res = await post(ann, [
        ['type', 'stream'],
        ['op', 'start'],
        ['stream_id', String(big)],
        ['topic', 't'],
      ]);
      expect(res.body).toEqual({ result: 'success', msg: '' });
      expect(takeNumberedEvents(org, q)).toEqual([]);
      // At exactly 100 the events still go out.
      org.db.prepare('UPDATE subscriptions SET active = 0 WHERE user_id = ? AND stream_id = ?').run(crowd[99]!.id, big);
      await post(ann, [
        ['type', 'stream'],
        ['op', 'start'],
        ['stream_id', String(big)],
        ['topic', 't'],
      ]);
      expect(takeNumberedEvents(org, q)).toHaveLength(1);
    });

    it('checks in order: stream_id, topic, the sender setting, channel access', async () => {
      const hidden = newStream(org, `secret-${kind}`, { inviteOnly: true, subscribers: [bob] });
      const archived = newStream(org, `old-${kind}`, { archived: true, subscribers: [ann] });
      const shy = org.addUser();
      org.db.prepare('UPDATE users SET send_stream_typing_notifications = 0 WHERE id = ?').run(shy.id);
      const cases: [TestUser, [string, string][], string][] = [
        [
          ann,
          [
            ['type', 'stream'],
            ['op', 'start'],
            ['topic', 't'],
          ],
          "Missing 'stream_id' argument",
        ],
        [
          ann,
          [
            ['type', 'channel'],
            ['op', 'start'],
            ['topic', 't'],
            ['to', `[${bob.id}]`],
          ],
          "Missing 'stream_id' argument",
        ],
        [
          ann,
          [
            ['type', 'stream'],
            ['op', 'start'],
            ['stream_id', '999999'],
          ],
          'Missing topic',
        ],
        [
          shy,
          [
            ['type', 'stream'],
            ['op', 'start'],
            ['stream_id', '999999'],
            ['topic', 't'],
          ],
          'User has disabled typing notifications for channel messages',
        ],
        [
          ann,
          [
            ['type', 'stream'],
            ['op', 'start'],
            ['stream_id', '999999'],
            ['topic', 't'],
          ],
          'Invalid channel ID',
        ],
        [
          ann,
          [
            ['type', 'stream'],
            ['op', 'start'],
            ['stream_id', String(hidden)],
            ['topic', 't'],
          ],
          'Invalid channel ID',
        ],
        [
          org.owner,
          [
            ['type', 'stream'],
            ['op', 'start'],
            ['stream_id', String(hidden)],
            ['topic', 't'],
          ],
          'Invalid channel ID',
        ],
        [
          gus,
          [
            ['type', 'stream'],
            ['op', 'start'],
            ['stream_id', String(streamId)],
            ['topic', 't'],
          ],
          'Invalid channel ID',
        ],
        [
          ann,
          [
            ['type', 'stream'],
            ['op', 'start'],
            ['stream_id', String(archived)],
            ['topic', 't'],
          ],
          'Invalid channel ID',
        ],
        [
          ann,
          [
            ['type', 'stream'],
            ['op', 'start'],
            ['stream_id', '"7"'],
            ['topic', 't'],
          ],
          'stream_id is not an integer',
        ],
      ];
      for (const [user, body, msg] of cases) expect(statusAndBody(await post(user, body)), msg).toEqual(badRequest(msg));
    });

    it('lets a private channel subscriber and a subscribed guest type', async () => {
      const hidden = newStream(org, `club-${kind}`, { inviteOnly: true, subscribers: [bob, gus] });
      const q = channelQueue(gus);
      expect(
        (
          await post(bob, [
            ['type', 'stream'],
            ['op', 'start'],
            ['stream_id', String(hidden)],
            ['topic', 't'],
          ])
        ).status,
      ).toBe(200);
      expect(takeNumberedEvents(org, q)).toHaveLength(1);
      expect(
        (
          await post(gus, [
            ['type', 'stream'],
            ['op', 'stop'],
            ['stream_id', String(hidden)],
            ['topic', 't'],
          ])
        ).status,
      ).toBe(200);
    });
  });

  describe('POST /messages/{message_id}/typing', () => {
    let streamId: number;
    beforeAll(() => {
      streamId = newStream(org, `edits-${kind}`, { subscribers: [ann, bob] });
    });
    const editTyping = (user: TestUser, messageId: number, op = 'start') =>
      rawRequest(org, kind, { method: 'POST', path: `/messages/${messageId}/typing`, body: [['op', op]] }, user);

    it('tells the other members of a direct conversation, as typing_edit_message', async () => {
      const id = await storeMessage(ann, { userIds: [bob.id] });
      const [qAnn, qBob, qOwner] = [ann, bob, org.owner].map((u) => openQueue(org, u));
      const res = await (await clientFor(org, kind, ann)).call(setMessageEditTypingStatus, { message_id: id, op: 'start' });
      expect(res).toEqual({ result: 'success', msg: '' });
      const expected = {
        type: 'typing_edit_message',
        op: 'start',
        sender_id: ann.id,
        message_id: id,
        recipient: { type: 'direct', user_ids: [ann.id, bob.id].sort((a, b) => a - b) },
      };
      expect(takeNumberedEvents(org, qAnn)).toEqual([{ ...expected, id: expect.any(Number) }]);
      expect(takeNumberedEvents(org, qBob)).toEqual([{ ...expected, id: expect.any(Number) }]);
      expect(takeNumberedEvents(org, qOwner)).toEqual([]);
    });

    it('leaves out members who do not receive typing notifications, from the audience and the list', async () => {
      const quiet = org.addUser();
      org.db.prepare('UPDATE users SET receives_typing_notifications = 0 WHERE id = ?').run(quiet.id);
      const id = await storeMessage(ann, { userIds: [quiet.id] });
      const [qAnn, qQuiet] = [ann, quiet].map((u) => openQueue(org, u));
      await editTyping(ann, id, 'stop');
      expect(takeNumberedEvents(org, qAnn)).toMatchObject([{ op: 'stop', recipient: { type: 'direct', user_ids: [ann.id] } }]);
      expect(takeNumberedEvents(org, qQuiet)).toEqual([]);
    });

    it('sends a message to oneself to oneself only', async () => {
      const id = await storeMessage(bob, { userIds: [bob.id] });
      const q = openQueue(org, bob);
      await editTyping(bob, id);
      expect(takeNumberedEvents(org, q)).toMatchObject([{ recipient: { type: 'direct', user_ids: [bob.id] } }]);
    });

    it('tells the subscribers of the channel, with the topic', async () => {
      const id = await storeMessage(bob, { streamId, topic: 'launch' });
      const [qAnn, qOwner] = [ann, org.owner].map((u) => openQueue(org, u));
      await editTyping(bob, id);
      expect(takeNumberedEvents(org, qAnn)).toEqual([
        {
          type: 'typing_edit_message',
          op: 'start',
          sender_id: bob.id,
          message_id: id,
          recipient: { type: 'channel', channel_id: streamId, topic: 'launch' },
          id: expect.any(Number),
        },
      ]);
      expect(takeNumberedEvents(org, qOwner)).toEqual([]);
    });

    it('refuses messages the caller cannot see, then those they may not edit', async () => {
      const dm = await storeMessage(ann, { userIds: [bob.id] });
      const secret = newStream(org, `vault-${kind}`, { inviteOnly: true, subscribers: [bob] });
      const hiddenMessage = await storeMessage(bob, { streamId: secret, topic: 't' });
      const publicMessage = await storeMessage(bob, { streamId, topic: 't' });
      expect(statusAndBody(await editTyping(ann, 999999))).toEqual(badRequest('Invalid message(s)'));
      expect(statusAndBody(await editTyping(org.owner, dm))).toEqual(badRequest('Invalid message(s)'));
      expect(statusAndBody(await editTyping(ann, hiddenMessage))).toEqual(badRequest('Invalid message(s)'));
      expect(statusAndBody(await editTyping(bob, dm))).toEqual(badRequest("You don't have permission to edit this message"));
      expect(statusAndBody(await editTyping(org.owner, publicMessage))).toEqual(badRequest("You don't have permission to edit this message"));
      expect(statusAndBody(await editTyping(ann, dm, 'pause'))).toEqual(badRequest('Invalid op'));
    });

    it('refuses when the organization turned editing off, or the time limit has passed', async () => {
      const id = await storeMessage(ann, { userIds: [bob.id] });
      setSetting(org.db, 'allow_message_editing', false);
      try {
        expect(statusAndBody(await editTyping(ann, id))).toEqual(badRequest('Your organization has turned off message editing'));
      } finally {
        setSetting(org.db, 'allow_message_editing', true);
      }
      setSetting(org.db, 'message_content_edit_limit_seconds', 60);
      try {
        org.clock.advance(60);
        expect((await editTyping(ann, id)).status).toBe(200);
        org.clock.advance(1);
        expect(statusAndBody(await editTyping(ann, id))).toEqual(badRequest('The time limit for editing this message has passed'));
      } finally {
        setSetting(org.db, 'message_content_edit_limit_seconds', null);
      }
    });

    it('refuses a sender who turned the matching typing notifications off', async () => {
      const shy = org.addUser();
      org.db.prepare('INSERT INTO subscriptions (user_id, stream_id) VALUES (?, ?)').run(shy.id, streamId);
      const dm = await storeMessage(shy, { userIds: [bob.id] });
      const inChannel = await storeMessage(shy, { streamId, topic: 't' });
      org.db.prepare('UPDATE users SET send_private_typing_notifications = 0, send_stream_typing_notifications = 0 WHERE id = ?').run(shy.id);
      expect(statusAndBody(await editTyping(shy, dm))).toEqual(badRequest('User has disabled typing notifications for direct messages'));
      expect(statusAndBody(await editTyping(shy, inChannel))).toEqual(badRequest('User has disabled typing notifications for channel messages'));
    });
  });
});
