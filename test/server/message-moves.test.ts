/**
 * Who may move messages to another topic or channel, and until when: the organization's group settings and
 * time limits, with today's Zulip defaults (members rename topics for a week, moderators without limit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register } from '../../src/api/operations/events.js';
import { sendMessage, updateMessage } from '../../src/api/operations/messages.js';
import type { ChatClient } from '../../src/client/client.js';
import { setSetting, type RealmKey, type RealmSettings } from '../../src/server/model/realm.js';
import type { GroupSettingName, SystemGroupName } from '../../src/api/realm-settings.js';
import { setGroupSetting } from '../helpers/realm-settings.js';
import { bad, flatFailure, flatFailureWithExtra } from '../helpers/api.js';
import { ownerChannel } from '../helpers/channels.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

const WEEK = 7 * 24 * 3600;
/** Past the week and Zulip's 20 seconds of grace. */
const PAST_LIMIT = WEEK + 21;

describe.each(TRANSPORTS)('moving messages over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const topicOf = (id: number) => (org.db.prepare('SELECT topic FROM messages WHERE id = ?').get(id) as { topic: string }).topic;
  const channelOf = (id: number) => (org.db.prepare('SELECT stream_id FROM messages WHERE id = ?').get(id) as { stream_id: number }).stream_id;

  /** Runs `fn` with a group-valued organization setting changed, then puts the default back. */
  async function withGroupSetting(name: GroupSettingName, group: SystemGroupName, fn: () => Promise<void>): Promise<void> {
    setGroupSetting(org.db, name, group);
    try {
      await fn();
    } finally {
      setGroupSetting(org.db, name, null);
    }
  }

  /** Runs `fn` with an organization setting changed, then puts the default back. */
  async function withSetting<K extends RealmKey>(key: K, value: RealmSettings[K], fn: () => Promise<void>): Promise<void> {
    setSetting(org.db, key, value);
    try {
      await fn();
    } finally {
      org.db.prepare('DELETE FROM realm_settings WHERE key = ?').run(key);
    }
  }

  it('lets a member rename the topic of someone else’s message for a week; moderators have no limit', async () => {
    const member = org.addUser();
    const moderator = org.addUser({ role: 300 });
    const c = await ownerChannel(org, owner, [member, moderator]);
    const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'typo', content: 'hello' });
    const res = await (await as(member)).call(updateMessage, { message_id: sent.id, topic: 'fixed' });
    expect(openapiErrors('patch', '/messages/{message_id}', 200, res)).toEqual([]);
    expect(topicOf(sent.id)).toBe('fixed');

    org.clock.advance(PAST_LIMIT);
    expect(await flatFailure((await as(member)).call(updateMessage, { message_id: sent.id, topic: 'late' }))).toEqual(
      bad("The time limit for editing this message's topic has passed."),
    );
    expect(topicOf(sent.id)).toBe('fixed');
    await (await as(moderator)).call(updateMessage, { message_id: sent.id, topic: 'by a moderator' });
    expect(topicOf(sent.id)).toBe('by a moderator');
    await withSetting('move_messages_within_stream_limit_seconds', null, async () => {
      await (await as(member)).call(updateMessage, { message_id: sent.id, topic: 'no limit' });
      expect(topicOf(sent.id)).toBe('no limit');
    });
  });

  it('follows can_move_messages_between_topics_group', async () => {
    const member = org.addUser();
    const c = await ownerChannel(org, owner, [member]);
    const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'kept', content: 'hello' });
    await withGroupSetting('can_move_messages_between_topics_group', 'role:moderators', async () => {
      expect(await flatFailure((await as(member)).call(updateMessage, { message_id: sent.id, topic: 'moved' }))).toEqual(
        bad("You don't have permission to edit this message"),
      );
    });
    expect(topicOf(sent.id)).toBe('kept');
  });

  it('lets members resolve topics without time limit, as can_resolve_topics_group says', async () => {
    const member = org.addUser();
    const c = await ownerChannel(org, owner, [member]);
    const sent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'question', content: 'how?' });
    org.clock.advance(PAST_LIMIT);
    await (await as(member)).call(updateMessage, { message_id: sent.id, topic: '✔ question', propagate_mode: 'change_all' });
    expect(topicOf(sent.id)).toBe('✔ question');
    await withGroupSetting('can_resolve_topics_group', 'role:moderators', async () => {
      expect(await flatFailure((await as(member)).call(updateMessage, { message_id: sent.id, topic: 'question' }))).toEqual(
        bad("You don't have permission to resolve topics in this channel."),
      );
    });
    expect(await flatFailure((await as(member)).call(updateMessage, { message_id: sent.id, topic: '✔ general chat' }))).toEqual(
      bad('General chat cannot be marked as resolved'),
    );
  });

  it('lets members move messages to another channel for a week, as can_move_messages_between_channels_group says', async () => {
    const member = org.addUser();
    const from = await ownerChannel(org, owner, [member]);
    const to = await ownerChannel(org, owner, [member]);
    const first = await owner.call(sendMessage, { type: 'stream', to: from.name, topic: 't', content: 'one' });
    await (await as(member)).call(updateMessage, { message_id: first.id, stream_id: to.id });
    expect(channelOf(first.id)).toBe(to.id);

    const second = await owner.call(sendMessage, { type: 'stream', to: from.name, topic: 't', content: 'two' });
    await withGroupSetting('can_move_messages_between_channels_group', 'role:moderators', async () => {
      expect(await flatFailure((await as(member)).call(updateMessage, { message_id: second.id, stream_id: to.id }))).toEqual(
        bad("You don't have permission to move this message"),
      );
    });
    org.clock.advance(PAST_LIMIT);
    expect(await flatFailure((await as(member)).call(updateMessage, { message_id: second.id, stream_id: to.id }))).toEqual(
      bad("The time limit for editing this message's channel has passed"),
    );
    expect(channelOf(second.id)).toBe(from.id);
    await owner.call(updateMessage, { message_id: second.id, stream_id: to.id });
    expect(channelOf(second.id)).toBe(to.id);
  });

  it('refuses a member’s change_all move that would take messages past the limit, saying how many could move', async () => {
    const member = org.addUser();
    const c = await ownerChannel(org, owner, [member]);
    const old = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'long', content: 'old' });
    org.clock.advance(PAST_LIMIT);
    const recent = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'long', content: 'recent' });
    const newer = await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 'long', content: 'newer' });
    const refused = await flatFailureWithExtra(
      (await as(member)).call(updateMessage, { message_id: recent.id, topic: 'renamed', propagate_mode: 'change_all' }),
    );
    expect(refused).toEqual({
      msg: 'You only have permission to move the 2/3 most recent messages in this topic.',
      code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      status: 400,
      first_message_id_allowed_to_move: recent.id,
      total_messages_in_topic: 3,
      total_messages_allowed_to_move: 2,
    });
    expect([old.id, recent.id, newer.id].map(topicOf)).toEqual(['long', 'long', 'long']);
    await (await as(member)).call(updateMessage, { message_id: recent.id, topic: 'renamed', propagate_mode: 'change_later' });
    expect([old.id, recent.id, newer.id].map(topicOf)).toEqual(['long', 'renamed', 'renamed']);
  });

  it('reports the settings in /register', async () => {
    const state = await owner.call(register, { fetch_event_types: ['realm'] });
    const everyone = org.db.prepare("SELECT id FROM user_groups WHERE name = 'role:everyone'").pluck().get();
    const members = org.db.prepare("SELECT id FROM user_groups WHERE name = 'role:members'").pluck().get();
    expect(state).toMatchObject({
      realm_can_move_messages_between_topics_group: everyone,
      realm_can_resolve_topics_group: everyone,
      realm_can_move_messages_between_channels_group: members,
      realm_move_messages_within_stream_limit_seconds: WEEK,
      realm_move_messages_between_streams_limit_seconds: WEEK,
    });
  });
});
