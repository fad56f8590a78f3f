/** Channels, subscriptions and per-topic preferences. */
import { olderCall, declareOlder } from '../older.js';
import { LIMITS } from '../limits.js';
import { EMPTY_TOPIC_BEFORE_334, EMPTY_TOPICS_FROM_334 } from '../older-values.js';
import { NotAtLevel, operation, p } from '../operation.js';
import { s } from '../schema.js';

/** A permission setting: a group ID, or an anonymous group of users and subgroups. */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/** A channel as `GET /streams` and the `stream` events describe it. */
export interface Channel {
  stream_id: number;
  name: string;
  description: string;
  rendered_description: string;
  date_created: number;
  creator_id: number | null;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  first_message_id: number | null;
  message_retention_days: number | null;
  stream_post_policy: number;
  is_announcement_only: boolean;
  can_remove_subscribers_group: number;
  stream_weekly_traffic: number | null;
  is_archived: boolean;
  folder_id: number | null;
  /** Active users subscribed (feature level 394); older servers: count `GET /streams/{id}/members`. */
  subscriber_count?: number;
  /** Only with `include_default`. */
  is_default?: boolean;
}

/** The personal settings of one subscription (section 2.2); notification settings null = inherit. */
export interface SubscriptionSettings {
  color: string;
  is_muted: boolean;
  in_home_view: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
}

export type Subscription = Omit<Channel, 'is_default'> & SubscriptionSettings & { subscribers?: number[] };

export const SUBSCRIPTION_PROPERTIES = [
  'color',
  'is_muted',
  'in_home_view',
  'pin_to_top',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
] as const;
export type SubscriptionProperty = (typeof SUBSCRIPTION_PROPERTIES)[number];

export const VISIBILITY_POLICIES = [0, 1, 2, 3] as const;
/** 0 inherit (no policy), 1 muted, 2 unmuted, 3 followed. */
export type VisibilityPolicy = (typeof VISIBILITY_POLICIES)[number];

export interface UserTopic {
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: VisibilityPolicy;
}

/** Principals: all user IDs or all e-mail addresses. */
const principals = s.union(s.list(s.int(), { unique: true }), s.list(s.string(), { unique: true }), 'a list');

/**
 * A channel's privacy and defaults as a new channel takes them (`subscribe` and `create-channel`). Levels
 * from Zulip's API changelog: is_web_public 98, is_default_stream 200, folder_id 389.
 */
const newChannelParams = {
  announce: p.def(s.bool(), false),
  invite_only: p.def(s.bool(), false, { doc: 'new channels are private' }),
  is_web_public: p.def(s.bool(), false, { minFeatureLevel: 98, doc: 'new channels are web-public' }),
  is_default_stream: p.def(s.bool(), false, { minFeatureLevel: 200, doc: 'new channels are default channels (administrators)' }),
  history_public_to_subscribers: p.opt(s.bool(), { doc: 'private channels: new subscribers see earlier messages' }),
  folder_id: p.opt(s.int(), { minFeatureLevel: 389, doc: 'channel folder of new channels' }),
};

export const getSubscriptions = operation<{ subscriptions: Subscription[] }>()({
  name: 'get-subscriptions',
  method: 'GET',
  path: '/users/me/subscriptions',
  summary: 'The channels the caller is subscribed to, with personal settings',
  access: 'user',
  cacheable: true,
  params: {
    include_subscribers: p.def(s.bool(), false, { doc: 'add each channel’s subscriber IDs' }),
  },
  openapiPath: '/users/me/subscriptions',
});

export const subscribe = operation<{
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
  /** Present unless send_new_subscription_messages was false: whether the request was small enough for them (level 397). */
  new_subscription_messages_sent?: boolean;
}>()({
  name: 'subscribe',
  method: 'POST',
  path: '/users/me/subscriptions',
  summary: 'Subscribe the caller (or principals) to channels, creating missing ones',
  access: 'member',
  params: {
    subscriptions: p.req(
      s.list(s.object({ name: s.string(), description: s.optional(s.string({ maxLength: LIMITS.channelDescription })), color: s.optional(s.string()) })),
      {
        doc: 'JSON list of {"name", "description"?}',
      },
    ),
    principals: p.opt(principals, { doc: 'users to subscribe (IDs or e-mail addresses); default the caller' }),
    authorization_errors_fatal: p.def(s.bool(), true, { doc: 'false: list inaccessible channels in `unauthorized`' }),
    send_new_subscription_messages: p.def(s.bool(), true, {
      minFeatureLevel: 397,
      doc: 'Notification Bot tells others subscribed to existing channels (not past max_bulk_new_subscription_messages users)',
    }),
    ...newChannelParams,
  },
  openapiPath: '/users/me/subscriptions',
});

export const unsubscribe = operation<{ removed: string[]; not_removed: string[] }>()({
  name: 'unsubscribe',
  method: 'DELETE',
  path: '/users/me/subscriptions',
  summary: 'Unsubscribe the caller (or principals) from channels',
  access: 'user',
  params: {
    subscriptions: p.req(s.list(s.string()), { doc: 'JSON list of channel names' }),
    principals: p.opt(principals),
  },
  idempotent: true,
  openapiPath: '/users/me/subscriptions',
});

const subscriptionDataItem = s.object({ stream_id: s.int(), property: s.string(), value: s.any<boolean | string>() });

export const updateSubscriptionSettings = operation<Record<string, never>>()({
  name: 'update-subscription-settings',
  method: 'POST',
  path: '/users/me/subscriptions/properties',
  summary: 'Change personal settings of several subscriptions at once',
  access: 'user',
  params: {
    subscription_data: p.req(s.list(subscriptionDataItem), { doc: 'JSON list of {"stream_id", "property", "value"}' }),
  },
  idempotent: true,
  openapiPath: '/users/me/subscriptions/properties',
});

const singlePropertyParams = {
  stream_id: p.path(s.int()),
  property: p.req(s.string(), { doc: 'one of the subscription properties' }),
  value: p.req(s.string(), { doc: 'JSON boolean, or a colour such as #ff0000' }),
};

export const updateSubscription = operation<Record<string, never>>()({
  name: 'update-subscription',
  method: 'PATCH',
  path: '/users/me/subscriptions/{stream_id}',
  summary: 'Change one personal setting of one subscription',
  access: 'user',
  params: singlePropertyParams,
  idempotent: true,
});

export const updateSubscriptionPost = operation<Record<string, never>>()({
  name: 'update-subscription-post',
  method: 'POST',
  path: '/users/me/subscriptions/{stream_id}',
  summary: 'Change one personal setting of one subscription (POST form)',
  access: 'user',
  params: singlePropertyParams,
  idempotent: true,
});

/**
 * Channels the caller can see. No channel object says when its last message was sent: `is_archived`,
 * `date_created`, `creator_id`, `folder_id`, the privacy fields and `subscriber_count` are here, and the
 * last message of one channel is `getMessages` with `anchor: 'newest'`, `num_before: 1`, `num_after: 0` and
 * the narrow `[{ operator: 'channel', operand: stream_id }]` (its `timestamp`; no message: never used).
 */
export const getStreams = operation<{ streams: Channel[] }>()({
  name: 'get-streams',
  method: 'GET',
  path: '/streams',
  summary: 'Channels the caller can see',
  access: 'user',
  cacheable: true,
  params: {
    include_public: p.def(s.bool(), true),
    include_web_public: p.def(s.bool(), false),
    include_subscribed: p.def(s.bool(), true),
    // API changelog, feature level 356: include_all_active renamed include_all (and open to non-administrators).
    include_all: p.def(s.bool(), false, {
      aliases: ['include_all_active'],
      older: [{ before: 356, name: 'include_all_active' }],
      doc: 'every channel the caller has metadata access to (administrators: every channel)',
    }),
    include_default: p.def(s.bool(), false, { doc: 'add default channels and the is_default field' }),
    include_owner_subscribed: p.def(s.bool(), false, { doc: "bots: add the owner's channels" }),
    include_can_access_content: p.def(s.bool(), false, { minFeatureLevel: 356, doc: 'every channel whose messages the caller can read' }),
    exclude_archived: p.def(s.bool(), true, { minFeatureLevel: 315, doc: 'false: archived channels too (older servers never list them)' }),
  },
  openapiPath: '/streams',
});

export const getStream = operation<{ stream: Channel }>()({
  name: 'get-stream',
  method: 'GET',
  path: '/streams/{stream_id}',
  summary: 'One channel by ID',
  access: 'user',
  cacheable: true,
  params: { stream_id: p.path(s.int()) },
  minFeatureLevel: 132,
  openapiPath: '/streams/{stream_id}',
});

/** One topic of a channel as GET /users/me/{stream_id}/topics lists it. */
export interface TopicSummary {
  name: string;
  /** The newest message of the topic the caller may see. */
  max_id: number;
}

export const getChannelTopics = operation<{ topics: TopicSummary[] }>()({
  name: 'get-stream-topics',
  method: 'GET',
  path: '/users/me/{stream_id}/topics',
  summary: "A channel's topics the caller can see, newest first",
  access: 'user',
  cacheable: true,
  params: {
    stream_id: p.path(s.int()),
    allow_empty_topic_name: p.def(s.bool(), false, { older: EMPTY_TOPICS_FROM_334, doc: 'name the general-chat topic "" rather than its display name' }),
  },
  openapiPath: '/users/me/{stream_id}/topics',
});

export const createChannel = operation<{ id: number }>()({
  name: 'create-channel',
  method: 'POST',
  path: '/channels/create',
  summary: 'Create a channel and subscribe the users given (none: nobody)',
  access: 'member',
  params: {
    name: p.req(s.string(), { doc: `up to ${LIMITS.channelName} characters` }),
    description: p.def(s.string({ maxLength: LIMITS.channelDescription }), ''),
    subscribers: p.req(s.list(s.int(), { unique: true }), { doc: 'JSON list of user IDs' }),
    ...newChannelParams,
  },
  minFeatureLevel: 417,
});

export const updateStream = operation<Record<string, never>>()({
  name: 'update-stream',
  method: 'PATCH',
  path: '/streams/{stream_id}',
  summary: "Change a channel's name, description, privacy, default status or folder, or unarchive it",
  access: 'user',
  params: {
    stream_id: p.path(s.int()),
    new_name: p.opt(s.string(), { doc: `rename (up to ${LIMITS.channelName} characters)` }),
    description: p.opt(s.string({ maxLength: LIMITS.channelDescription })),
    is_private: p.opt(s.bool()),
    is_web_public: p.opt(s.bool(), { minFeatureLevel: 98 }),
    history_public_to_subscribers: p.opt(s.bool()),
    is_default_stream: p.opt(s.bool(), { minFeatureLevel: 200, doc: 'add to or remove from the default channels' }),
    folder_id: p.opt(s.nullable(s.int()), { minFeatureLevel: 389, doc: 'channel folder; null: none' }),
    is_archived: p.opt(s.bool(), { minFeatureLevel: 388, doc: 'false: unarchive (true is ignored: archive with archive-stream)' }),
  },
  idempotent: true,
  openapiPath: '/streams/{stream_id}',
});

export const archiveStream = operation<Record<string, never>>()({
  name: 'archive-stream',
  method: 'DELETE',
  path: '/streams/{stream_id}',
  summary: 'Archive a channel (its administrators)',
  access: 'user',
  params: { stream_id: p.path(s.int()) },
  openapiPath: '/streams/{stream_id}',
});

export const getSubscribers = operation<{ subscribers: number[] }>()({
  name: 'get-subscribers',
  method: 'GET',
  path: '/streams/{stream_id}/members',
  summary: "A channel's subscribers (active users)",
  access: 'user',
  cacheable: true,
  params: { stream_id: p.path(s.int()) },
  openapiPath: '/streams/{stream_id}/members',
});

/**
 * The default channels are read with `getStreams` and `include_default` (the `is_default` field) or from
 * `register`'s `realm_default_streams`: a Zulip server has no `GET /default_streams`.
 */
export const addDefaultStream = operation<Record<string, never>>()({
  name: 'add-default-stream',
  method: 'POST',
  path: '/default_streams',
  summary: 'Make a channel a default channel for new users',
  access: 'admin',
  params: { stream_id: p.req(s.int()) },
  idempotent: true,
  openapiPath: '/default_streams',
});

export const removeDefaultStream = operation<Record<string, never>>()({
  name: 'remove-default-stream',
  method: 'DELETE',
  path: '/default_streams',
  summary: 'Stop making a channel a default channel for new users',
  access: 'admin',
  params: { stream_id: p.req(s.int()) },
  idempotent: true,
  openapiPath: '/default_streams',
});

export const updateUserTopic = operation<Record<string, never>>()({
  name: 'update-user-topic',
  method: 'POST',
  path: '/user_topics',
  summary: 'Set the visibility policy of a topic (0 none, 1 muted, 2 unmuted, 3 followed)',
  access: 'user',
  params: {
    stream_id: p.req(s.int()),
    topic: p.req(s.string({ maxLength: 60 }), { older: EMPTY_TOPIC_BEFORE_334 }),
    visibility_policy: p.req(s.intOf(VISIBILITY_POLICIES)),
  },
  minFeatureLevel: 170,
  idempotent: true,
  openapiPath: '/user_topics',
});

export const muteTopic = operation<Record<string, never>>()({
  name: 'mute-topic',
  method: 'PATCH',
  path: '/users/me/subscriptions/muted_topics',
  summary: 'Mute or unmute a topic (deprecated: use update-user-topic)',
  access: 'user',
  params: {
    stream_id: p.opt(s.int(), { doc: 'channel ID (or give stream)' }),
    stream: p.opt(s.string(), { doc: 'channel name (or give stream_id)' }),
    topic: p.req(s.string({ maxLength: 60 }), { older: EMPTY_TOPIC_BEFORE_334 }),
    op: p.req(s.literal(['add', 'remove'])),
  },
  idempotent: true,
  openapiPath: '/users/me/subscriptions/muted_topics',
});

// Before 170 a topic is only muted or not: "unmuted" in a muted channel is simply not muted, and following
// does not exist.
declareOlder(updateUserTopic, [
  {
    before: 170,
    calls: ({ stream_id, topic, visibility_policy }) => {
      if (visibility_policy === 3) throw new NotAtLevel('following a topic');
      return [olderCall(muteTopic, { stream_id, topic, op: visibility_policy === 1 ? 'add' : 'remove' })];
    },
  },
]);

/**
 * Before 417 a channel is created by subscribing to it: the caller, or the users given, are subscribed, and a
 * channel that exists already is joined rather than refused. The new channel's ID is found by its name.
 */
declareOlder(createChannel, [
  {
    before: 417,
    calls: ({ name, description, subscribers, ...settings }) => [
      olderCall(subscribe, { subscriptions: [{ name, description }], principals: subscribers.length ? subscribers : undefined, ...settings }),
    ],
    response: async (body, { name }, fetch) => {
      const { streams } = await fetch(getStreams, {});
      const created = streams.find((c) => c.name.toLowerCase() === name.trim().toLowerCase());
      return created ? { ...body, id: created.stream_id } : body;
    },
  },
]);

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const channelsOps = {
  getSubscriptions,
  subscribe,
  unsubscribe,
  updateSubscriptionSettings,
  updateSubscription,
  updateSubscriptionPost,
  getStreams,
  getStream,
  getChannelTopics,
  createChannel,
  updateStream,
  archiveStream,
  getSubscribers,
  addDefaultStream,
  removeDefaultStream,
  updateUserTopic,
  muteTopic,
} as const;
