/** Messages: sending, fetching, editing, edit history, rendering and personal flags. */
import { LIMITS } from '../limits.js';
import { NARROW_OLDER, type NarrowTerm } from '../narrow.js';
import { CHANNEL_TYPE_BEFORE_248, DIRECT_TYPE_BEFORE_174, EMPTY_TOPIC_BEFORE_334, EMPTY_TOPICS_FROM_334 } from '../older-values.js';
import { operation, p } from '../operation.js';
import { s } from '../schema.js';

export type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';

export interface MessageReaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: ReactionType;
  user_id: number;
}

export interface DisplayRecipientUser {
  id: number;
  email: string;
  full_name: string;
  is_mirror_dummy: boolean;
}

/** One entry of a message's `edit_history` (newest first). */
export interface EditHistoryEntry {
  user_id: number | null;
  timestamp: number;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_stream?: number;
  stream?: number;
  prev_topic?: string;
  topic?: string;
}

export interface TopicLink {
  text: string;
  url: string;
}

/** A message as GET /messages gives it (`flags` added per reader). */
export interface WireMessage {
  id: number;
  sender_id: number;
  content: string;
  recipient_id: number;
  timestamp: number;
  client: string;
  subject: string;
  topic_links: TopicLink[];
  is_me_message: boolean;
  reactions: MessageReaction[];
  submessages: { msg_type: string; content: string; message_id: number; sender_id: number; id: number }[];
  sender_full_name: string;
  sender_email: string;
  sender_realm_str: string;
  display_recipient: string | DisplayRecipientUser[];
  type: 'stream' | 'private';
  stream_id?: number;
  avatar_url: string | null;
  content_type: 'text/html' | 'text/x-markdown';
  rendered_content?: string;
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
  edit_history?: EditHistoryEntry[];
}

export interface FetchedMessage extends WireMessage {
  flags: string[];
  /** With a `search` narrow: the content with the matches highlighted. */
  match_content?: string;
  match_subject?: string;
}

export interface GetMessagesResult {
  messages: FetchedMessage[];
  anchor?: number;
  found_anchor?: boolean;
  found_oldest?: boolean;
  found_newest?: boolean;
  history_limited: boolean;
}

/** One snapshot of GET /messages/{message_id}/history (oldest first). */
export interface HistorySnapshot {
  topic: string;
  content: string;
  rendered_content: string;
  timestamp: number;
  user_id: number | null;
  prev_topic?: string;
  stream?: number;
  prev_stream?: number;
  prev_content?: string;
  prev_rendered_content?: string;
  content_html_diff?: string;
}

export interface FlagsForNarrowResult {
  processed_count: number;
  updated_count: number;
  first_processed_id: number | null;
  last_processed_id: number | null;
  found_oldest: boolean;
  found_newest: boolean;
  ignored_because_not_subscribed_channels?: number[];
}

export type { NarrowTerm };

const narrowParam = s.list(s.any<NarrowTerm>(), { maxItems: LIMITS.narrowTerms });

export const sendMessage = operation<{ id: number; automatic_new_visibility_policy?: number }>()({
  name: 'send-message',
  method: 'POST',
  path: '/messages',
  summary: 'Send a channel or direct message',
  access: 'user',
  params: {
    type: p.req(s.literal(['direct', 'private', 'stream', 'channel']), {
      doc: 'direct (private) or channel (stream)',
      older: [...DIRECT_TYPE_BEFORE_174, ...CHANNEL_TYPE_BEFORE_248],
    }),
    to: p.req(s.string(), { doc: 'channel name or ID; for direct messages a JSON list of user IDs or e-mails' }),
    topic: p.opt(s.string(), { aliases: ['subject'], doc: 'topic of a channel message', older: EMPTY_TOPIC_BEFORE_334 }),
    content: p.req(s.string()),
    read_by_sender: p.opt(s.bool(), {
      doc: "mark the message read for the sender (default: only when sent from one of Zulip's own apps, by User-Agent)",
      minFeatureLevel: 236,
    }),
  },
  openapiPath: '/messages',
});

export const getMessages = operation<GetMessagesResult>()({
  name: 'get-messages',
  method: 'GET',
  path: '/messages',
  summary: 'Messages around an anchor, in a narrow',
  access: 'user',
  params: {
    anchor: p.opt(s.string(), { doc: 'message ID, newest, oldest or first_unread' }),
    include_anchor: p.def(s.bool(), true, { minFeatureLevel: 155 }),
    num_before: p.def(s.int({ min: 0 }), 0),
    num_after: p.def(s.int({ min: 0 }), 0),
    narrow: p.def(narrowParam, [], { older: NARROW_OLDER }),
    client_gravatar: p.def(s.bool(), true),
    apply_markdown: p.def(s.bool(), true),
    allow_empty_topic_name: p.def(s.bool(), false, { older: EMPTY_TOPICS_FROM_334 }),
    message_ids: p.opt(s.list(s.int(), { unique: true }), { doc: 'fetch exactly these messages instead of a range', minFeatureLevel: 300 }),
  },
  openapiPath: '/messages',
});

export const getMessage = operation<{ raw_content: string; message: FetchedMessage }>()({
  name: 'get-message',
  method: 'GET',
  path: '/messages/{message_id}',
  summary: 'One message',
  access: 'user',
  cacheable: true,
  params: {
    message_id: p.path(s.int()),
    apply_markdown: p.def(s.bool(), true, { minFeatureLevel: 120 }),
    allow_empty_topic_name: p.def(s.bool(), false, { older: EMPTY_TOPICS_FROM_334 }),
  },
  openapiPath: '/messages/{message_id}',
});

export const updateMessage = operation<{ detached_uploads: unknown[] }>()({
  name: 'update-message',
  method: 'PATCH',
  path: '/messages/{message_id}',
  summary: 'Edit the content, topic or channel of a message',
  access: 'user',
  params: {
    message_id: p.path(s.int()),
    topic: p.opt(s.string(), { aliases: ['subject'], older: EMPTY_TOPIC_BEFORE_334 }),
    propagate_mode: p.def(s.literal(['change_one', 'change_later', 'change_all']), 'change_one'),
    content: p.opt(s.string()),
    stream_id: p.opt(s.int({ min: 0 })),
  },
  openapiPath: '/messages/{message_id}',
});

export const getMessageHistory = operation<{ message_history: HistorySnapshot[] }>()({
  name: 'get-message-history',
  method: 'GET',
  path: '/messages/{message_id}/history',
  summary: "A message's edit history, oldest first",
  access: 'user',
  params: {
    message_id: p.path(s.int()),
    allow_empty_topic_name: p.def(s.bool(), false, { older: EMPTY_TOPICS_FROM_334 }),
  },
  openapiPath: '/messages/{message_id}/history',
});

export const updateMessageFlags = operation<{ messages: number[]; ignored_because_not_subscribed_channels?: number[] }>()({
  name: 'update-message-flags',
  method: 'POST',
  path: '/messages/flags',
  summary: 'Add or remove a personal flag on messages',
  access: 'user',
  params: {
    messages: p.req(s.list(s.int())),
    op: p.req(s.string(), { doc: 'add or remove' }),
    flag: p.req(s.string(), { doc: 'read, starred or collapsed' }),
  },
  openapiPath: '/messages/flags',
});

export const updateMessageFlagsForNarrow = operation<FlagsForNarrowResult>()({
  name: 'update-message-flags-for-narrow',
  method: 'POST',
  path: '/messages/flags/narrow',
  summary: 'Add or remove a personal flag on a range of messages in a narrow',
  access: 'user',
  params: {
    anchor: p.opt(s.string(), { doc: 'message ID, newest, oldest or first_unread' }),
    include_anchor: p.def(s.bool(), true),
    num_before: p.req(s.int({ min: 0 })),
    num_after: p.req(s.int({ min: 0 })),
    narrow: p.req(narrowParam, { older: NARROW_OLDER }),
    op: p.req(s.string(), { doc: 'add or remove' }),
    flag: p.req(s.string(), { doc: 'read, starred or collapsed' }),
  },
  minFeatureLevel: 155,
  openapiPath: '/messages/flags/narrow',
});

export const renderMessage = operation<{ rendered: string }>()({
  name: 'render-message',
  method: 'POST',
  path: '/messages/render',
  summary: 'Render message Markdown to HTML',
  access: 'user',
  params: { content: p.req(s.string()) },
  openapiPath: '/messages/render',
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const messagesOps = {
  sendMessage,
  getMessages,
  getMessage,
  updateMessage,
  getMessageHistory,
  updateMessageFlags,
  updateMessageFlagsForNarrow,
  renderMessage,
} as const;
