/**
 * Requests shaped for a server's feature level, from what the catalogue declares: each adaptation just
 * below and at the level where it changes, and what a server cannot do refused before anything is sent.
 * The client under test is the real one with a cached level and a transport that records what reaches it.
 */
import { describe, expect, it } from 'vitest';
import type { NarrowTerm } from '../../src/api/narrow.js';
import type { CallParamsOf, Operation } from '../../src/api/operation.js';
import { getUserGroups, updateUserGroupMembers, createUserGroup } from '../../src/api/operations/groups.js';
import { sendInvites, createInviteLink } from '../../src/api/operations/invites.js';
import { addLinkifier, updateLinkifier } from '../../src/api/operations/linkifiers.js';
import { getMessage, getMessages, sendMessage, updateMessageFlagsForNarrow } from '../../src/api/operations/messages.js';
import { updatePresence } from '../../src/api/operations/presence.js';
import { createChannel, getStreams, subscribe, updateStream, updateUserTopic } from '../../src/api/operations/channels.js';
import { register } from '../../src/api/operations/events.js';
import { updateRealm } from '../../src/api/operations/server.js';
import { setMessageEditTypingStatus, setTypingStatus } from '../../src/api/operations/typing.js';
import { getUsers, updateUser } from '../../src/api/operations/users.js';
import type { WireRequest, WireResponse } from '../../src/api/wire.js';
import { ChatClient } from '../../src/client/client.js';
import { dependsOnLevel } from '../../src/client/shape.js';
import { FeatureCache, FeatureLevelError } from '../../src/client/features.js';
import type { Transport } from '../../src/client/transport.js';

/** A server at a feature level (what GET /server_settings says) that records every other request. */
class Recorder implements Transport {
  readonly target = 'http://old.test';
  readonly kind = 'http' as const;
  readonly sent: WireRequest[] = [];
  level = 0;
  constructor(private readonly answer: (req: WireRequest) => unknown = () => ({})) {}
  async send(req: WireRequest): Promise<WireResponse> {
    if (req.path === '/server_settings') return { status: 200, headers: {}, body: { result: 'success', msg: '', zulip_feature_level: this.level } };
    this.sent.push(req);
    return { status: 200, headers: {}, body: { result: 'success', msg: '', ...(this.answer(req) as object) } };
  }
  async close(): Promise<void> {}
}

const NOW = 1_760_000_000_000;
/** A client whose profile cached `level` a minute ago, of a server still at that level. */
function clientAt(level: number, transport = new Recorder()): ChatClient {
  transport.level = level;
  return new ChatClient(
    transport,
    null,
    {},
    { features: new FeatureCache({ gate: true, nowMs: () => NOW, cached: { featureLevel: level, checkedAt: NOW / 1000 - 60 } }) },
  );
}

/** What a call would send at `level`: method, path and parameters of each request. */
async function at<O extends Operation>(level: number, op: O, params: CallParamsOf<O>, labels?: Record<string, string>) {
  const reqs = await clientAt(level).prepare(op, params, { labels });
  return reqs.map((r) => ({ method: r.method, path: r.path, params: Object.fromEntries([...r.query, ...r.body]) }));
}

const refusal = async (promise: Promise<unknown>): Promise<string> => {
  const e = await promise.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(FeatureLevelError);
  return (e as Error).message;
};

describe('operations that moved or changed shape', () => {
  it('topic policies: POST /user_topics from 170; before, muted_topics with add/remove, and no following', async () => {
    expect(await at(170, updateUserTopic, { stream_id: 3, topic: 'x', visibility_policy: 3 })).toEqual([
      { method: 'POST', path: '/user_topics', params: { stream_id: '3', topic: 'x', visibility_policy: '3' } },
    ]);
    expect(await at(169, updateUserTopic, { stream_id: 3, topic: 'x', visibility_policy: 1 })).toEqual([
      { method: 'PATCH', path: '/users/me/subscriptions/muted_topics', params: { stream_id: '3', topic: 'x', op: 'add' } },
    ]);
    expect(await at(169, updateUserTopic, { stream_id: 3, topic: 'x', visibility_policy: 0 })).toMatchObject([{ params: { op: 'remove' } }]);
    expect(await refusal(at(169, updateUserTopic, { stream_id: 3, topic: 'x', visibility_policy: 3 }))).toBe(
      'following a topic needs feature level ≥ 170 (server has 169)',
    );
  });

  it('topic policies in the state: user_topic from 170; before, muted_topics read as muted policies by channel ID', async () => {
    const state = { event_types: ['user_topic'], fetch_event_types: ['user_topic'] };
    expect(await at(170, register, state)).toMatchObject([{ params: { event_types: '["user_topic"]', fetch_event_types: '["user_topic"]' } }]);
    expect(await at(169, register, state)).toMatchObject([{ params: { event_types: '["muted_topics"]', fetch_event_types: '["muted_topics"]' } }]);
    // Only a registration that asks for topic policies waits for the level.
    expect(dependsOnLevel(register, { fetch_event_types: ['realm_user'] })).toBe(false);
    const client = clientAt(
      169,
      new Recorder((req) =>
        req.path === '/register'
          ? {
              muted_topics: [
                ['general', 'noise', 5],
                ['gone', 'x', 6],
              ],
            }
          : { streams: [{ stream_id: 7, name: 'general' }] },
      ),
    );
    expect((await client.call(register, state)).user_topics).toEqual([{ stream_id: 7, topic_name: 'noise', last_updated: 5, visibility_policy: 1 }]);
  });

  it('typing while editing: /messages/{id}/typing from 361, /message_edit_typing from 351, none before', async () => {
    expect(await at(361, setMessageEditTypingStatus, { message_id: 9, op: 'start' })).toEqual([
      { method: 'POST', path: '/messages/9/typing', params: { op: 'start' } },
    ]);
    expect(await at(360, setMessageEditTypingStatus, { message_id: 9, op: 'start' })).toEqual([
      { method: 'POST', path: '/message_edit_typing', params: { message_id: '9', op: 'start' } },
    ]);
    expect(await refusal(at(350, setMessageEditTypingStatus, { message_id: 9, op: 'start' }))).toBe(
      'set-message-edit-typing-status-before-361 needs feature level ≥ 351 (server has 350)',
    );
  });

  it('users by ID: filtered by the server from 384, by the client before (unknown IDs left out silently)', async () => {
    expect(await at(384, getUsers, { user_ids: [8] })).toEqual([{ method: 'GET', path: '/users', params: { user_ids: '[8]' } }]);
    expect(await at(383, getUsers, { user_ids: [8] })).toEqual([{ method: 'GET', path: '/users', params: {} }]);
    const members = [{ user_id: 7 }, { user_id: 8 }];
    const { members: got } = await clientAt(383, new Recorder(() => ({ members }))).call(getUsers, { user_ids: [8, 99] });
    expect(got).toEqual([{ user_id: 8 }]);
  });

  it('subgroups: in the members request from 311, through /subgroups before; create refuses them', async () => {
    const params = { user_group_id: 4, add: [1], add_subgroups: [5], delete_subgroups: [6] };
    expect(await at(311, updateUserGroupMembers, params)).toEqual([
      { method: 'POST', path: '/user_groups/4/members', params: { add: '[1]', add_subgroups: '[5]', delete_subgroups: '[6]' } },
    ]);
    expect(await at(310, updateUserGroupMembers, params)).toEqual([
      { method: 'POST', path: '/user_groups/4/members', params: { add: '[1]' } },
      { method: 'POST', path: '/user_groups/4/subgroups', params: { add: '[5]', delete: '[6]' } },
    ]);
    expect(await at(310, updateUserGroupMembers, { user_group_id: 4, add_subgroups: [5] })).toEqual([
      { method: 'POST', path: '/user_groups/4/subgroups', params: { add: '[5]' } },
    ]);
    expect(await refusal(at(126, updateUserGroupMembers, { user_group_id: 4, add_subgroups: [5] }))).toBe(
      'update-user-group-subgroups needs feature level ≥ 127 (server has 126)',
    );
    expect(await refusal(at(310, createUserGroup, { name: 'g', description: '', members: [], subgroups: [5] }, { subgroups: '--subgroup' }))).toBe(
      '--subgroup needs feature level ≥ 311 (server has 310)',
    );
  });

  it('a created group without group_id (before 317) is found by its name', async () => {
    const client = clientAt(
      316,
      new Recorder((req) =>
        req.method === 'GET'
          ? {
              user_groups: [
                { id: 3, name: 'other' },
                { id: 12, name: 'g' },
              ],
            }
          : {},
      ),
    );
    expect(await client.call(createUserGroup, { name: 'g', description: '', members: [] })).toMatchObject({ group_id: 12 });
  });

  it('channels: POST /channels/create from 417, a subscribe that creates before (the ID found by name); GET /streams and PATCH options by level', async () => {
    expect(await at(417, createChannel, { name: 'c', subscribers: [3] })).toEqual([
      { method: 'POST', path: '/channels/create', params: { name: 'c', subscribers: '[3]' } },
    ]);
    expect(await at(416, createChannel, { name: 'c', description: 'd', subscribers: [3], invite_only: true })).toEqual([
      {
        method: 'POST',
        path: '/users/me/subscriptions',
        params: { subscriptions: '[{"name":"c","description":"d"}]', principals: '[3]', invite_only: 'true' },
      },
    ]);
    expect(await at(416, createChannel, { name: 'c', subscribers: [] })).toEqual([
      { method: 'POST', path: '/users/me/subscriptions', params: { subscriptions: '[{"name":"c"}]' } },
    ]);
    const client = clientAt(
      416,
      new Recorder((req) =>
        req.method === 'GET'
          ? {
              streams: [
                { stream_id: 3, name: 'other' },
                { stream_id: 12, name: 'C' },
              ],
            }
          : {},
      ),
    );
    expect(await client.call(createChannel, { name: 'c', subscribers: [] })).toMatchObject({ id: 12 });
    expect(await at(355, getStreams, { include_all: true })).toMatchObject([{ params: { include_all_active: 'true' } }]);
    expect(await at(356, getStreams, { include_all: true })).toMatchObject([{ params: { include_all: 'true' } }]);
    expect(await refusal(at(314, getStreams, { exclude_archived: false }))).toBe(
      'get-streams parameter exclude_archived needs feature level ≥ 315 (server has 314)',
    );
    expect(await at(314, getStreams, { exclude_archived: true })).toMatchObject([{ params: {} }]);
    expect(await refusal(at(387, updateStream, { stream_id: 4, is_archived: false }))).toBe(
      'update-stream parameter is_archived needs feature level ≥ 388 (server has 387)',
    );
    // API changelog: subscribe's is_default_stream is feature level 200, is_web_public 98.
    expect(await refusal(at(199, subscribe, { subscriptions: [{ name: 'c' }], is_default_stream: true }))).toBe(
      'subscribe parameter is_default_stream needs feature level ≥ 200 (server has 199)',
    );
    expect(await at(199, subscribe, { subscriptions: [{ name: 'c' }], is_default_stream: false, is_web_public: false })).toMatchObject([
      { params: { subscriptions: '[{"name":"c"}]' } },
    ]);
    expect(await refusal(at(97, subscribe, { subscriptions: [{ name: 'c' }], is_web_public: true }))).toBe(
      'subscribe parameter is_web_public needs feature level ≥ 98 (server has 97)',
    );
  });

  it('deactivated groups: include_deactivated_groups from 294, allow_deactivated from 290, nothing to include before', async () => {
    expect(await at(294, getUserGroups, { include_deactivated_groups: true })).toMatchObject([{ params: { include_deactivated_groups: 'true' } }]);
    expect(await at(293, getUserGroups, { include_deactivated_groups: true })).toMatchObject([{ params: { allow_deactivated: 'true' } }]);
    expect(await at(289, getUserGroups, { include_deactivated_groups: true })).toMatchObject([{ params: {} }]);
  });
});

describe('parameters renamed, re-valued or added', () => {
  it('direct conversations are "private" before 174; channel typing names the channel in `to` before 215, "channel" is "stream" before 248', async () => {
    expect(await at(173, sendMessage, { type: 'direct', to: '[5]', content: 'hi' })).toMatchObject([{ params: { type: 'private' } }]);
    expect(await at(174, sendMessage, { type: 'direct', to: '[5]', content: 'hi' })).toMatchObject([{ params: { type: 'direct' } }]);
    expect(await at(214, setTypingStatus, { type: 'channel', op: 'start', stream_id: 3, topic: 't' })).toEqual([
      { method: 'POST', path: '/typing', params: { type: 'stream', op: 'start', to: '[3]', topic: 't' } },
    ]);
    expect(await at(247, setTypingStatus, { type: 'channel', op: 'start', stream_id: 3, topic: 't' })).toMatchObject([
      { params: { type: 'stream', stream_id: '3' } },
    ]);
    expect(await at(248, setTypingStatus, { type: 'channel', op: 'start', stream_id: 3, topic: 't' })).toMatchObject([{ params: { type: 'channel' } }]);
    expect(
      await refusal(at(57, setTypingStatus, { type: 'stream', op: 'start', stream_id: 3, topic: 't' }, { stream_id: 'channel typing notifications' })),
    ).toBe('channel typing notifications needs feature level ≥ 58 (server has 57)');
  });

  it('a channel message is type "stream" before 248; allow_empty_topic_name is left out before 334, where no topic is empty', async () => {
    expect(await at(247, sendMessage, { type: 'channel', to: 'general', topic: 't', content: 'x' })).toMatchObject([{ params: { type: 'stream' } }]);
    expect(await at(248, sendMessage, { type: 'channel', to: 'general', topic: 't', content: 'x' })).toMatchObject([{ params: { type: 'channel' } }]);
    expect(await at(333, getMessage, { message_id: 4, allow_empty_topic_name: true })).toEqual([{ method: 'GET', path: '/messages/4', params: {} }]);
    expect(await at(334, getMessage, { message_id: 4, allow_empty_topic_name: true })).toMatchObject([{ params: { allow_empty_topic_name: 'true' } }]);
    expect(await refusal(at(235, sendMessage, { type: 'channel', to: 'general', topic: 't', content: 'x', read_by_sender: false }))).toBe(
      'send-message parameter read_by_sender needs feature level ≥ 236 (server has 235)',
    );
  });

  it('group permissions: each from its level; can_mention_group is can_mention_group_id before 198 and a group ID only before 258', async () => {
    const group = { name: 'g', description: '', members: [] };
    expect(await at(197, createUserGroup, { ...group, can_mention_group: 11 })).toMatchObject([{ params: { can_mention_group_id: '11' } }]);
    const members = { direct_members: [1], direct_subgroups: [] };
    expect(await at(258, createUserGroup, { ...group, can_mention_group: members })).toMatchObject([
      { params: { can_mention_group: JSON.stringify(members) } },
    ]);
    expect(await refusal(at(257, createUserGroup, { ...group, can_mention_group: members }))).toBe(
      'a group-setting value of members and subgroups needs feature level ≥ 258 (server has 257)',
    );
    expect(await refusal(at(300, createUserGroup, { ...group, can_join_group: 11 }, { can_join_group: '--can-join' }))).toBe(
      '--can-join needs feature level ≥ 301 (server has 300)',
    );
  });

  it('the general-chat topic is "(no topic)" before 334', async () => {
    expect(await at(333, sendMessage, { type: 'stream', to: 'general', topic: '', content: 'x' })).toMatchObject([{ params: { topic: '(no topic)' } }]);
    expect(await at(334, sendMessage, { type: 'stream', to: 'general', topic: '', content: 'x' })).toMatchObject([{ params: { topic: '' } }]);
  });

  it('invitations: expiry in days (rounded up) before 126, none before 96; options refused below their levels unless left at the default', async () => {
    const base = { invitee_emails: 'a@x.test', stream_ids: [] };
    expect(await at(126, sendInvites, { ...base, invite_expires_in_minutes: 2000 })).toMatchObject([{ params: { invite_expires_in_minutes: '2000' } }]);
    expect(await at(125, sendInvites, { ...base, invite_expires_in_minutes: 2000 })).toMatchObject([{ params: { invite_expires_in_days: '2' } }]);
    expect(await at(125, sendInvites, { ...base, invite_expires_in_minutes: null })).toMatchObject([{ params: { invite_expires_in_days: 'null' } }]);
    expect(await at(125, createInviteLink, { invite_expires_in_minutes: 60 })).toMatchObject([
      { path: '/invites/multiuse', params: { invite_expires_in_days: '1' } },
    ]);
    expect(await refusal(at(95, sendInvites, { ...base, invite_expires_in_minutes: 60 }, { invite_expires_in_minutes: '--expires' }))).toBe(
      '--expires needs feature level ≥ 96 (server has 95)',
    );
    for (const [name, value, level] of [
      ['include_realm_default_subscriptions', true, 261],
      ['notify_referrer_on_join', false, 267],
      ['group_ids', [4], 322],
      ['welcome_message_custom_text', 'hi', 416],
    ] as const) {
      expect(await at(level, sendInvites, { ...base, [name]: value })).toMatchObject([
        { params: { [name]: typeof value === 'string' ? value : JSON.stringify(value) } },
      ]);
      expect(await refusal(at(level - 1, sendInvites, { ...base, [name]: value }, { [name]: `--${name}` }))).toBe(
        `--${name} needs feature level ≥ ${level} (server has ${level - 1})`,
      );
    }
    // Asking for what an older server does anyway is no reason to refuse: the default is left out.
    expect(await at(200, sendInvites, { ...base, group_ids: [], notify_referrer_on_join: true })).toEqual([
      { method: 'POST', path: '/invites', params: { invitee_emails: 'a@x.test', stream_ids: '[]' } },
    ]);
  });

  it('presence: last_update_id from 263 (slim_presence before), history_limit_days from 288', async () => {
    expect(await at(263, updatePresence, { status: 'active', last_update_id: -1 })).toMatchObject([{ params: { last_update_id: '-1' } }]);
    expect(await at(262, updatePresence, { status: 'active', last_update_id: -1 })).toEqual([
      { method: 'POST', path: '/users/me/presence', params: { status: 'active', slim_presence: 'true' } },
    ]);
    expect(await refusal(at(287, updatePresence, { status: 'active', history_limit_days: 3 }, { history_limit_days: '--days' }))).toBe(
      '--days needs feature level ≥ 288 (server has 287)',
    );
  });

  it('new_email from 313', async () => {
    expect(await at(313, updateUser, { user_id: 5, new_email: 'b@x.test' })).toMatchObject([{ path: '/users/5', params: { new_email: 'b@x.test' } }]);
    expect(await refusal(at(312, updateUser, { user_id: 5, new_email: 'b@x.test' }, { new_email: '--new-email' }))).toBe(
      '--new-email needs feature level ≥ 313 (server has 312)',
    );
  });

  it('organization settings: announcement channels are notifications_stream_id and signup_notifications_stream_id before 241; others from their level', async () => {
    expect(await at(240, updateRealm, { new_stream_announcements_stream_id: 4, signup_announcements_stream_id: -1 })).toEqual([
      { method: 'PATCH', path: '/realm', params: { notifications_stream_id: '4', signup_notifications_stream_id: '-1' } },
    ]);
    expect(await at(241, updateRealm, { new_stream_announcements_stream_id: 4 })).toMatchObject([{ params: { new_stream_announcements_stream_id: '4' } }]);
    expect(await at(321, updateRealm, { can_invite_users_group: { new: 11 } })).toMatchObject([{ params: { can_invite_users_group: '{"new":11}' } }]);
    expect(await refusal(at(320, updateRealm, { can_invite_users_group: { new: 11 } }, { can_invite_users_group: '--set can_invite_users_group' }))).toBe(
      '--set can_invite_users_group needs feature level ≥ 321 (server has 320)',
    );
  });

  it('linkifiers: url_format_string before 176 (operators refused); reverse fields from 471, "" clearing them', async () => {
    expect(await at(175, addLinkifier, { pattern: '#(?P<id>\\d+)', url_template: 'https://x.test/{id}?a=1%' })).toEqual([
      { method: 'POST', path: '/realm/filters', params: { pattern: '#(?P<id>\\d+)', url_format_string: 'https://x.test/%(id)s?a=1%%' } },
    ]);
    expect(await refusal(at(175, addLinkifier, { pattern: 'p', url_template: 'https://x.test/{?q}' }))).toBe(
      'the URL template expression {?q} needs feature level ≥ 176 (server has 175)',
    );
    const clear = { filter_id: 2, pattern: 'p', url_template: 'https://x.test/{id}', example_input: '', reverse_template: '', alternative_url_templates: [] };
    expect(await at(471, updateLinkifier, clear)).toMatchObject([{ params: { example_input: '', reverse_template: '', alternative_url_templates: '[]' } }]);
    expect(await refusal(at(470, updateLinkifier, clear, { example_input: '--clear-reverse' }))).toBe(
      '--clear-reverse needs feature level ≥ 471 (server has 470)',
    );
  });
});

describe('narrows, spelled for the server', () => {
  const narrowAt = async (level: number, narrow: NarrowTerm[]) =>
    (await at(level, updateMessageFlagsForNarrow, { anchor: 'oldest', num_before: 0, num_after: 10, op: 'add', flag: 'read', narrow }))[0]!.params.narrow;
  const term = (operator: string, operand: string | number, negated?: boolean): NarrowTerm => ({ operator, operand, ...(negated ? { negated } : {}) });

  it('channel(s) is stream(s) before 250; dm, dm-including and is:dm are pm-with, group-pm-with, is:private before 177', async () => {
    const narrow = [term('channel', 'general'), term('channels', 'public'), term('dm', 'a@x.test'), term('dm-including', 5), term('is', 'dm', true)];
    expect(JSON.parse(await narrowAt(250, narrow))).toEqual(narrow);
    expect(JSON.parse(await narrowAt(249, narrow))).toEqual([
      term('stream', 'general'),
      term('streams', 'public'),
      term('dm', 'a@x.test'),
      term('dm-including', 5),
      term('is', 'dm', true),
    ]);
    expect(JSON.parse(await narrowAt(176, narrow))).toEqual([
      term('stream', 'general'),
      term('streams', 'public'),
      term('pm-with', 'a@x.test'),
      term('group-pm-with', 5),
      term('is', 'private', true),
    ]);
    expect(JSON.parse(await narrowAt(176, [['channel', 'general']]))).toEqual([['stream', 'general']]);
  });

  it('refuses what a server has in no spelling, naming the level: has:reaction 249, is:followed 265, with 271, is:muted 366', async () => {
    for (const [t, level] of [
      [term('has', 'reaction'), 249],
      [term('is', 'followed'), 265],
      [term('with', 12), 271],
      [term('is', 'muted'), 366],
    ] as const) {
      expect(await narrowAt(level, [t])).toBe(JSON.stringify([t]));
      const [operator, operand] = Array.isArray(t) ? t : [t.operator, t.operand];
      const what = operator === 'with' ? 'the narrow operator "with:"' : `the narrow "${operator}:${operand}"`;
      expect(await refusal(narrowAt(level - 1, [t]))).toBe(`${what} needs feature level ≥ ${level} (server has ${level - 1})`);
    }
  });

  it('GET /messages takes the same spelling', async () => {
    expect((await at(200, getMessages, { anchor: 'newest', num_before: 5, num_after: 0, narrow: [term('channel', 'x')] }))[0]!.params.narrow).toBe(
      JSON.stringify([term('stream', 'x')]),
    );
  });
});

describe('the cached level', () => {
  it('an older form answered 404 means the server was upgraded: the level is read again and the current form sent', async () => {
    const sent: string[] = [];
    const upgraded: Transport = {
      target: 'http://old.test',
      kind: 'http',
      async send(req) {
        sent.push(`${req.method} ${req.path}`);
        if (req.path === '/server_settings') return { status: 200, headers: {}, body: { result: 'success', msg: '', zulip_feature_level: 400 } };
        if (req.path === '/message_edit_typing') return { status: 404, headers: {}, body: { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' } };
        return { status: 200, headers: {}, body: { result: 'success', msg: '' } };
      },
      async close() {},
    };
    const client = new ChatClient(
      upgraded,
      null,
      {},
      { features: new FeatureCache({ gate: true, nowMs: () => NOW, cached: { featureLevel: 355, checkedAt: NOW / 1000 - 60 } }) },
    );
    await client.call(setMessageEditTypingStatus, { message_id: 9, op: 'stop' });
    expect(sent).toEqual(['POST /message_edit_typing', 'GET /server_settings', 'POST /messages/9/typing']);
  });
});
