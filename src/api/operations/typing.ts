/** Typing notifications: composing a new message, and editing an existing one. */
import { olderCall, declareOlder } from '../older.js';
import { CHANNEL_TYPE_BEFORE_248, DIRECT_TYPE_BEFORE_174, EMPTY_TOPIC_BEFORE_334 } from '../older-values.js';
import { operation, p } from '../operation.js';
import { s } from '../schema.js';

export const TYPING_OPS = ['start', 'stop'] as const;
export type TypingOp = (typeof TYPING_OPS)[number];

export const setTypingStatus = operation<Record<string, never>>()({
  name: 'set-typing-status',
  method: 'POST',
  path: '/typing',
  summary: 'Tell the recipients of a conversation that the caller started or stopped composing',
  access: 'user',
  params: {
    // `private` was removed at feature level 215 (a server answers `Invalid type`); `channel` came at 248.
    type: p.def(s.literal(['direct', 'stream', 'channel']), 'direct', {
      doc: 'direct (default), stream or channel',
      older: [...DIRECT_TYPE_BEFORE_174, ...CHANNEL_TYPE_BEFORE_248],
    }),
    op: p.req(s.literal(TYPING_OPS), { doc: 'start or stop' }),
    to: p.opt(s.list(s.int(), { unique: true }), { doc: 'recipient user IDs (direct)' }),
    // Channel typing came at 58, naming the channel as a one-element `to` until 215.
    stream_id: p.opt(s.int(), { doc: 'channel ID (stream, channel)', minFeatureLevel: 58, older: [{ before: 215, name: 'to', value: (id) => [id] }] }),
    topic: p.opt(s.string({ strip: true }), { doc: 'topic name (stream, channel)', aliases: ['subject'], older: EMPTY_TOPIC_BEFORE_334 }),
  },
  openapiPath: '/typing',
});

export const setMessageEditTypingStatus = operation<Record<string, never>>()({
  name: 'set-message-edit-typing-status',
  method: 'POST',
  path: '/messages/{message_id}/typing',
  summary: 'Tell the recipients of a message that the caller started or stopped editing it',
  access: 'user',
  params: {
    message_id: p.path(s.int(), 'the message being edited'),
    op: p.req(s.literal(TYPING_OPS), { doc: 'start or stop' }),
  },
  // Added as /message_edit_typing at 351, moved under /messages/{message_id} at 361 (see the older form below).
  minFeatureLevel: 361,
});

/** Typing while editing as servers from feature level 351 to 360 take it: its own path, the ID in the body. */
export const setMessageEditTypingStatusBefore361 = operation<Record<string, never>>()({
  name: 'set-message-edit-typing-status-before-361',
  method: 'POST',
  path: '/message_edit_typing',
  summary: 'Tell the recipients of a message that the caller started or stopped editing it (servers before feature level 361)',
  access: 'user',
  params: {
    message_id: p.req(s.int(), { doc: 'the message being edited' }),
    op: p.req(s.literal(TYPING_OPS), { doc: 'start or stop' }),
  },
  minFeatureLevel: 351,
  before: 361,
});

declareOlder(setMessageEditTypingStatus, [{ before: 361, calls: (params) => [olderCall(setMessageEditTypingStatusBefore361, params)] }]);

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const typingOps = {
  setTypingStatus,
  setMessageEditTypingStatus,
  setMessageEditTypingStatusBefore361,
} as const;
