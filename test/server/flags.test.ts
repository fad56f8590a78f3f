import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/api/limits.js';
import { unsubscribe } from '../../src/api/operations/channels.js';
import { getMessages, sendMessage, updateMessageFlags, updateMessageFlagsForNarrow } from '../../src/api/operations/messages.js';
import type { ChatClient } from '../../src/client/client.js';
import { ID_SPAN } from '../../src/server/store/changes.js';
import { bad, failure, flatFailure } from '../helpers/api.js';
import { ownerChannel } from '../helpers/channels.js';
import { listen } from '../helpers/events.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

const READ = 1;
const STARRED = 2;
const HISTORICAL = 256;

describe.each(TRANSPORTS)('message flags over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const channel = (members: TestUser[]) => ownerChannel(org, owner, members);
  /** Notification Bot's creation message, a channel's first: unread for everyone but its creator. */
  const createdIn = (c: { id: number }): number => org.db.prepare('SELECT min(id) FROM messages WHERE stream_id = ?').pluck().get(c.id) as number;

  async function post(c: { name: string }, n: number, topic = 't'): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push((await owner.call(sendMessage, { type: 'stream', to: c.name, topic, content: `m${i}` })).id);
    return ids;
  }

  const flagsOf = (userId: number, messageId: number) =>
    (org.db.prepare('SELECT flags FROM user_messages WHERE user_id = ? AND message_id = ?').get(userId, messageId) as { flags: number } | undefined)?.flags;

  describe('POST /messages/flags', () => {
    it('stars messages, echoes the request list and sends update_message_flags with the changed ones', async () => {
      const reader = org.addUser();
      const c = await channel([reader]);
      const ids = await post(c, 2);
      const client = await as(reader);
      const events = await listen(client, ['update_message_flags']);
      await client.call(updateMessageFlags, { messages: [ids[0]!], op: 'add', flag: 'starred' });
      const res = await client.call(updateMessageFlags, { messages: [ids[1]!, ids[0]!], op: 'add', flag: 'starred' });
      expect(openapiErrors('post', '/messages/flags', 200, res)).toEqual([]);
      expect(res.messages).toEqual([ids[1], ids[0]]);
      expect(res).not.toHaveProperty('ignored_because_not_subscribed_channels');
      expect(flagsOf(reader.id, ids[1]!)).toBe(STARRED);
      const got = await events();
      expect(got.map((e) => e.messages)).toEqual([[ids[0]], [ids[1]]]);
      expect(got[1]).toMatchObject({ type: 'update_message_flags', op: 'add', operation: 'add', flag: 'starred', all: false });
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: got })).toEqual([]);
    });

    it('marks unread with message details, and skips channels the caller left', async () => {
      const reader = org.addUser();
      const kept = await channel([reader]);
      const left = await channel([reader]);
      const [keptId] = await post(kept, 1, 'lunch');
      const [leftId] = await post(left, 1);
      const client = await as(reader);
      await client.call(updateMessageFlags, { messages: [keptId!, leftId!], op: 'add', flag: 'read' });
      await client.call(unsubscribe, { subscriptions: [left.name] });
      const events = await listen(client, ['update_message_flags']);
      const res = await client.call(updateMessageFlags, { messages: [keptId!, leftId!], op: 'remove', flag: 'read' });
      expect(openapiErrors('post', '/messages/flags', 200, res)).toEqual([]);
      expect(res.ignored_because_not_subscribed_channels).toEqual([left.id]);
      expect(flagsOf(reader.id, keptId!)).toBe(0);
      expect(flagsOf(reader.id, leftId!)).toBe(READ);
      const [event] = await events();
      expect(event).toMatchObject({
        op: 'remove',
        flag: 'read',
        messages: [keptId],
        message_details: { [String(keptId)]: { type: 'stream', stream_id: kept.id, topic: 'lunch' } },
      });
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: [event] })).toEqual([]);
    });

    it('gives a readable message the caller never received a historical copy', async () => {
      const c = await channel([]);
      const [id] = await post(c, 1);
      const outsider = org.addUser();
      await (await as(outsider)).call(updateMessageFlags, { messages: [id!], op: 'add', flag: 'starred' });
      expect(flagsOf(outsider.id, id!)).toBe(READ | STARRED | HISTORICAL);
      const fetched = await (await as(outsider)).call(getMessages, { anchor: String(id), num_before: 0, num_after: 0 });
      expect(fetched.messages[0]!.flags).toEqual(['read', 'starred', 'historical']);
    });

    it.each([
      ['an unknown flag', 'add', 'bogus', "Invalid flag: 'bogus'"],
      ['a name every object inherits', 'add', 'constructor', "Invalid flag: 'constructor'"],
      ['another inherited name', 'add', '__proto__', "Invalid flag: '__proto__'"],
      ['a flag the server sets', 'add', 'mentioned', "Flag not editable: 'mentioned'"],
      ['a flag the server sets, before the operation', 'toggle', 'historical', "Flag not editable: 'historical'"],
      ['an unknown operation', 'toggle', 'starred', "Invalid message flag operation: 'toggle'"],
    ])('refuses %s', async (_name, op, flag, msg) => {
      const res = await rawRequest(org, kind, {
        method: 'POST',
        path: '/messages/flags',
        body: [
          ['messages', '[1]'],
          ['op', op],
          ['flag', flag],
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
    });

    it('refuses the whole request when one message is not readable, changing nothing', async () => {
      const a = org.addUser();
      const theirs = await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([a.id]), content: 'private' });
      const stranger = org.addUser();
      const c = await channel([stranger]);
      const [mine] = await post(c, 1);
      const e = await failure((await as(stranger)).call(updateMessageFlags, { messages: [mine!, theirs.id], op: 'add', flag: 'starred' }));
      expect(e).toMatchObject({ msg: 'Invalid message(s)', code: 'BAD_REQUEST' });
      expect(flagsOf(stranger.id, mine!)).toBe(0);
    });
  });

  describe('POST /messages/flags/narrow', () => {
    it('marks a channel read and reports the processed range', async () => {
      const reader = org.addUser();
      const c = await channel([reader]);
      const ids = await post(c, 4);
      const client = await as(reader);
      await client.call(updateMessageFlags, { messages: [ids[1]!], op: 'add', flag: 'read' });
      const res = await client.call(updateMessageFlagsForNarrow, {
        anchor: 'oldest',
        num_before: 0,
        num_after: 100,
        narrow: [{ operator: 'channel', operand: c.id }],
        op: 'add',
        flag: 'read',
      });
      expect(openapiErrors('post', '/messages/flags/narrow', 200, res)).toEqual([]);
      expect(res).toEqual({
        result: 'success',
        msg: '',
        processed_count: 5,
        updated_count: 4,
        first_processed_id: createdIn(c),
        last_processed_id: ids[3],
        found_oldest: true,
        found_newest: true,
      });
      for (const id of ids) expect(flagsOf(reader.id, id)! & READ).toBe(READ);
    });

    it('walks from first_unread with is:unread and stops where asked, for the client to continue', async () => {
      const reader = org.addUser();
      const c = await channel([reader]);
      const ids = await post(c, 5);
      const client = await as(reader);
      const narrow = [
        { operator: 'channel', operand: c.name },
        { operator: 'is', operand: 'unread' },
      ];
      const first = await client.call(updateMessageFlagsForNarrow, { anchor: 'first_unread', num_before: 0, num_after: 1, narrow, op: 'add', flag: 'read' });
      expect(first).toMatchObject({ processed_count: 2, updated_count: 2, first_processed_id: createdIn(c), last_processed_id: ids[0], found_newest: false });
      const rest = await client.call(updateMessageFlagsForNarrow, {
        anchor: String(first.last_processed_id),
        include_anchor: false,
        num_before: 0,
        num_after: 10,
        narrow,
        op: 'add',
        flag: 'read',
      });
      expect(rest).toMatchObject({ processed_count: 4, updated_count: 4, first_processed_id: ids[1], last_processed_id: ids[4], found_newest: true });
      const none = await client.call(updateMessageFlagsForNarrow, { anchor: 'first_unread', num_before: 0, num_after: 10, narrow, op: 'add', flag: 'read' });
      expect(none).toMatchObject({ processed_count: 0, updated_count: 0, first_processed_id: null, last_processed_id: null });
    });

    it('lists the ignored channels only when removing read', async () => {
      const reader = org.addUser();
      const c = await channel([reader]);
      await post(c, 2);
      const client = await as(reader);
      const narrow = [{ operator: 'channel', operand: c.name }];
      const star = await client.call(updateMessageFlagsForNarrow, { anchor: 'newest', num_before: 10, num_after: 0, narrow, op: 'add', flag: 'starred' });
      expect(star).not.toHaveProperty('ignored_because_not_subscribed_channels');
      await client.call(updateMessageFlagsForNarrow, { anchor: 'newest', num_before: 10, num_after: 0, narrow, op: 'add', flag: 'read' });
      const unread = await client.call(updateMessageFlagsForNarrow, { anchor: 'newest', num_before: 10, num_after: 0, narrow, op: 'remove', flag: 'read' });
      expect(openapiErrors('post', '/messages/flags/narrow', 200, unread)).toEqual([]);
      expect(unread.ignored_because_not_subscribed_channels).toEqual([]);
      // The two posted and the channel's creation message.
      expect(unread).toMatchObject({ processed_count: 3, updated_count: 3 });
      await client.call(unsubscribe, { subscriptions: [c.name] });
      const skipped = await client.call(updateMessageFlagsForNarrow, { anchor: 'newest', num_before: 10, num_after: 0, narrow, op: 'add', flag: 'read' });
      expect(skipped.updated_count).toBe(3);
      const again = await client.call(updateMessageFlagsForNarrow, { anchor: 'newest', num_before: 10, num_after: 0, narrow, op: 'remove', flag: 'read' });
      expect(again).toMatchObject({ processed_count: 3, updated_count: 0, ignored_because_not_subscribed_channels: [c.id] });
    });

    it('clamps num_before + num_after to 5000 instead of refusing', async () => {
      const reader = org.addUser();
      const c = await channel([reader]);
      // Thousands of messages: written straight to the store, the API sends them one by one.
      const recipient = (org.db.prepare('SELECT id FROM recipients WHERE stream_id = ?').get(c.id) as { id: number }).id;
      const insertMessage = org.db.prepare(
        `INSERT INTO messages (sender_id, recipient_id, type, stream_id, topic, content, rendered_content, date_sent) VALUES (?, ?, 'stream', ?, 'bulk', 'x', '<p>x</p>', ?)`,
      );
      const insertCopy = org.db.prepare('INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, 0)');
      org.db.transaction(() => {
        for (let i = 0; i < 5010; i++) insertCopy.run(reader.id, Number(insertMessage.run(org.owner.id, recipient, c.id, org.clock.now()).lastInsertRowid));
      })();
      const client = await as(reader);
      const narrow = [{ operator: 'channel', operand: c.id }];
      const back = await client.call(updateMessageFlagsForNarrow, { anchor: 'newest', num_before: 6000, num_after: 0, narrow, op: 'add', flag: 'starred' });
      expect(back).toMatchObject({ processed_count: 5000, updated_count: 5000, found_oldest: false, found_newest: true });
      const both = await client.call(updateMessageFlagsForNarrow, {
        anchor: 'oldest',
        num_before: 3000,
        num_after: 4000,
        narrow,
        op: 'add',
        flag: 'collapsed',
      });
      // num_before keeps max(5000 - 4000, 2500) = 2500 (nothing lies before "oldest"); num_after gets 5000 - 2500.
      expect(both).toMatchObject({ processed_count: 2500, found_oldest: true, found_newest: false });
    });

    it('takes a long search (a pasted paragraph) and a narrow of many terms, not a 500 from the SQL engine', async () => {
      const reader = org.addUser();
      const c = await channel([reader]);
      const [id] = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'essay', content: 'alpha beta gamma' }).then((r) => [r.id]);
      const client = await as(reader);
      const words = Array.from({ length: 1500 }, (_, i) => ['alpha', 'beta', 'gamma'][i % 3]).join(' ');
      const long = await client.call(updateMessageFlagsForNarrow, {
        anchor: 'newest',
        num_before: 10,
        num_after: 0,
        narrow: [
          { operator: 'channel', operand: c.id },
          { operator: 'search', operand: words },
        ],
        op: 'add',
        flag: 'starred',
      });
      expect(long).toMatchObject({ processed_count: 1, first_processed_id: id, last_processed_id: id });
      const many = Array.from({ length: LIMITS.narrowTerms }, () => ({ operator: 'is', operand: 'starred', negated: true }));
      const res = await client.call(updateMessageFlagsForNarrow, {
        anchor: 'newest',
        num_before: 10,
        num_after: 0,
        narrow: many,
        op: 'add',
        flag: 'collapsed',
      });
      // The reader's one unstarred message: the channel's creation message.
      expect(res).toMatchObject({ processed_count: 1, first_processed_id: createdIn(c) });
      const tooMany = client.call(updateMessageFlagsForNarrow, {
        anchor: 'newest',
        num_before: 10,
        num_after: 0,
        narrow: [...many, many[0]!],
        op: 'add',
        flag: 'collapsed',
      });
      expect(await flatFailure(tooMany)).toEqual(bad(`narrow has too many items (limit: ${LIMITS.narrowTerms})`));
      const fetched = await client.call(getMessages, {
        anchor: 'newest',
        num_before: 10,
        num_after: 0,
        narrow: [{ operator: 'search', operand: `${words} delta` }],
      });
      expect(fetched.messages).toEqual([]);
      expect(org.logs.filter((l) => l.startsWith('internal error'))).toEqual([]);
    });

    it('checks the anchor, then the range, then the narrow, and the flag only after the query', async () => {
      const call = (fields: Record<string, string>) =>
        rawRequest(org, kind, {
          method: 'POST',
          path: '/messages/flags/narrow',
          body: Object.entries({ anchor: 'newest', num_before: '1', num_after: '0', narrow: '[]', op: 'add', flag: 'read', ...fields }),
        });
      const cases: [Record<string, string>, string, string][] = [
        [{ anchor: 'middle', flag: 'bogus' }, 'Invalid anchor', 'BAD_REQUEST'],
        [
          { anchor: '5', num_before: '1', num_after: '1', include_anchor: 'false', flag: 'bogus' },
          'The anchor can only be excluded at an end of the range',
          'BAD_REQUEST',
        ],
        [{ narrow: '[["frobnicate","x"]]', flag: 'bogus' }, 'Invalid narrow operator: unknown operator frobnicate', 'BAD_NARROW'],
        [{ flag: 'bogus' }, "Invalid flag: 'bogus'", 'BAD_REQUEST'],
        [{ flag: 'mentioned' }, "Flag not editable: 'mentioned'", 'BAD_REQUEST'],
        [{ op: 'flip' }, "Invalid message flag operation: 'flip'", 'BAD_REQUEST'],
        [{ num_after: '-2' }, 'num_after is too small', 'BAD_REQUEST'],
      ];
      for (const [fields, msg, code] of cases) {
        const res = await call(fields);
        expect(res.status, msg).toBe(400);
        expect(res.body).toMatchObject({ result: 'error', msg, code });
      }
      const noAnchor = await rawRequest(org, kind, {
        method: 'POST',
        path: '/messages/flags/narrow',
        body: [
          ['num_before', '1'],
          ['num_after', '0'],
          ['narrow', '[]'],
          ['op', 'add'],
          ['flag', 'read'],
        ],
      });
      expect(noAnchor.body).toEqual({ result: 'error', msg: "Missing 'anchor' argument.", code: 'BAD_REQUEST' });
      const noNarrow = await rawRequest(org, kind, {
        method: 'POST',
        path: '/messages/flags/narrow',
        body: [
          ['anchor', 'newest'],
          ['num_before', '1'],
          ['num_after', '0'],
          ['op', 'add'],
          ['flag', 'read'],
        ],
      });
      expect(noNarrow.body).toMatchObject({ msg: "Missing 'narrow' argument", code: 'REQUEST_VARIABLE_MISSING' });
    });
  });
});

describe.each(TRANSPORTS)('flags on the largest message IDs over %s', (kind) => {
  it('GET /messages gives each message its own flags, up to the IDs the store numbers with (below ID_SPAN)', async () => {
    const org = createTestOrg();
    try {
      const owner = await clientFor(org, kind);
      const reader = org.addUser();
      const c = await ownerChannel(org, owner, [reader]);
      const numbered = org.db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'messages'").run(ID_SPAN - 10);
      expect(numbered.changes).toBe(1);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: `m${i}` })).id);
      expect(ids[0]).toBe(ID_SPAN - 9);
      const client = await clientFor(org, kind, reader);
      await client.call(updateMessageFlags, { messages: [ids[1]!], op: 'add', flag: 'starred' });
      const narrow = [{ operator: 'channel', operand: c.name }];
      const flagsIn = (res: { messages: { id: number; flags: string[] }[] }) => res.messages.filter((m) => ids.includes(m.id)).map((m) => [m.id, m.flags]);
      // A member's copies (read in one range), then the same messages by ID.
      expect(flagsIn(await client.call(getMessages, { anchor: 'newest', num_before: 5, num_after: 0, narrow }))).toEqual([
        [ids[0], []],
        [ids[1], ['starred']],
        [ids[2], []],
      ]);
      expect(flagsIn(await client.call(getMessages, { message_ids: ids, narrow }))).toEqual([
        [ids[0], []],
        [ids[1], ['starred']],
        [ids[2], []],
      ]);
      // Someone without copies, reading the channel's history.
      const outsider = await clientFor(org, kind, org.addUser());
      expect(flagsIn(await outsider.call(getMessages, { anchor: 'oldest', num_before: 0, num_after: 10, narrow }))).toEqual(
        ids.map((id) => [id, ['read', 'historical']]),
      );
    } finally {
      await org.close();
    }
  });
});
