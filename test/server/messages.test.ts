import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/api/operations/channels.js';
import { getMessage, getMessages, renderMessage, sendMessage, updateMessageFlags, type NarrowTerm } from '../../src/api/operations/messages.js';
import type { ChatClient } from '../../src/client/client.js';
import { setSetting } from '../../src/server/model/realm.js';
import { failure } from '../helpers/api.js';
import { ownerChannel, type ChannelOptions } from '../helpers/channels.js';
import { listen } from '../helpers/events.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

const NEWEST = 10_000_000_000_000_000;

describe.each(TRANSPORTS)('messages over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const channel = (members: TestUser[], opts?: ChannelOptions) => ownerChannel(org, owner, members, opts);

  const firstMessageOf = (channelId: number): number => org.db.prepare('SELECT min(id) FROM messages WHERE stream_id = ?').pluck().get(channelId) as number;

  const userMessage = (userId: number, messageId: number) =>
    org.db.prepare('SELECT flags FROM user_messages WHERE user_id = ? AND message_id = ?').get(userId, messageId) as { flags: number } | undefined;

  describe('POST /messages', () => {
    it('sends a channel message to every subscriber, read for the sender who asks, with a message event carrying flags', async () => {
      const reader = org.addUser();
      const c = await channel([reader]);
      const readerEvents = await listen(await as(reader), ['message'], { apply_markdown: true });
      const ownerEvents = await listen(owner, ['message'], { apply_markdown: true });
      const res = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'greetings', content: 'Hello **world**', read_by_sender: true });
      expect(openapiErrors('post', '/messages', 200, res)).toEqual([]);
      const stored = org.db.prepare('SELECT * FROM messages WHERE id = ?').get(res.id) as Record<string, unknown>;
      expect(stored).toMatchObject({
        type: 'stream',
        stream_id: c.id,
        topic: 'greetings',
        content: 'Hello **world**',
        rendered_content: '<p>Hello <strong>world</strong></p>',
      });
      const recipient = org.db.prepare('SELECT stream_id FROM recipients WHERE id = ?').get(stored.recipient_id) as { stream_id: number };
      expect(recipient.stream_id).toBe(c.id);
      expect(userMessage(org.owner.id, res.id)!.flags).toBe(1);
      expect(userMessage(reader.id, res.id)!.flags).toBe(0);

      const [event] = await readerEvents();
      expect(event).toMatchObject({
        type: 'message',
        flags: [],
        message: {
          id: res.id,
          subject: 'greetings',
          display_recipient: c.name,
          stream_id: c.id,
          type: 'stream',
          content: '<p>Hello <strong>world</strong></p>',
          content_type: 'text/html',
        },
      });
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: [event] })).toEqual([]);
      expect((await ownerEvents())[0]).toMatchObject({ type: 'message', flags: ['read'] });
    });

    it('gives queues registered without apply_markdown the raw Markdown', async () => {
      const c = await channel([]);
      const raw = await listen(owner, ['message'], { apply_markdown: false });
      const res = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'raw', content: 'Hello **world**' });
      const [event] = await raw();
      expect(event).toMatchObject({ type: 'message', message: { id: res.id, content: 'Hello **world**', content_type: 'text/x-markdown' } });
    });

    it('gives the empty topic as "" to queues with the empty_topic_name capability, by its display name to others', async () => {
      const c = await channel([]);
      const capable = await listen(owner, ['message'], { client_capabilities: { empty_topic_name: true } });
      const legacy = await listen(owner, ['message']);
      const res = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: '', content: 'no topic here' });
      expect((await capable())[0]).toMatchObject({ type: 'message', message: { id: res.id, subject: '' } });
      expect((await legacy())[0]).toMatchObject({ type: 'message', message: { id: res.id, subject: 'general chat' } });
    });

    it('takes the channel by ID, by JSON-encoded name, as type "channel" and with the legacy "subject"', async () => {
      const c = await channel([]);
      const byId = await rawRequest(org, kind, {
        method: 'POST',
        path: '/messages',
        body: [
          ['type', 'channel'],
          ['to', String(c.id)],
          ['subject', 'by id'],
          ['content', 'x'],
        ],
      });
      expect(byId.status).toBe(200);
      const id = (byId.body as { id: number }).id;
      expect(org.db.prepare('SELECT stream_id, topic FROM messages WHERE id = ?').get(id)).toEqual({ stream_id: c.id, topic: 'by id' });
      const byJsonName = await owner.call(sendMessage, { type: 'stream', to: JSON.stringify([c.name]), topic: 't', content: 'y' });
      expect((org.db.prepare('SELECT stream_id FROM messages WHERE id = ?').get(byJsonName.id) as { stream_id: number }).stream_id).toBe(c.id);
      const both = await rawRequest(org, kind, {
        method: 'POST',
        path: '/messages',
        body: [
          ['type', 'stream'],
          ['to', c.name],
          ['topic', 'a'],
          ['subject', 'b'],
          ['content', 'x'],
        ],
      });
      expect(both.body).toMatchObject({ code: 'REQUEST_CONFUSING_VAR', msg: "Can't decide between 'topic' and 'subject' arguments" });
    });

    it('sends direct messages by user IDs, by e-mails and by a comma-separated list, to one conversation', async () => {
      const a = org.addUser({ name: 'Ada Direct' });
      const b = org.addUser();
      const byIds = await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([a.id, b.id]), content: 'group hello' });
      const byEmails = await owner.call(sendMessage, { type: 'private', to: JSON.stringify([a.email, b.email]), content: 'again' });
      const byCsv = await owner.call(sendMessage, { type: 'direct', to: `${b.email},${a.email}`, content: 'third' });
      const recipients = org.db.prepare('SELECT DISTINCT recipient_id FROM messages WHERE id IN (?, ?, ?)').all(byIds.id, byEmails.id, byCsv.id) as {
        recipient_id: number;
      }[];
      expect(recipients).toHaveLength(1);
      const members = org.db.prepare('SELECT members FROM recipients WHERE id = ?').get(recipients[0]!.recipient_id) as { members: string };
      expect(members.members).toBe([org.owner.id, a.id, b.id].sort((x, y) => x - y).join(','));
      for (const u of [a, b]) expect(userMessage(u.id, byIds.id)!.flags).toBe(0);

      const res = await (await as(a)).call(getMessages, { anchor: String(byIds.id), num_before: 0, num_after: 0 });
      expect(openapiErrors('get', '/messages', 200, res)).toEqual([]);
      expect(res.messages[0]).toMatchObject({ type: 'private', subject: '', topic_links: [] });
      expect(res.messages[0]!.display_recipient).toEqual(
        [org.owner, a, b].sort((x, y) => x.id - y.id).map((u) => ({ id: u.id, email: u.email, full_name: u.row.full_name, is_mirror_dummy: false })),
      );
      expect(res.messages[0]).not.toHaveProperty('stream_id');
    });

    it('refuses unknown channels with STREAM_DOES_NOT_EXIST and the name or ID', async () => {
      const byName = await rawRequest(org, kind, {
        method: 'POST',
        path: '/messages',
        body: [
          ['type', 'stream'],
          ['to', 'nowhere'],
          ['topic', 't'],
          ['content', 'x'],
        ],
      });
      expect(byName.status).toBe(400);
      expect(byName.body).toEqual({ result: 'error', msg: "Channel 'nowhere' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'nowhere' });
      const byId = await rawRequest(org, kind, {
        method: 'POST',
        path: '/messages',
        body: [
          ['type', 'stream'],
          ['to', '99999'],
          ['topic', 't'],
          ['content', 'x'],
        ],
      });
      expect(byId.body).toEqual({ result: 'error', msg: "Channel with ID '99999' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream_id: 99999 });
    });

    it.each([
      ['an unknown user ID', { type: 'direct', to: '[99999]', content: 'x' }, 'Invalid user ID 99999'],
      ['an unknown e-mail', { type: 'direct', to: '["nobody@example.com"]', content: 'x' }, "Invalid email 'nobody@example.com'"],
      ['no recipients', { type: 'direct', to: '[]', content: 'x' }, 'Message must have recipients'],
      ['a bare number as recipients', { type: 'direct', to: '5', content: 'x' }, 'Invalid data type for recipients'],
      ['IDs and e-mails mixed', { type: 'direct', to: '[1, "a@b.c"]', content: 'x' }, 'Recipient lists may contain emails or user IDs, but not both.'],
      ['empty content', { type: 'stream', to: 'general', topic: 't', content: '' }, 'Message must not be empty'],
      ['blank content', { type: 'stream', to: 'general', topic: 't', content: '  \n\n ' }, 'Message must not be empty'],
      ['a channel message without topic', { type: 'stream', to: 'general', content: 'x' }, 'Missing topic'],
      ['a topic with a control character', { type: 'stream', to: 'general', topic: 'ab\u0007c', content: 'x' }, 'Invalid character in topic, at position 3!'],
      ['an unknown type', { type: 'broadcast', to: 'general', topic: 't', content: 'x' }, 'Invalid type'],
    ])('refuses %s', async (_name, params, msg) => {
      const res = await rawRequest(org, kind, { method: 'POST', path: '/messages', body: Object.entries(params) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
    });

    it('checks recipients before content, and refuses deactivated recipients', async () => {
      const res = await rawRequest(org, kind, {
        method: 'POST',
        path: '/messages',
        body: [
          ['type', 'direct'],
          ['to', '[99999]'],
          ['content', ''],
        ],
      });
      expect((res.body as { msg: string }).msg).toBe('Invalid user ID 99999');
      const gone = org.addUser({ active: false });
      const e = await failure(owner.call(sendMessage, { type: 'direct', to: JSON.stringify([gone.id]), content: 'hi' }));
      expect(e.msg).toBe(`'${gone.email}' is no longer using Zulip.`);
    });

    it('stores "(no topic)" and the display name as the empty topic, shown by name unless allowed', async () => {
      const c = await channel([]);
      const a = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: '(no topic)', content: 'one' });
      const b = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'general chat', content: 'two' });
      for (const id of [a.id, b.id]) expect((org.db.prepare('SELECT topic FROM messages WHERE id = ?').get(id) as { topic: string }).topic).toBe('');
      const shown = await owner.call(getMessages, { anchor: String(a.id), num_before: 0, num_after: 0 });
      expect(shown.messages[0]!.subject).toBe('general chat');
      const raw = await owner.call(getMessages, { anchor: String(a.id), num_before: 0, num_after: 0, allow_empty_topic_name: true });
      expect(raw.messages[0]!.subject).toBe('');
    });

    it('truncates long topics to 60 and long content to 10000 code points', async () => {
      const c = await channel([]);
      const topic = 'é'.repeat(70);
      const content = 'x'.repeat(10050);
      const res = await owner.call(sendMessage, { type: 'stream', to: c.name, topic, content });
      const row = org.db.prepare('SELECT topic, content FROM messages WHERE id = ?').get(res.id) as { topic: string; content: string };
      expect(row.topic).toBe(`${'é'.repeat(57)}...`);
      expect([...row.content]).toHaveLength(10000);
      expect(row.content.endsWith('\n[message truncated]')).toBe(true);
    });

    it('lets only subscribers post to a private channel, and a bot post where its owner may', async () => {
      const member = org.addUser();
      const c = await channel([], { invite_only: true });
      const e = await failure((await as(member)).call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'x' }));
      expect(e).toMatchObject({ msg: `Not authorized to send to channel '${c.name}'`, code: 'BAD_REQUEST' });
      const bot = org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
      const res = await (await as(bot)).call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'from the bot' });
      // The sender always keeps a copy, subscribed or not.
      expect(userMessage(bot.id, res.id)).toBeDefined();
    });

    it('lets guests post only to channels they are subscribed to', async () => {
      const guest = org.addUser({ role: 600 });
      const open = await channel([]);
      const e = await failure((await as(guest)).call(sendMessage, { type: 'stream', to: open.name, topic: 't', content: 'x' }));
      expect(e.msg).toBe(`Not authorized to send to channel '${open.name}'`);
      const mine = await channel([guest]);
      await (await as(guest)).call(sendMessage, { type: 'stream', to: mine.name, topic: 't', content: 'x' });
    });

    it('flags mentions, wildcard mentions and group-free silent mentions for the recipients', async () => {
      const mentioned = org.addUser({ name: unique('Mona Mention', '-') });
      const bystander = org.addUser();
      const c = await channel([mentioned, bystander]);
      const res = await owner.call(sendMessage, {
        type: 'stream',
        to: c.name,
        topic: 't',
        content: `hi @**${mentioned.row.full_name}** and @_**${bystander.row.full_name}**`,
      });
      expect(userMessage(mentioned.id, res.id)!.flags).toBe(8);
      expect(userMessage(bystander.id, res.id)!.flags).toBe(0);
      const all = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'ping @**all**' });
      const fetched = await (await as(bystander)).call(getMessages, { anchor: String(all.id), num_before: 0, num_after: 0 });
      expect(fetched.messages[0]!.flags.sort()).toEqual(['stream_wildcard_mentioned', 'wildcard_mentioned']);
    });

    it('marks the message read for its sender only when a Zulip app sends it, unless read_by_sender says otherwise', async () => {
      const c = await channel([]);
      const send = async (userAgent: string | undefined, extra: [string, string][] = []) => {
        const res = await rawRequest(org, kind, {
          method: 'POST',
          path: '/messages',
          headers: userAgent === undefined ? {} : { 'user-agent': userAgent },
          body: [['type', 'stream'], ['to', c.name], ['topic', 't'], ['content', 'x'], ...extra],
        });
        expect(res.status).toBe(200);
        const { id } = res.body as { id: number };
        const stored = org.db.prepare('SELECT client FROM messages WHERE id = ?').get(id) as { client: string };
        return { read: userMessage(org.owner.id, id)!.flags === 1, client: stored.client };
      };
      // zerver/models/clients.py default_read_by_sender: the client name comes from the User-Agent.
      expect(await send('ZulipMobile/27.192 (Android 14)')).toEqual({ read: true, client: 'ZulipMobile' });
      expect(await send('ZulipElectron/5.12.0 Mozilla/5.0')).toEqual({ read: true, client: 'ZulipElectron' });
      expect(await send('ZulipTerminal/0.7.0 Linux')).toEqual({ read: true, client: 'ZulipTerminal' });
      expect(await send('ZulipPython/0.9.0 (Ubuntu; 24.04)')).toEqual({ read: false, client: 'ZulipPython' });
      expect(await send('curl/8.5.0')).toEqual({ read: false, client: 'curl' });
      expect((await send(undefined)).read).toBe(false);
      expect((await send('ZulipMobile/27.192', [['read_by_sender', 'false']])).read).toBe(false);
      expect((await send('curl/8.5.0', [['read_by_sender', 'true']])).read).toBe(true);
    });
  });

  describe('GET /messages', () => {
    let c: { id: number; name: string };
    /** Notification Bot's creation message: the channel's first. */
    let created: number;
    let ids: number[];
    let reader: TestUser;
    beforeAll(async () => {
      reader = org.addUser({ name: unique('Rita Reader', '-') });
      c = await channel([reader]);
      created = firstMessageOf(c.id);
      ids = [];
      // Read for the owner, who has then nothing unread here (first_unread).
      for (let i = 0; i < 6; i++) {
        const content = `message ${i} https://example.com/${i}`;
        ids.push((await owner.call(sendMessage, { type: 'stream', to: c.name, topic: i < 3 ? 'first' : 'second', content, read_by_sender: true })).id);
      }
    });
    const inChannel = () => [{ operator: 'channel', operand: c.name }];

    it('walks back from newest, with found_newest and the large anchor', async () => {
      const res = await owner.call(getMessages, { anchor: 'newest', num_before: 3, num_after: 0, narrow: inChannel() });
      expect(openapiErrors('get', '/messages', 200, res)).toEqual([]);
      expect(res.messages.map((m) => m.id)).toEqual(ids.slice(3));
      expect(res).toMatchObject({ anchor: NEWEST, found_anchor: false, found_newest: true, found_oldest: false, history_limited: false });
    });

    it('walks forward from oldest and reports found_oldest and found_newest', async () => {
      const res = await owner.call(getMessages, { anchor: 'oldest', num_before: 0, num_after: 100, narrow: inChannel() });
      expect(res.messages.map((m) => m.id)).toEqual([created, ...ids]);
      expect(res).toMatchObject({ anchor: 0, found_oldest: true, found_newest: true, found_anchor: false });
    });

    it('centres on a message ID, with or without the anchor', async () => {
      const res = await owner.call(getMessages, { anchor: String(ids[2]), num_before: 1, num_after: 1, narrow: inChannel() });
      expect(res.messages.map((m) => m.id)).toEqual(ids.slice(1, 4));
      expect(res).toMatchObject({ anchor: ids[2], found_anchor: true, found_oldest: false, found_newest: false });
      const without = await owner.call(getMessages, { anchor: String(ids[2]), num_before: 0, num_after: 2, include_anchor: false, narrow: inChannel() });
      expect(without.messages.map((m) => m.id)).toEqual(ids.slice(3, 5));
      expect(without.found_anchor).toBe(false);
    });

    it('anchors first_unread at the oldest unread message, else at newest', async () => {
      const client = await as(reader);
      const res = await client.call(getMessages, { anchor: 'first_unread', num_before: 0, num_after: 1, narrow: inChannel() });
      // The reader has not read Notification Bot's creation message either; the owner, who created it, has.
      expect(res.anchor).toBe(created);
      const mine = await owner.call(getMessages, { anchor: 'first_unread', num_before: 1, num_after: 0, narrow: inChannel() });
      expect(mine.anchor).toBe(NEWEST);
      expect(mine.messages.map((m) => m.id)).toEqual([ids[5]]);
    });

    it('narrows by topic, sender, ID, search (with highlights), has:link and negation', async () => {
      const topic = await owner.call(getMessages, {
        anchor: 'oldest',
        num_before: 0,
        num_after: 10,
        narrow: [...inChannel(), { operator: 'topic', operand: 'FIRST' }],
      });
      expect(topic.messages.map((m) => m.id)).toEqual(ids.slice(0, 3));
      const notTopic = await owner.call(getMessages, {
        anchor: 'oldest',
        num_before: 0,
        num_after: 10,
        narrow: [...inChannel(), { operator: 'topic', operand: 'first', negated: true }],
      });
      expect(notTopic.messages.map((m) => m.id)).toEqual([created, ...ids.slice(3)]);
      const sender = await owner.call(getMessages, { anchor: 'oldest', num_before: 0, num_after: 10, narrow: [...inChannel(), ['sender', org.owner.email]] });
      expect(sender.messages).toHaveLength(6);
      const byId = await owner.call(getMessages, { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'id', operand: ids[4]! }] });
      expect(byId.messages.map((m) => m.id)).toEqual([ids[4]]);
      const search = await owner.call(getMessages, {
        anchor: 'newest',
        num_before: 10,
        num_after: 0,
        narrow: [...inChannel(), { operator: 'search', operand: 'MESSAGE 3' }],
      });
      expect(openapiErrors('get', '/messages', 200, search)).toEqual([]);
      expect(search.messages.map((m) => m.id)).toEqual([ids[3]]);
      expect(search.messages[0]!.match_content).toContain('<span class="highlight">message</span> <span class="highlight">3</span>');
      expect(search.messages[0]!.match_subject).toBe('second');
      const links = await owner.call(getMessages, {
        anchor: 'newest',
        num_before: 10,
        num_after: 0,
        narrow: [...inChannel(), { operator: 'has', operand: 'link' }],
      });
      expect(links.messages).toHaveLength(6);
    });

    it('narrows to a direct conversation and to is:dm, is:unread and is:mentioned', async () => {
      const peer = org.addUser({ name: unique('Pat Peer', '-') });
      const dm = await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([peer.id]), content: `hey @**${peer.row.full_name}**` });
      const client = await as(peer);
      const narrows: NarrowTerm[][] = [
        [{ operator: 'dm', operand: [org.owner.id] }],
        [{ operator: 'dm', operand: org.owner.email }],
        [['is', 'dm']],
        [['is', 'unread']],
        [['is', 'mentioned']],
      ];
      for (const narrow of narrows) {
        const res = await client.call(getMessages, { anchor: 'newest', num_before: 10, num_after: 0, narrow });
        expect(res.messages.map((m) => m.id)).toEqual([dm.id]);
      }
      const ownerView = await owner.call(getMessages, {
        anchor: 'newest',
        num_before: 10,
        num_after: 0,
        narrow: [{ operator: 'dm', operand: [peer.id] }, ['is', 'unread']],
      });
      // Sent by chatctl, not one of Zulip's apps: unread for its sender too.
      expect(ownerView.messages.map((m) => m.id)).toEqual([dm.id]);
    });

    it('shows the whole history of a public channel to a non-subscriber narrowed to it, flagged historical', async () => {
      const outsider = org.addUser();
      const client = await as(outsider);
      const narrowed = await client.call(getMessages, { anchor: 'oldest', num_before: 0, num_after: 10, narrow: inChannel() });
      expect(narrowed.messages.map((m) => m.id)).toEqual([created, ...ids]);
      expect(narrowed.messages[0]!.flags).toEqual(['read', 'historical']);
      const everything = await client.call(getMessages, { anchor: 'oldest', num_before: 0, num_after: 1000 });
      expect(everything.messages.filter((m) => m.stream_id === c.id)).toEqual([]);
      const guest = await as(org.addUser({ role: 600 }));
      const guestView = await guest.call(getMessages, { anchor: 'oldest', num_before: 0, num_after: 10, narrow: inChannel() });
      expect(guestView.messages).toEqual([]);
    });

    it("gives a reader of a channel's history the flags of the copies they have, however busy their own channels are between its messages", async () => {
      const reader = org.addUser();
      const quiet = await channel([]);
      const busy = await channel([reader]);
      const to = (c: { name: string }, content: string) => owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content });
      const q1 = (await to(quiet, 'one')).id;
      for (let i = 0; i < 20; i++) await to(busy, `busy ${i}`);
      const q2 = (await to(quiet, 'two')).id;
      await to(busy, 'busy again');
      const q3 = (await to(quiet, 'three')).id;
      const client = await as(reader);
      await client.call(updateMessageFlags, { messages: [q2], op: 'add', flag: 'starred' });
      const newest = async (n: number) =>
        (
          await client.call(getMessages, { anchor: 'newest', num_before: n, num_after: 0, narrow: [{ operator: 'channel', operand: quiet.name }] })
        ).messages.map((m) => [m.id, m.flags]);
      const plain = ['read', 'historical'];
      const starred = ['read', 'starred', 'historical'];
      // Two messages span few of the reader's copies, three span the busy channel's twenty: each read its own way.
      expect(await newest(2)).toEqual([
        [q2, starred],
        [q3, plain],
      ]);
      expect(await newest(3)).toEqual([
        [q1, plain],
        [q2, starred],
        [q3, plain],
      ]);
    });

    it('hides earlier messages of a channel with protected history from later subscribers', async () => {
      const early = org.addUser();
      const late = org.addUser();
      const secret = await channel([early], { invite_only: true, history_public_to_subscribers: false });
      const before = await owner.call(sendMessage, { type: 'stream', to: secret.name, topic: 't', content: 'before' });
      await owner.call(subscribe, { subscriptions: [{ name: secret.name }], principals: [late.id] });
      const after = await owner.call(sendMessage, { type: 'stream', to: secret.name, topic: 't', content: 'after' });
      const narrow = [{ operator: 'channel', operand: secret.id }];
      const lateView = await (await as(late)).call(getMessages, { anchor: 'oldest', num_before: 0, num_after: 10, narrow });
      expect(lateView.messages.map((m) => m.id)).toEqual([after.id]);
      const earlyView = await (await as(early)).call(getMessages, { anchor: 'oldest', num_before: 0, num_after: 10, narrow });
      expect(earlyView.messages.map((m) => m.id)).toEqual([firstMessageOf(secret.id), before.id, after.id]);
    });

    it('gives raw Markdown without apply_markdown, and avatar URLs unless client_gravatar', async () => {
      const res = await owner.call(getMessages, { anchor: String(ids[0]), num_before: 0, num_after: 0, apply_markdown: false });
      expect(res.messages[0]).toMatchObject({ content: 'message 0 https://example.com/0', content_type: 'text/x-markdown', avatar_url: null });
      const html = await owner.call(getMessages, { anchor: String(ids[0]), num_before: 0, num_after: 0, client_gravatar: false });
      expect(html.messages[0]!.content).toBe('<p>message 0 <a href="https://example.com/0">https://example.com/0</a></p>');
      expect(html.messages[0]!.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\//);
    });

    it("keeps a sender's avatar URL under client_gravatar unless everyone may see the sender's address, whoever asks", async () => {
      const member = org.addUser();
      const bot = org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
      const c = await channel([member]);
      const sent: number[] = [];
      for (const from of [await as(member), owner, await as(bot)])
        sent.push((await from.call(sendMessage, { type: 'stream', to: c.name, topic: 'avatars', content: 'hi' })).id);
      const avatars = async (viewer: ChatClient) =>
        (await viewer.call(getMessages, { message_ids: sent, client_gravatar: true })).messages.map((m) => m.avatar_url);
      const gravatar = expect.stringMatching(/^https:\/\/secure\.gravatar\.com\/avatar\//);
      expect(await avatars(await as(member))).toEqual([null, null, null]);
      setSetting(org.db, 'email_address_visibility', 3);
      try {
        // zerver/lib/message_cache.py finalize_payload: client_gravatar is dropped for a sender whose
        // email_address_visibility is not "everyone" (a bot's always is), the caller's own messages and an
        // administrator's reading included.
        expect(await avatars(await as(member))).toEqual([gravatar, gravatar, null]);
        expect(await avatars(owner)).toEqual([gravatar, gravatar, null]);
      } finally {
        setSetting(org.db, 'email_address_visibility', 1);
      }
    });

    it('fetches exact message IDs without range fields', async () => {
      const res = await owner.call(getMessages, { message_ids: [ids[1]!, ids[4]!, 99999] });
      expect(res.messages.map((m) => m.id)).toEqual([ids[1], ids[4]]);
      expect(res).not.toHaveProperty('anchor');
      const both = await failure(owner.call(getMessages, { message_ids: [ids[1]!], anchor: 'newest' }));
      expect(both).toMatchObject({ msg: 'Unsupported parameter combination: anchor, message_ids', extra: { parameters: ['anchor', 'message_ids'] } });
    });

    it.each([
      [
        'no anchor',
        [
          ['num_before', '1'],
          ['num_after', '1'],
        ],
        "Missing 'anchor' argument.",
        'BAD_REQUEST',
      ],
      [
        'a word anchor',
        [
          ['anchor', 'latest'],
          ['num_before', '1'],
        ],
        'Invalid anchor',
        'BAD_REQUEST',
      ],
      [
        'too many messages',
        [
          ['anchor', 'newest'],
          ['num_before', '4000'],
          ['num_after', '1001'],
        ],
        'Too many messages requested (maximum 5000).',
        'BAD_REQUEST',
      ],
      [
        'an excluded anchor in the middle',
        [
          ['anchor', '5'],
          ['num_before', '1'],
          ['num_after', '1'],
          ['include_anchor', 'false'],
        ],
        'The anchor can only be excluded at an end of the range',
        'BAD_REQUEST',
      ],
      [
        'a negative count',
        [
          ['anchor', 'newest'],
          ['num_before', '-1'],
        ],
        'num_before is too small',
        'BAD_REQUEST',
      ],
      [
        'an unknown operator',
        [
          ['anchor', 'newest'],
          ['narrow', '[{"operator":"color","operand":"red"}]'],
        ],
        'Invalid narrow operator: unknown operator color',
        'BAD_NARROW',
      ],
      [
        'an unknown channel',
        [
          ['anchor', 'newest'],
          ['narrow', '[["channel","nope"]]'],
        ],
        'Invalid narrow operator: unknown channel nope',
        'BAD_NARROW',
      ],
      [
        'an unknown sender',
        [
          ['anchor', 'newest'],
          ['narrow', '[{"operator":"sender","operand":424242}]'],
        ],
        'Invalid narrow operator: unknown user 424242',
        'BAD_NARROW',
      ],
      [
        'an unknown is operand',
        [
          ['anchor', 'newest'],
          ['narrow', '[["is","loud"]]'],
        ],
        "Invalid narrow operator: unknown 'is' operand loud",
        'BAD_NARROW',
      ],
      [
        'a channel and a dm term',
        [
          ['anchor', 'newest'],
          ['narrow', '[["channel","general"],["is","dm"]]'],
        ],
        'Invalid narrow operator: No message can be both a channel message and direct message',
        'BAD_NARROW',
      ],
      [
        'a malformed term',
        [
          ['anchor', 'newest'],
          ['narrow', '[["channel"]]'],
        ],
        'Invalid narrow[0]: Value error, element is not a string pair',
        'BAD_REQUEST',
      ],
      [
        'a non-string operand',
        [
          ['anchor', 'newest'],
          ['narrow', '[{"operator":"topic","operand":5}]'],
        ],
        'operand is not a string',
        'BAD_REQUEST',
      ],
    ])('refuses %s', async (_name, query, msg, code) => {
      const res = await rawRequest(org, kind, { method: 'GET', path: '/messages', query: query as [string, string][] });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ result: 'error', msg, code });
    });

    it('reports the description of a bad narrow in the desc field', async () => {
      const res = await rawRequest(org, kind, {
        method: 'GET',
        path: '/messages',
        query: [
          ['anchor', 'newest'],
          ['narrow', '[["has","sparkle"]]'],
        ],
      });
      expect(res.body).toEqual({
        result: 'error',
        msg: "Invalid narrow operator: unknown 'has' operand sparkle",
        code: 'BAD_NARROW',
        desc: "unknown 'has' operand sparkle",
      });
    });
  });

  describe('GET /messages/{message_id}', () => {
    it('gives one message with its raw content and the reader’s flags', async () => {
      const c = await channel([]);
      const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: '**bold**' });
      const res = await owner.call(getMessage, { message_id: sent.id });
      expect(openapiErrors('get', '/messages/{message_id}', 200, res)).toEqual([]);
      expect(res.raw_content).toBe('**bold**');
      // Sent by chatctl, not one of Zulip's apps: unread for its sender.
      expect(res.message).toMatchObject({ id: sent.id, content: '<p><strong>bold</strong></p>', flags: [] });
    });

    it('answers Invalid message(s) for a conversation the caller is not in, and for no message', async () => {
      const a = org.addUser();
      const dm = await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([a.id]), content: 'private' });
      const stranger = await as(org.addUser());
      for (const id of [dm.id, 99999]) {
        const e = await failure(stranger.call(getMessage, { message_id: id }));
        expect(e).toMatchObject({ msg: 'Invalid message(s)', code: 'BAD_REQUEST', status: 400 });
      }
    });
  });

  describe('POST /messages/render', () => {
    it('renders Markdown as the server would store it', async () => {
      const res = await owner.call(renderMessage, { content: '**foo** <b>raw</b>' });
      expect(openapiErrors('post', '/messages/render', 200, res)).toEqual([]);
      expect(res.rendered).toBe('<p><strong>foo</strong> &lt;b&gt;raw&lt;/b&gt;</p>');
    });
  });

  it('follows the organization’s display name for the empty topic', async () => {
    const c = await channel([]);
    setSetting(org.db, 'empty_topic_display_name', 'misc');
    try {
      const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'misc', content: 'x' });
      const res = await owner.call(getMessages, { anchor: String(sent.id), num_before: 0, num_after: 0 });
      expect(res.messages[0]!.subject).toBe('misc');
      expect((org.db.prepare('SELECT topic FROM messages WHERE id = ?').get(sent.id) as { topic: string }).topic).toBe('');
    } finally {
      setSetting(org.db, 'empty_topic_display_name', 'general chat');
    }
  });
});
