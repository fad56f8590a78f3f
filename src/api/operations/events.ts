/** Event queues: registering one (with the initial state), reading it, deleting it. */
import { LIMITS } from '../limits.js';
import { NARROW_OLDER, type NarrowTerm } from '../narrow.js';
import { declareOlder, olderCall } from '../older.js';
import { operation, p } from '../operation.js';
import { s, type Optional } from '../schema.js';
import type { User } from '../types.js';
import { getStreams, type UserTopic } from './channels.js';
import type { LegacyPresence, ModernPresence } from './presence.js';

export const CLIENT_CAPABILITIES = [
  'notification_settings_null',
  'bulk_message_deletion',
  'user_avatar_url_field_optional',
  'stream_typing_notifications',
  'user_settings_object',
  'linkifier_url_template',
  'user_list_incomplete',
  'include_deactivated_groups',
  'archived_channels',
  'empty_topic_name',
  'simplified_presence_events',
] as const;
export type ClientCapability = (typeof CLIENT_CAPABILITIES)[number];

const capabilities = s.object(Object.fromEntries(CLIENT_CAPABILITIES.map((c) => [c, s.optional(s.bool())])) as Record<ClientCapability, Optional<boolean>>);

/** One event as a queue delivers it: its type, a per-queue increasing `id`, and the type's fields. */
export type QueueEvent = { type: string; id: number } & Record<string, unknown>;

/**
 * The registration response: the queue, the server's version, and the state of every fetched event type
 * (keys as on a Zulip server: `realm_*`, `subscriptions`, `realm_users`, `presences` ...).
 */
export type RegisterResponse = {
  queue_id: string | null;
  last_event_id: number;
  zulip_feature_level: number;
  zulip_version: string;
  zulip_merge_base: string;
  svc_feature_level: number;
  svc_version: string;
  svc_merge_base: string;
  /** The parts of the state chatctl reads, typed; every other part is as the server sent it. */
  realm_users?: User[];
  /** Keyed by user ID with slim_presence, else by e-mail in the legacy format. */
  presences?: Record<string, ModernPresence | LegacyPresence>;
  server_timestamp?: number;
  server_presence_offline_threshold_seconds?: number;
  user_topics?: UserTopic[];
} & Record<string, unknown>;

export const register = operation<RegisterResponse>()({
  name: 'register-queue',
  method: 'POST',
  path: '/register',
  summary: 'Register an event queue and fetch the initial state',
  access: 'user',
  params: {
    event_types: p.opt(s.list(s.string()), { doc: 'JSON list of event types to queue (default all)' }),
    fetch_event_types: p.opt(s.list(s.string()), { doc: 'JSON list of state to fetch (default event_types)' }),
    apply_markdown: p.def(s.bool(), false),
    client_gravatar: p.def(s.bool(), true),
    slim_presence: p.def(s.bool(), false),
    presence_history_limit_days: p.opt(s.int(), { minFeatureLevel: 288 }),
    all_public_streams: p.def(s.bool(), false),
    include_subscribers: p.def(s.literal(['true', 'false', 'partial']), 'true'),
    client_capabilities: p.def(capabilities, {}),
    narrow: p.def(s.list(s.any<NarrowTerm>(), { maxItems: LIMITS.narrowTerms }), [], { older: NARROW_OLDER }),
    queue_lifespan_secs: p.def(s.int({ min: 0 }), 0, { doc: 'idle lifetime in seconds (0: default 600)' }),
    idle_queue_timeout: p.opt(s.int({ min: 0 }), { doc: 'newer name of queue_lifespan_secs', minFeatureLevel: 481 }),
  },
  openapiPath: '/register',
});

export const getEvents = operation<{ events: QueueEvent[]; queue_id?: string }>()({
  name: 'get-events',
  method: 'GET',
  path: '/events',
  summary: 'Events of a queue newer than last_event_id (long-polls unless dont_block)',
  access: 'user',
  params: {
    queue_id: p.opt(s.string()),
    last_event_id: p.opt(s.int(), { doc: 'acknowledges (prunes) every event up to it' }),
    dont_block: p.def(s.bool(), false),
    event_types: p.opt(s.list(s.string()), { doc: 'with no queue_id and dont_block: the new queue’s types' }),
  },
  openapiPath: '/events',
});

export const deleteQueue = operation<Record<string, never>>()({
  name: 'delete-queue',
  method: 'DELETE',
  path: '/events',
  summary: 'Delete an event queue',
  access: 'user',
  params: { queue_id: p.req(s.string()) },
  openapiPath: '/events',
});

/** The event types of a registration as servers before 170 name topic policies: `muted_topics`. */
const beforeUserTopics = (types: string[] | undefined): string[] | undefined => types?.map((t) => (t === 'user_topic' ? 'muted_topics' : t));

const isMutedTopic = (m: unknown): m is [string, string, number] =>
  Array.isArray(m) && typeof m[0] === 'string' && typeof m[1] === 'string' && typeof m[2] === 'number';

// Before 170 a topic is only muted or not: the state is `muted_topics`, [channel name, topic, time], read
// as the `user_topics` current servers give (policy muted, by channel ID; channels the caller cannot see
// are left out).
declareOlder(register, [
  {
    before: 170,
    when: ({ event_types, fetch_event_types }) => (fetch_event_types ?? event_types)?.includes('user_topic') === true,
    calls: (params) => [
      olderCall(register, { ...params, event_types: beforeUserTopics(params.event_types), fetch_event_types: beforeUserTopics(params.fetch_event_types) }),
    ],
    response: async (body, _params, fetch) => {
      const muted = Array.isArray(body.muted_topics) ? body.muted_topics.filter(isMutedTopic) : [];
      const ids = new Map(muted.length ? (await fetch(getStreams, {})).streams.map((c) => [c.name, c.stream_id]) : []);
      const user_topics = muted.flatMap(([name, topic_name, last_updated]): UserTopic[] => {
        const stream_id = ids.get(name);
        return stream_id === undefined ? [] : [{ stream_id, topic_name, last_updated, visibility_policy: 1 }];
      });
      return { ...body, user_topics };
    },
  },
]);

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const eventsOps = {
  register,
  getEvents,
  deleteQueue,
} as const;
