/** Event queues: registering one (with the initial state), reading it, deleting it. */
import { LIMITS } from '../limits.js';
import { NARROW_OLDER, type NarrowTerm } from '../narrow.js';
import { operation, p } from '../operation.js';
import { s, type Optional } from '../schema.js';

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
