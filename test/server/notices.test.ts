/**
 * Notification Bot and Welcome Bot, as a Zulip server sends their messages (zerver/views/streams.py
 * send_messages_for_new_subscribers, zerver/actions/create_user.py process_new_human_user,
 * zerver/lib/onboarding.py), and the system bots as clients meet them (cross_realm_bots, not organization users).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel, getStream, subscribe } from '../../src/api/operations/channels.js';
import { register } from '../../src/api/operations/events.js';
import { getMessages, type NarrowTerm } from '../../src/api/operations/messages.js';
import { createUser, getUser, getUsers } from '../../src/api/operations/users.js';
import type { ChatClient } from '../../src/client/client.js';
import { setSetting } from '../../src/server/model/realm.js';
import { failure } from '../helpers/api.js';
import { streamId } from '../helpers/channels.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

const NOTIFICATION_BOT = 'notification-bot@zulip.com';
const WELCOME_BOT = 'welcome-bot@zulip.com';

describe.each(TRANSPORTS)('notices over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const ownerMention = () => `@_**${org.owner.row.full_name}|${org.owner.id}**`;
  const idOf = (email: string): number => org.db.prepare('SELECT id FROM users WHERE email = ?').pluck().get(email) as number;

  /** The messages `client` sees in a narrow, oldest first, as Markdown. */
  const messagesIn = async (client: ChatClient, narrow: NarrowTerm[]) => {
    const res = await client.call(getMessages, { anchor: 'oldest', num_before: 0, num_after: 100, narrow, apply_markdown: false });
    expect(openapiErrors('get', '/messages', 200, res)).toEqual([]);
    return res.messages;
  };
  const dmsFrom = (client: ChatClient, botEmail: string) => messagesIn(client, [{ operator: 'dm', operand: [idOf(botEmail)] }]);

  describe('a new channel', () => {
    it('starts with Notification Bot\'s creation message in "channel events": first_message_id is set, read for its creator', async () => {
      const member = org.addUser();
      const name = unique('created');
      const res = await owner.call(subscribe, { subscriptions: [{ name, description: 'All about things' }], principals: [org.owner.id, member.id] });
      expect(openapiErrors('post', '/users/me/subscriptions', 200, res)).toEqual([]);
      const id = streamId(org, name);
      const [first, ...others] = await messagesIn(owner, [{ operator: 'channel', operand: id }]);
      expect(others).toEqual([]);
      expect(first).toMatchObject({
        sender_email: NOTIFICATION_BOT,
        sender_full_name: 'Notification Bot',
        subject: 'channel events',
        content: `**Public** channel created by ${ownerMention()}. **Description:**\n\`\`\`\` quote\nAll about things\n\`\`\`\``,
        flags: ['read'],
      });
      const { stream } = await owner.call(getStream, { stream_id: id });
      expect(stream.first_message_id).toBe(first!.id);
      // Others subscribed as it is created learn of it from the channel, unread, and get no direct message.
      const [seen] = await messagesIn(await as(member), [{ operator: 'channel', operand: id }]);
      expect(seen).toMatchObject({ id: first!.id, flags: [] });
      expect(await dmsFrom(await as(member), NOTIFICATION_BOT)).toEqual([]);
    });

    it('names the privacy of a private channel and says when it has no description', async () => {
      const protectedName = unique('secret');
      const sharedName = unique('shared');
      await owner.call(subscribe, { subscriptions: [{ name: protectedName }], invite_only: true });
      await owner.call(subscribe, { subscriptions: [{ name: sharedName }], invite_only: true, history_public_to_subscribers: true });
      const contentOf = async (name: string) => {
        const id = streamId(org, name);
        return (await messagesIn(owner, [{ operator: 'channel', operand: id }]))[0]!.content;
      };
      expect(await contentOf(protectedName)).toBe(
        `**Private, protected history** channel created by ${ownerMention()}. **Description:**\n\`\`\`\` quote\n*No description.*\n\`\`\`\``,
      );
      expect(await contentOf(sharedName)).toMatch(/^\*\*Private, shared history\*\* channel created by /);
    });

    it('POST /channels/create posts it too, and tells nobody it subscribed', async () => {
      const member = org.addUser();
      const name = unique('made');
      const res = await owner.call(createChannel, { name, subscribers: [member.id] });
      const messages = await messagesIn(owner, [{ operator: 'channel', operand: res.id }]);
      expect(messages.map((m) => [m.sender_email, m.subject])).toEqual([[NOTIFICATION_BOT, 'channel events']]);
      expect(await dmsFrom(await as(member), NOTIFICATION_BOT)).toEqual([]);
    });

    it('gets none when the organization turns channel events messages off', async () => {
      setSetting(org.db, 'send_channel_events_messages', false);
      try {
        const res = await owner.call(createChannel, { name: unique('quiet'), subscribers: [org.owner.id] });
        expect(await messagesIn(owner, [{ operator: 'channel', operand: res.id }])).toEqual([]);
        expect((await owner.call(getStream, { stream_id: res.id })).stream.first_message_id).toBeNull();
      } finally {
        setSetting(org.db, 'send_channel_events_messages', true);
      }
    });

    it('is announced in "new channels" of the announcements channel with announce, unless that setting names none', async () => {
      const general = streamId(org, 'general');
      const announcements = [
        { operator: 'channel', operand: general },
        { operator: 'topic', operand: 'new channels' },
      ] as NarrowTerm[];
      const before = (await messagesIn(owner, announcements)).length;
      const one = unique('announced');
      await owner.call(subscribe, { subscriptions: [{ name: one }], announce: true });
      const a = unique('pair');
      const b = unique('pair');
      await owner.call(subscribe, { subscriptions: [{ name: a }, { name: b }], announce: true });
      await owner.call(subscribe, { subscriptions: [{ name: unique('unannounced') }] });
      const link = (name: string) => `#**${name}**`;
      expect((await messagesIn(owner, announcements)).slice(before).map((m) => [m.sender_email, m.content])).toEqual([
        [NOTIFICATION_BOT, `${ownerMention()} created a new channel ${link(one)}.`],
        [NOTIFICATION_BOT, `${ownerMention()} created the following channels: ${link(a)}, ${link(b)}.`],
      ]);
      setSetting(org.db, 'new_stream_announcements_stream_id', null);
      try {
        await owner.call(subscribe, { subscriptions: [{ name: unique('nowhere') }], announce: true });
        expect(await messagesIn(owner, announcements)).toHaveLength(before + 2);
      } finally {
        setSetting(org.db, 'new_stream_announcements_stream_id', general);
      }
    });
  });

  describe('subscribing someone else', () => {
    it('sends them a direct message naming the channels that already existed, one or a list', async () => {
      const a = org.addUser();
      const one = unique('one');
      const [x, y] = [unique('x'), unique('y')];
      await owner.call(subscribe, { subscriptions: [{ name: one }, { name: x }, { name: y }] });
      const res = await owner.call(subscribe, { subscriptions: [{ name: one }], principals: [a.id] });
      expect(res.new_subscription_messages_sent).toBe(true);
      const fresh = unique('fresh');
      await owner.call(subscribe, { subscriptions: [{ name: y }, { name: x }, { name: fresh }], principals: [a.id] });
      const dms = await dmsFrom(await as(a), NOTIFICATION_BOT);
      expect(dms.map((m) => [m.sender_full_name, m.content, m.flags])).toEqual([
        ['Notification Bot', `${ownerMention()} subscribed you to #**${one}**.`, []],
        // The channel this request created is left out: its creation message tells of it.
        ['Notification Bot', `${ownerMention()} subscribed you to the following channels:\n\n* #**${x}**\n* #**${y}**`, []],
      ]);
    });

    it('links a private channel the acting user may see', async () => {
      const a = org.addUser();
      const name = unique('hidden');
      await owner.call(subscribe, { subscriptions: [{ name }], invite_only: true });
      await owner.call(subscribe, { subscriptions: [{ name }], principals: [a.id] });
      const res = await (await as(a)).call(getMessages, {
        anchor: 'newest',
        num_before: 1,
        num_after: 0,
        narrow: [{ operator: 'dm', operand: [idOf(NOTIFICATION_BOT)] }],
      });
      expect(res.messages[0]!.content).toContain('<a class="stream" data-stream-id=');
    });

    it('tells neither oneself nor bots, nor anyone when the request asks not to or subscribes more than 100 users', async () => {
      const bot = org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
      const name = unique('quiet');
      await owner.call(subscribe, { subscriptions: [{ name }] });
      const quiet = org.addUser();
      const res = await owner.call(subscribe, {
        subscriptions: [{ name }],
        principals: [org.owner.id, bot.id, quiet.id],
        send_new_subscription_messages: false,
      });
      expect(res).not.toHaveProperty('new_subscription_messages_sent');
      expect(await dmsFrom(await as(quiet), NOTIFICATION_BOT)).toEqual([]);
      const botDms = org.db.prepare('SELECT count(*) FROM user_messages WHERE user_id = ?').pluck().get(bot.id);
      expect(botDms).toBe(0);

      const many = Array.from({ length: 101 }, () => org.addUser());
      const bulk = await owner.call(subscribe, { subscriptions: [{ name: unique('crowd') }, { name }], principals: many.map((u) => u.id) });
      expect(bulk.new_subscription_messages_sent).toBe(false);
      expect(await dmsFrom(await as(many[0]!), NOTIFICATION_BOT)).toEqual([]);
      const hundred = Array.from({ length: 100 }, () => org.addUser());
      const allowed = await owner.call(subscribe, { subscriptions: [{ name }], principals: hundred.map((u) => u.id) });
      expect(allowed.new_subscription_messages_sent).toBe(true);
      expect(await dmsFrom(await as(hundred[99]!), NOTIFICATION_BOT)).toHaveLength(1);
    });
  });

  describe('a new user', () => {
    it("made with POST /users gets Welcome Bot's direct message, and is announced where signups are", async () => {
      const general = streamId(org, 'general');
      const signups = [
        { operator: 'channel', operand: general },
        { operator: 'topic', operand: 'signups' },
      ] as NarrowTerm[];
      const email = `${unique('newbie', '-')}@example.com`;
      const { user_id } = await owner.call(createUser, { email, password: 'a-long-password-1', full_name: 'New Bie' });
      // A new organization announces signups nowhere (it has no private channel for them).
      expect(await messagesIn(owner, signups)).toEqual([]);
      const newbie = await clientFor(org, kind, { email, apiKey: org.db.prepare('SELECT api_key FROM users WHERE id = ?').pluck().get(user_id) as string });
      const [welcome, ...more] = await dmsFrom(newbie, WELCOME_BOT);
      expect(more).toEqual([]);
      expect(welcome).toMatchObject({ sender_full_name: 'Welcome Bot', flags: [] });
      expect(welcome!.content).toMatch(/^Hello, and welcome to Zulip!👋 This is a direct message from me, Welcome Bot\.\n\n/);
      expect(welcome!.content).toContain('/help/getting-started-with-zulip)!');
      expect(welcome!.content).not.toContain('Setting up your organization');

      setSetting(org.db, 'signup_announcements_stream_id', general);
      try {
        const next = await owner.call(createUser, { email: `${unique('second', '-')}@example.com`, password: 'a-long-password-1', full_name: 'Sec Ond' });
        expect((await messagesIn(owner, signups)).map((m) => [m.sender_email, m.content])).toEqual([
          [NOTIFICATION_BOT, `@_**Sec Ond|${next.user_id}** joined this organization.`],
        ]);
      } finally {
        setSetting(org.db, 'signup_announcements_stream_id', null);
      }
    });

    it('the owner who created the organization was welcomed, with the guide for setting it up', async () => {
      const [welcome] = await dmsFrom(owner, WELCOME_BOT);
      expect(welcome!.content).toContain('We also have a guide for [Setting up your organization]');
    });
  });

  describe('the system bots', () => {
    it('are no users of the organization: POST /register lists them in cross_realm_bots', async () => {
      const { members } = await owner.call(getUsers, {});
      expect(members.map((u) => u.email)).not.toContain(NOTIFICATION_BOT);
      expect((await failure(owner.call(getUser, { user_id: idOf(NOTIFICATION_BOT) }))).msg).toBe('No such user');
      const state = await owner.call(register, { fetch_event_types: ['realm_user'] });
      expect(openapiErrors('post', '/register', 200, state)).toEqual([]);
      expect((state.realm_users as { email: string }[]).map((u) => u.email)).not.toContain(WELCOME_BOT);
      const bots = state.cross_realm_bots as { email: string; full_name: string; is_system_bot: boolean; bot_owner_id: null; avatar_url: string }[];
      expect(bots.map((b) => [b.email, b.full_name, b.is_system_bot, b.bot_owner_id])).toEqual([
        [NOTIFICATION_BOT, 'Notification Bot', true, null],
        [WELCOME_BOT, 'Welcome Bot', true, null],
        ['emailgateway@zulip.com', 'Email Gateway', true, null],
      ]);
      expect(bots[0]!.avatar_url).toMatch(/\/static\/images\/static_avatars\/notification-bot\.png$/);
    });

    it("take no organization's credentials, even the key of their own row", async () => {
      const key = org.db.prepare('SELECT api_key FROM users WHERE email = ?').pluck().get(NOTIFICATION_BOT) as string;
      const authorization = `Basic ${Buffer.from(`${NOTIFICATION_BOT}:${key}`).toString('base64')}`;
      const res = await rawRequest(org, kind, { method: 'GET', path: '/users/me', headers: { authorization } }, null);
      expect([res.status, (res.body as { msg: string }).msg]).toEqual([401, 'Invalid API key']);
    });
  });
});
