/** Channels, subscriptions and per-topic preferences. */
import { olderCall, declareOlder } from '../older.js';
import { EMPTY_TOPIC_BEFORE_334 } from '../older-values.js';
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

export const getSubscriptions = operation<{ subscriptions: Subscription[] }>()({
  name: 'get-subscriptions',
  method: 'GET',
  path: '/users/me/subscriptions',
  summary: 'The channels the caller is subscribed to, with personal settings',
  access: 'user',
  params: {
    include_subscribers: p.def(s.bool(), false, { doc: 'add each channel’s subscriber IDs' }),
  },
  openapiPath: '/users/me/subscriptions',
});

export const subscribe = operation<{
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
}>()({
  name: 'subscribe',
  method: 'POST',
  path: '/users/me/subscriptions',
  summary: 'Subscribe the caller (or principals) to channels, creating missing ones',
  access: 'member',
  params: {
    subscriptions: p.req(s.list(s.object({ name: s.string(), description: s.optional(s.string({ maxLength: 1024 })), color: s.optional(s.string()) })), {
      doc: 'JSON list of {"name", "description"?}',
    }),
    principals: p.opt(principals, { doc: 'users to subscribe (IDs or e-mail addresses); default the caller' }),
    authorization_errors_fatal: p.def(s.bool(), true, { doc: 'false: list inaccessible channels in `unauthorized`' }),
    announce: p.def(s.bool(), false),
    invite_only: p.def(s.bool(), false, { doc: 'new channels are private' }),
    is_web_public: p.def(s.bool(), false, { doc: 'new channels are web-public' }),
    is_default_stream: p.def(s.bool(), false, { doc: 'new channels are default channels (administrators)' }),
    history_public_to_subscribers: p.opt(s.bool()),
    folder_id: p.opt(s.int(), { doc: 'channel folder of new channels' }),
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

export const getStreams = operation<{ streams: Channel[] }>()({
  name: 'get-streams',
  method: 'GET',
  path: '/streams',
  summary: 'Channels the caller can see',
  access: 'user',
  params: {
    include_public: p.def(s.bool(), true),
    include_web_public: p.def(s.bool(), false),
    include_subscribed: p.def(s.bool(), true),
    include_all: p.def(s.bool(), false, { aliases: ['include_all_active'], doc: 'every channel the caller has metadata access to' }),
    include_default: p.def(s.bool(), false, { doc: 'add default channels and the is_default field' }),
    include_owner_subscribed: p.def(s.bool(), false, { doc: "bots: add the owner's channels" }),
    include_can_access_content: p.def(s.bool(), false),
    exclude_archived: p.def(s.bool(), true),
  },
  openapiPath: '/streams',
});

export const getStream = operation<{ stream: Channel }>()({
  name: 'get-stream',
  method: 'GET',
  path: '/streams/{stream_id}',
  summary: 'One channel by ID',
  access: 'user',
  params: { stream_id: p.path(s.int()) },
  minFeatureLevel: 132,
  openapiPath: '/streams/{stream_id}',
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
