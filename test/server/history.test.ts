import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueEvent } from '../../src/api/operations/events.js';
import { getMessageHistory, getMessages, sendMessage, updateMessage } from '../../src/api/operations/messages.js';
import type { ChatClient } from '../../src/client/client.js';
import { setSetting } from '../../src/server/model/realm.js';
import { failure } from '../helpers/api.js';
import { ownerChannel, type ChannelOptions } from '../helpers/channels.js';
import { listen } from '../helpers/events.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

const validEvents = (events: QueueEvent[]) => openapiErrors('get', '/events', 200, { result: 'success', msg: '', events });

describe.each(TRANSPORTS)('message editing and history over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const channel = (members: TestUser[], opts?: ChannelOptions) => ownerChannel(org, owner, members, opts);

  const row = (id: number) => org.db.prepare('SELECT * FROM messages WHERE id = ?').get(id) as Record<string, unknown>;
  const flagsOf = (userId: number, messageId: number) =>
    (org.db.prepare('SELECT flags FROM user_messages WHERE user_id = ? AND message_id = ?').get(userId, messageId) as { flags: number } | undefined)?.flags;

  describe('PATCH /messages/{message_id}', () => {
    it('lets the sender edit the content: re-rendered, recorded, announced with each reader’s flags', async () => {
      const reader = org.addUser({ name: unique('Rhea Reader', '-') });
      const c = await channel([reader]);
      const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'content before edit' });
      const events = await listen(await as(reader), ['update_message']);
      org.clock.advance(30);
      const res = await owner.call(updateMessage, { message_id: sent.id, content: `content after edit @**${reader.row.full_name}**` });
      expect(openapiErrors('patch', '/messages/{message_id}', 200, res)).toEqual([]);
      expect(res.detached_uploads).toEqual([]);
      expect(row(sent.id)).toMatchObject({ last_edit_time: org.clock.now(), last_moved_time: null });
      expect(flagsOf(reader.id, sent.id)).toBe(8);
      const [event] = await events();
      expect(event).toMatchObject({
        type: 'update_message',
        user_id: org.owner.id,
        message_id: sent.id,
        message_ids: [sent.id],
        edit_timestamp: org.clock.now(),
        rendering_only: false,
        stream_id: c.id,
        stream_name: c.name,
        orig_content: 'content before edit',
        orig_rendered_content: '<p>content before edit</p>',
        flags: ['mentioned'],
        is_me_message: false,
      });
      expect(event!.rendered_content).toContain('class="user-mention"');
      expect(validEvents([event!])).toEqual([]);

      const fetched = await owner.call(getMessages, { anchor: String(sent.id), num_before: 0, num_after: 0 });
      expect(openapiErrors('get', '/messages', 200, fetched)).toEqual([]);
      expect(fetched.messages[0]).toMatchObject({ last_edit_timestamp: org.clock.now() });
      expect(fetched.messages[0]!.edit_history).toEqual([
        { user_id: org.owner.id, timestamp: org.clock.now(), prev_content: 'content before edit', prev_rendered_content: '<p>content before edit</p>' },
      ]);
      expect(fetched.messages[0]).not.toHaveProperty('last_moved_timestamp');

      await owner.call(updateMessage, { message_id: sent.id, content: 'no mention now' });
      expect(flagsOf(reader.id, sent.id)).toBe(0);
    });

    it('stores blank content as "(deleted)"', async () => {
      const c = await channel([]);
      const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'oops' });
      await owner.call(updateMessage, { message_id: sent.id, content: '   ' });
      expect(row(sent.id)).toMatchObject({ content: '(deleted)', rendered_content: '<p>(deleted)</p>' });
    });

    it('resolves and unresolves a topic without counting it as a move; is:resolved finds it', async () => {
      const c = await channel([]);
      const topic = unique('bug', '-');
      const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic, content: 'found a bug' });
      const resolvedNarrow = [
        { operator: 'channel', operand: c.name },
        { operator: 'is', operand: 'resolved' },
      ];
      const resolvedIds = async () =>
        (await owner.call(getMessages, { anchor: 'newest', num_before: 10, num_after: 0, narrow: resolvedNarrow })).messages.map((m) => m.id);
      expect(await resolvedIds()).toEqual([]);
      await owner.call(updateMessage, { message_id: sent.id, topic: `✔ ${topic}`, propagate_mode: 'change_all' });
      expect(row(sent.id)).toMatchObject({ topic: `✔ ${topic}`, last_moved_time: null });
      expect(await resolvedIds()).toEqual([sent.id]);
      await owner.call(updateMessage, { message_id: sent.id, topic, propagate_mode: 'change_all' });
      expect(row(sent.id)).toMatchObject({ topic, last_moved_time: null });
      expect(await resolvedIds()).toEqual([]);
      // Another name with the prefix is a move.
      await owner.call(updateMessage, { message_id: sent.id, topic: `✔ other ${topic}`, propagate_mode: 'change_all' });
      expect(row(sent.id).last_moved_time).toBe(org.clock.now());
    });

    it('moves a topic with change_one, change_later and change_all', async () => {
      const moderator = await as(org.addUser({ role: 300 }));
      const c = await channel([]);
      const ids: number[] = [];
      for (let i = 0; i < 4; i++) ids.push((await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'old', content: `m${i}` })).id);
      const events = await listen(owner, ['update_message']);
      await moderator.call(updateMessage, { message_id: ids[0]!, topic: 'one' });
      await moderator.call(updateMessage, { message_id: ids[2]!, topic: 'later', propagate_mode: 'change_later' });
      const topics = () => ids.map((id) => row(id).topic);
      expect(topics()).toEqual(['one', 'old', 'later', 'later']);
      await moderator.call(updateMessage, { message_id: ids[3]!, topic: 'all', propagate_mode: 'change_all' });
      expect(topics()).toEqual(['one', 'old', 'all', 'all']);
      for (const id of [ids[0]!, ids[2]!, ids[3]!]) expect(row(id).last_moved_time).toBe(org.clock.now());
      expect(row(ids[1]!).last_moved_time).toBeNull();
      const got = await events();
      expect(got.map((e) => [e.message_ids, e.orig_subject, e.subject, e.propagate_mode])).toEqual([
        [[ids[0]], 'old', 'one', 'change_one'],
        [[ids[2], ids[3]], 'old', 'later', 'change_later'],
        [[ids[2], ids[3]], 'later', 'all', 'change_all'],
      ]);
      // The owner's own messages, sent by chatctl (not a Zulip app), are unread for the owner.
      expect(got[0]).toMatchObject({ flags: [], topic_links: [] });
      expect(validEvents(got)).toEqual([]);
      const fetched = await owner.call(getMessages, { anchor: String(ids[3]), num_before: 0, num_after: 0 });
      expect(fetched.messages[0]!.last_moved_timestamp).toBe(org.clock.now());
      expect(fetched.messages[0]!.edit_history!.map((e) => [e.prev_topic, e.topic])).toEqual([
        ['later', 'all'],
        ['old', 'later'],
      ]);
    });

    it('does not count resolving a topic as a move', async () => {
      const c = await channel([]);
      const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'bug', content: 'x' });
      await owner.call(updateMessage, { message_id: sent.id, topic: '✔ bug', propagate_mode: 'change_all' });
      expect(row(sent.id)).toMatchObject({ topic: '✔ bug', last_moved_time: null });
    });

    it('moves messages to another channel; who cannot read them there loses them', async () => {
      const stays = org.addUser();
      const loses = org.addUser();
      const from = await channel([stays, loses]);
      const to = await channel([stays], { invite_only: true });
      const sent = await owner.call(sendMessage, { type: 'stream', to: from.name, topic: 'moving', content: 'x' });
      const losing = await listen(await as(loses), ['delete_message', 'update_message']);
      const staying = await listen(await as(stays), ['update_message']);
      await owner.call(updateMessage, { message_id: sent.id, stream_id: to.id });
      expect(row(sent.id)).toMatchObject({ stream_id: to.id, topic: 'moving' });
      expect(flagsOf(loses.id, sent.id)).toBeUndefined();
      expect(flagsOf(stays.id, sent.id)).toBe(0);
      const lost = await losing();
      expect(lost).toEqual([
        expect.objectContaining({ type: 'delete_message', message_ids: [sent.id], message_type: 'stream', stream_id: from.id, topic: 'moving' }),
      ]);
      const [update] = await staying();
      expect(update).toMatchObject({ type: 'update_message', new_stream_id: to.id, stream_id: from.id, orig_subject: 'moving', propagate_mode: 'change_one' });
      expect(update).not.toHaveProperty('subject');
      expect(validEvents([...lost, update!])).toEqual([]);
      const history = await owner.call(getMessageHistory, { message_id: sent.id });
      expect(history.message_history[1]).toMatchObject({ prev_stream: from.id, stream: to.id, topic: 'moving' });
      expect(history.message_history[1]).not.toHaveProperty('prev_topic');
    });

    it('checks the time limit on content edits, with 20 seconds of grace', async () => {
      const c = await channel([]);
      const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'x' });
      setSetting(org.db, 'message_content_edit_limit_seconds', 60);
      try {
        org.clock.advance(80);
        await owner.call(updateMessage, { message_id: sent.id, content: 'in time' });
        org.clock.advance(1);
        const e = await failure(owner.call(updateMessage, { message_id: sent.id, content: 'too late' }));
        expect(e).toMatchObject({ msg: 'The time limit for editing this message has passed', code: 'BAD_REQUEST' });
      } finally {
        setSetting(org.db, 'message_content_edit_limit_seconds', null);
      }
    });

    it('refuses content edits when the organization turned editing off', async () => {
      const c = await channel([]);
      const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'x' });
      setSetting(org.db, 'allow_message_editing', false);
      try {
        const e = await failure(owner.call(updateMessage, { message_id: sent.id, content: 'y' }));
        expect(e.msg).toBe('Your organization has turned off message editing');
      } finally {
        setSetting(org.db, 'allow_message_editing', true);
      }
    });

    it('refuses what cannot be done, in the server’s order', async () => {
      const member = org.addUser();
      const c = await channel([member]);
      const other = await channel([member]);
      const mine = await (await as(member)).call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'mine' });
      const ownerMessage = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'owner' });
      const dm = await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([member.id]), content: 'dm' });
      const patch = (id: number, body: [string, string][], user: TestUser = member) =>
        rawRequest(org, kind, { method: 'PATCH', path: `/messages/${id}`, body }, user);
      const cases: [number, [string, string][], string][] = [
        [mine.id, [], 'Nothing to change'],
        [mine.id, [['topic', 't']], 'Nothing to change'],
        [
          ownerMessage.id,
          [
            ['content', 'hijack'],
            ['topic', 'x'],
          ],
          "You don't have permission to edit this message",
        ],
        [dm.id, [['topic', 'x']], 'Direct messages cannot have topics.'],
        [dm.id, [['stream_id', String(c.id)]], 'Direct messages cannot be moved to channels.'],
        [
          mine.id,
          [
            ['content', 'x'],
            ['propagate_mode', 'change_all'],
          ],
          'Invalid propagate_mode without topic edit',
        ],
        [
          mine.id,
          [
            ['topic', 'x'],
            ['propagate_mode', 'sideways'],
          ],
          'Invalid propagate_mode',
        ],
        [mine.id, [['topic', 'bad\u0000']], 'Invalid character in topic, at position 4!'],
        [
          mine.id,
          [
            ['content', 'x'],
            ['stream_id', String(other.id)],
          ],
          'Cannot change message content while changing channel',
        ],
        [99999, [['content', 'x']], 'Invalid message(s)'],
      ];
      for (const [id, body, msg] of cases) {
        const res = await patch(id, body);
        expect(res.status, msg).toBe(400);
        expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
      }
      const badChannel = await patch(ownerMessage.id, [['stream_id', '99999']], org.owner);
      expect(badChannel.body).toEqual({ result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
      expect(row(mine.id)).toMatchObject({ content: 'mine', topic: 't', stream_id: c.id });
    });
  });

  describe('GET /messages/{message_id}/history', () => {
    it('gives only the original snapshot for an unedited message', async () => {
      const c = await channel([]);
      const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'plain', content: 'hello' });
      const res = await owner.call(getMessageHistory, { message_id: sent.id });
      expect(openapiErrors('get', '/messages/{message_id}/history', 200, res)).toEqual([]);
      expect(res.message_history).toEqual([
        { topic: 'plain', content: 'hello', rendered_content: '<p>hello</p>', timestamp: org.clock.now(), user_id: org.owner.id },
      ]);
    });

    it('lists snapshots oldest first, each with what changed and a real HTML diff', async () => {
      const editor = org.addUser({ role: 300 });
      const c = await channel([editor]);
      const sentAt = org.clock.now();
      const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: '', content: 'content before edit' });
      org.clock.advance(10);
      await owner.call(updateMessage, { message_id: sent.id, content: 'content after edit' });
      org.clock.advance(10);
      await (await as(editor)).call(updateMessage, { message_id: sent.id, topic: 'named' });
      const res = await owner.call(getMessageHistory, { message_id: sent.id });
      expect(openapiErrors('get', '/messages/{message_id}/history', 200, res)).toEqual([]);
      expect(res.message_history).toEqual([
        { topic: 'general chat', content: 'content before edit', rendered_content: '<p>content before edit</p>', timestamp: sentAt, user_id: org.owner.id },
        {
          topic: 'general chat',
          content: 'content after edit',
          rendered_content: '<p>content after edit</p>',
          timestamp: sentAt + 10,
          user_id: org.owner.id,
          prev_content: 'content before edit',
          prev_rendered_content: '<p>content before edit</p>',
          content_html_diff:
            '<div><p>content <span class="highlight_text_inserted">after</span> <span class="highlight_text_deleted">before</span> edit</p></div>',
        },
        {
          topic: 'named',
          content: 'content after edit',
          rendered_content: '<p>content after edit</p>',
          timestamp: sentAt + 20,
          user_id: editor.id,
          prev_topic: 'general chat',
        },
      ]);
      const raw = await owner.call(getMessageHistory, { message_id: sent.id, allow_empty_topic_name: true });
      expect(raw.message_history.map((s) => [s.topic, s.prev_topic])).toEqual([
        ['', undefined],
        ['', undefined],
        ['named', ''],
      ]);
    });

    it('diffs across markup: the new markup stays, deleted words are shown outside it', async () => {
      const c = await channel([]);
      const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'keep **this** word' });
      await owner.call(updateMessage, { message_id: sent.id, content: 'keep that *word* now' });
      const [, edit] = (await owner.call(getMessageHistory, { message_id: sent.id })).message_history;
      expect(edit!.content_html_diff).toBe(
        '<div><p>keep <span class="highlight_text_inserted">that</span> <span class="highlight_text_deleted">this</span> <em>word</em> <span class="highlight_text_inserted">now</span></p></div>',
      );
    });

    it('refuses when the organization hides edit history (before looking at the message), and for unreadable messages', async () => {
      setSetting(org.db, 'allow_edit_history', false);
      try {
        const e = await failure(owner.call(getMessageHistory, { message_id: 99999 }));
        expect(e).toMatchObject({ msg: 'Message edit history is disabled in this organization', code: 'BAD_REQUEST' });
        const c = await channel([]);
        const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'x' });
        await owner.call(updateMessage, { message_id: sent.id, content: 'y' });
        const fetched = await owner.call(getMessages, { anchor: String(sent.id), num_before: 0, num_after: 0 });
        expect(fetched.messages[0]).not.toHaveProperty('edit_history');
        expect(fetched.messages[0]).toHaveProperty('last_edit_timestamp');
      } finally {
        setSetting(org.db, 'allow_edit_history', true);
      }
      const a = org.addUser();
      const dm = await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([a.id]), content: 'x' });
      const e = await failure((await as(org.addUser())).call(getMessageHistory, { message_id: dm.id }));
      expect(e).toMatchObject({ msg: 'Invalid message(s)', code: 'BAD_REQUEST' });
    });
  });
});
