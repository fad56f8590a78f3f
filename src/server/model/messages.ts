/**
 * Messages in the store: sending (validation, recipients, per-user flags, the `message` event) and the
 * wire form of GET /messages (`messageToWire`), which outgoing webhooks reuse.
 */
import { ApiError, badRequest } from '../../api/errors.js';
import type { VisibilityPolicy } from '../../api/operations/channels.js';
import type { DisplayRecipientUser, EditHistoryEntry, MessageReaction, WireMessage } from '../../api/operations/messages.js';
import type { HandlerContext } from '../context.js';
import { getSetting } from './realm.js';
import type { Db } from '../store/db.js';
import { linkAttachments } from './attachments.js';
import { followOnSend } from './automatic-follow.js';
import { publicChannelWatcherIds } from './event-queues.js';
import { isSubscribed, streamById, streamByName, subscriberIds, type StreamRow } from './channels.js';
import { flagNames, FLAG_BITS } from './flags.js';
import { GroupGraph } from './groups.js';
import { messageById, type MessageRow } from './message-access.js';
import { keepSentMessage } from './message-rendering-cache.js';
import { renderMarkdown, topicLinker, type Rendered } from './render.js';
import { RESOLVED_TOPIC_PREFIX } from './resolved-topic.js';
import { SYSTEM_BOT_REALM } from './system-bots.js';
import { apiEmail, leavesGravatarToClient, usersForView, userView } from './user-view.js';
import { isGuest, userByEmail, userById, type UserRow } from './users.js';

export const MAX_MESSAGE_LENGTH = 10000;
export const MAX_TOPIC_LENGTH = 60;
/** Larger than any message ID: the anchor `newest` stands for it, as on a Zulip server. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;

const codePoints = (s: string): string[] => [...s];

/** Cuts `text` to `max` code points, ending with `marker`, as a Zulip server truncates. */
export function truncate(text: string, max: number, marker: string): string {
  const chars = codePoints(text);
  if (chars.length <= max) return text;
  return chars.slice(0, max - codePoints(marker).length).join('') + marker;
}

/** Message content as stored: trailing space and leading blank lines dropped, at most 10000 code points. */
export function normalizeContent(raw: string): string {
  const body = raw.trimEnd().replace(/^\n+/, '');
  if (body === '') throw badRequest('Message must not be empty');
  if (body.includes('\u0000')) throw badRequest('Message must not contain null bytes');
  return truncate(body, MAX_MESSAGE_LENGTH, '\n[message truncated]');
}

/** `(no topic)` and the organization's display name for it both mean the empty topic. */
export function canonicalTopic(db: Db, raw: string): string {
  const topic = raw.trim();
  if (topic === '(no topic)' || topic === getSetting(db, 'empty_topic_display_name')) return '';
  return topic;
}

/** Rejects control and unassigned characters in a topic, naming the first one's position. */
export function checkTopicCharacters(topic: string): void {
  const chars = codePoints(topic);
  const bad = chars.findIndex((c) => /[\p{Cc}\p{Cs}\p{Cn}]/u.test(c));
  if (bad >= 0) throw badRequest(`Invalid character in topic, at position ${bad + 1}!`);
}

export const truncateTopic = (topic: string): string => truncate(topic, MAX_TOPIC_LENGTH, '...');

/** The topic as clients without the empty-topic capability see it. */
export const displayTopic = (db: Db, topic: string, allowEmpty: boolean): string =>
  topic === '' && !allowEmpty ? getSetting(db, 'empty_topic_display_name') : topic;

export const isResolvedTopic = (topic: string): boolean => topic.startsWith(RESOLVED_TOPIC_PREFIX);

/** The topic without its resolved prefix. */
export const unresolvedTopic = (topic: string): string => (isResolvedTopic(topic) ? topic.slice(RESOLVED_TOPIC_PREFIX.length) : topic);

// ---------------------------------------------------------------------------------------------------
// Recipients

export function channelRecipientId(db: Db, channelId: number): number {
  const row = db.prepare('SELECT id FROM recipients WHERE stream_id = ?').get(channelId) as { id: number } | undefined;
  if (row) return row.id;
  return Number(db.prepare('INSERT INTO recipients (stream_id) VALUES (?)').run(channelId).lastInsertRowid);
}

export const membersKey = (userIds: Iterable<number>): string => [...new Set(userIds)].sort((a, b) => a - b).join(',');

/** The recipient of a direct conversation among exactly these users, created on first use. */
export function directRecipientId(db: Db, userIds: Iterable<number>): number {
  const key = membersKey(userIds);
  const row = db.prepare('SELECT id FROM recipients WHERE members = ?').get(key) as { id: number } | undefined;
  if (row) return row.id;
  return Number(db.prepare('INSERT INTO recipients (members) VALUES (?)').run(key).lastInsertRowid);
}

export const recipientMembers = (db: Db, recipientId: number): number[] => {
  const row = db.prepare('SELECT members FROM recipients WHERE id = ?').get(recipientId) as { members: string | null } | undefined;
  return row?.members ? row.members.split(',').map(Number) : [];
};

// ---------------------------------------------------------------------------------------------------
// Sending

export type MessageType = 'direct' | 'private' | 'stream' | 'channel';

export interface SendRequest {
  type: MessageType;
  /**
   * As on the wire (a channel name or JSON-encoded ID; a JSON list, or comma-separated list, of user IDs or
   * e-mails), or already decoded.
   */
  to: string | number | readonly number[] | readonly string[];
  topic?: string;
  content: string;
  /** Whether the sender's copy is marked read; by default, only when `client` is one of Zulip's own apps. */
  readBySender?: boolean;
  /** Others whose copies arrive read: who caused a notice is not notified of it (do_send_messages' mark_as_read). */
  readBy?: readonly number[];
  /** Whose access renders `#**channel**` links, when not the sender's: the user a notice is on behalf of (acting_user). */
  renderAs?: number;
  client?: string;
}

/**
 * What sending needs of a request: a handler's context, or the same for work outside a request (creating the
 * organization); a request's own context also lets `serve` keep the rendering (message-rendering-cache.ts).
 */
export type SendContext = Pick<HandlerContext, 'db' | 'realmUrl' | 'nowSeconds' | 'emit'> & Partial<Pick<HandlerContext, 'rendersJson' | 'defer'>>;

type Target = { kind: 'channel'; indicator: string | number; topic: string } | { kind: 'direct'; recipients: readonly number[] | readonly string[] };

function channelIndicator(to: SendRequest['to']): string | number {
  if (typeof to === 'number') return to;
  if (Array.isArray(to)) {
    if (to.length !== 1) throw badRequest('Expected exactly one channel');
    return to[0]!;
  }
  const raw = to as string;
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    // Not JSON: a plain channel name.
    return raw;
  }
  if (Array.isArray(data)) {
    if (data.length !== 1) throw badRequest('Expected exactly one channel');
    data = data[0];
  }
  if (typeof data === 'string') return data;
  if (typeof data === 'number' && Number.isInteger(data)) return data;
  throw badRequest('Invalid data type for channel');
}

function directRecipients(to: SendRequest['to']): readonly number[] | readonly string[] {
  let data: unknown = typeof to === 'number' ? [to] : to;
  if (typeof to === 'string') {
    try {
      data = JSON.parse(to);
    } catch {
      data = to;
    }
  }
  if (typeof data === 'string') data = data.split(',');
  if (!Array.isArray(data)) throw badRequest('Invalid data type for recipients');
  if (data.length === 0) return [];
  if (typeof data[0] === 'string') {
    if (!data.every((d) => typeof d === 'string')) throw badRequest('Recipient lists may contain emails or user IDs, but not both.');
    return [...new Set((data as string[]).map((e) => e.trim()).filter((e) => e !== ''))];
  }
  if (!data.every((d) => typeof d === 'number' && Number.isInteger(d))) {
    if (typeof data[0] !== 'number') throw badRequest('Invalid data type for recipients');
    throw badRequest('Recipient lists may contain emails or user IDs, but not both.');
  }
  return [...new Set(data as number[])];
}

function resolveTarget(req: SendRequest): Target {
  if (req.type === 'stream' || req.type === 'channel') {
    const indicator = channelIndicator(req.to);
    if (req.topic === undefined) throw badRequest('Missing topic');
    return { kind: 'channel', indicator, topic: req.topic };
  }
  const recipients = directRecipients(req.to);
  if (recipients.length === 0) throw badRequest('Message must have recipients');
  return { kind: 'direct', recipients };
}

/** A user by API e-mail: the real address, or the `user{id}@host` placeholder. */
export function userByApiEmail(db: Db, email: string): UserRow | undefined {
  const placeholder = /^user(\d+)@/i.exec(email);
  return userByEmail(db, email) ?? (placeholder ? userById(db, Number(placeholder[1])) : undefined);
}

function directMembers(db: Db, recipients: readonly number[] | readonly string[]): UserRow[] {
  const users: UserRow[] = [];
  for (const r of recipients) {
    const user = typeof r === 'number' ? userById(db, r) : userByApiEmail(db, r);
    if (!user) throw badRequest(typeof r === 'number' ? `Invalid user ID ${r}` : `Invalid email '${r}'`);
    users.push(user);
  }
  return users;
}

function channelForSend(db: Db, sender: UserRow, indicator: string | number): StreamRow {
  const channel = typeof indicator === 'number' ? streamById(db, indicator) : streamByName(db, indicator);
  if (!channel) {
    throw typeof indicator === 'number'
      ? new ApiError(`Channel with ID '${indicator}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream_id: indicator })
      : new ApiError(`Channel '${indicator}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream: indicator });
  }
  const refused = badRequest(`Not authorized to send to channel '${channel.name}'`);
  if (channel.is_archived) throw refused;
  // zerver/lib/message.py validate_sender_can_write_to_stream: a cross-realm (system) bot posts anywhere.
  if (sender.is_system_bot) return channel;
  if (channel.is_web_public) return channel;
  if (channel.invite_only === 0 && !isGuest(sender)) return channel;
  if (isSubscribed(db, sender.id, channel.id)) return channel;
  // A bot may post wherever its owner may.
  if (sender.is_bot && sender.bot_owner_id !== null && isSubscribed(db, sender.bot_owner_id, channel.id)) return channel;
  throw refused;
}

/** Users who took part in a topic (sent or reacted), for `@**topic**`. */
export function topicParticipantIds(db: Db, recipientId: number, topic: string): Set<number> {
  const rows = db
    .prepare(`SELECT sender_id AS id FROM messages WHERE recipient_id = ? AND topic = ? COLLATE NOCASE
       UNION SELECT r.user_id FROM reactions r JOIN messages m ON m.id = r.message_id WHERE m.recipient_id = ? AND m.topic = ? COLLATE NOCASE`)
    .all(recipientId, topic, recipientId, topic) as { id: number }[];
  return new Set(rows.map((r) => r.id));
}

/** The mention flags `rendered` gives each recipient. */
export function mentionFlags(db: Db, rendered: Rendered, isChannel: boolean, participants: Set<number>): (userId: number) => number {
  const mentioned = new Set(rendered.mentionedUserIds);
  if (rendered.mentionedGroupIds.size) {
    const graph = new GroupGraph(db);
    for (const g of rendered.mentionedGroupIds) for (const id of graph.recursiveMembers(g)) mentioned.add(id);
  }
  return (userId) => {
    let flags = 0;
    if (mentioned.has(userId)) flags |= FLAG_BITS.mentioned;
    if (isChannel && rendered.streamWildcard) flags |= FLAG_BITS.stream_wildcard_mentioned;
    else if (isChannel && rendered.topicWildcard && participants.has(userId)) flags |= FLAG_BITS.topic_wildcard_mentioned;
    return flags;
  };
}

/** Flag names on the wire, with the legacy `wildcard_mentioned` when either wildcard flag is set. */
export function wireFlags(bits: number): string[] {
  const names: string[] = flagNames(bits);
  if (bits & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) names.push('wildcard_mentioned');
  return names;
}

/** zerver/lib/user_agent.py parse_user_agent: the name is what comes before the version. */
const USER_AGENT_NAME = /^([^/ ]*[^0-9/(]*)(\/[^/ ]*)?([ /].*)?$/;
/** Client.MAX_NAME_LENGTH (zerver/models/clients.py). */
const MAX_CLIENT_NAME_LENGTH = 30;

/**
 * The client name a Zulip server derives from the User-Agent (zerver/middleware.py parse_client:
 * `ZulipMobile/27.1 (Android)` → `ZulipMobile`, one it cannot parse → `Unspecified`). Requests without one
 * are chatctl's own in-process ones.
 */
export function clientName(userAgent: string): string {
  if (userAgent === '') return 'chatctl';
  return (USER_AGENT_NAME.exec(userAgent)?.[1] ?? 'Unspecified').slice(0, MAX_CLIENT_NAME_LENGTH);
}

/** Zulip's own apps, whose messages are read for their sender (zerver/models/clients.py default_read_by_sender). */
const ZULIP_APP_CLIENTS = new Set([
  'zulipandroid',
  'zulipios',
  'zulipdesktop',
  'zulipmobile',
  'zulipelectron',
  'zulipterminal',
  'snipe',
  'website',
  'ios',
  'android',
]);

/** Without `read_by_sender`, only a message sent from a Zulip app counts as read by its sender: not one an integration sends with the user's key. */
export const defaultReadBySender = (client: string): boolean => ZULIP_APP_CLIENTS.has(client.toLowerCase());

/** What POST /messages answers. */
export interface SentMessage {
  id: number;
  /** The policy the sender's topic took automatically (automatic-follow.ts), when it changed. */
  automatic_new_visibility_policy?: VisibilityPolicy;
}

/**
 * Validates and stores a message from `sender`, with a Zulip server's checks in its order, and notifies its
 * recipients. Used by POST /messages and by anything that posts on someone's behalf (outgoing-webhook
 * replies). Must run inside a write transaction. Returns the new message's ID. Calling the outgoing-webhook
 * bots it triggers is the sender's next step (webhooks.ts), as a server queues that work for another
 * worker: outgoing/ posts the bots' replies through here.
 */
export const sendMessage = (ctx: SendContext, sender: UserRow, req: SendRequest): number => sendMessageAnswer(ctx, sender, req).id;

/** sendMessage, with the whole answer of POST /messages. */
export function sendMessageAnswer(ctx: SendContext, sender: UserRow, req: SendRequest): SentMessage {
  const db = ctx.db;
  const target = resolveTarget(req);
  const members = target.kind === 'direct' ? directMembers(db, target.recipients) : [];
  const content = normalizeContent(req.content);
  let channel: StreamRow | undefined;
  let topic = '';
  if (target.kind === 'channel') {
    topic = canonicalTopic(db, target.topic);
    checkTopicCharacters(topic);
    topic = truncateTopic(topic);
    channel = channelForSend(db, sender, target.indicator);
  } else {
    for (const m of members) {
      if (!m.is_active) throw badRequest(`'${apiEmail(db, m)}' is no longer using Zulip.`);
    }
  }
  const memberIds = [...new Set([sender.id, ...members.map((m) => m.id)])];
  const recipientId = channel ? channelRecipientId(db, channel.id) : directRecipientId(db, memberIds);
  const rendered = renderMarkdown(db, content, { senderId: req.renderAs ?? sender.id });
  const client = req.client ?? 'chatctl';
  const readBySender = req.readBySender ?? defaultReadBySender(client);
  const now = ctx.nowSeconds();
  const id = Number(
    db
      .prepare(`INSERT INTO messages (sender_id, recipient_id, type, stream_id, topic, content, rendered_content, date_sent, client, is_me_message)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(
        sender.id,
        recipientId,
        channel ? 'stream' : 'private',
        channel?.id ?? null,
        topic,
        content,
        rendered.html,
        now,
        client,
        content.startsWith('/me ') ? 1 : 0,
      ).lastInsertRowid,
  );
  // Channel messages go to the active subscribers; the sender always keeps a copy.
  const userIds = channel ? [...new Set([...subscriberIds(db, channel.id), sender.id])] : memberIds;
  const participants = channel && rendered.topicWildcard ? topicParticipantIds(db, recipientId, topic) : new Set<number>();
  const flagsOf = mentionFlags(db, rendered, Boolean(channel), participants);
  // Recipients grouped by their flags: one insert and one event per group, however many subscribers.
  const byFlags = new Map<number, number[]>();
  for (const userId of userIds) {
    const read = (userId === sender.id && readBySender) || req.readBy?.includes(userId) === true;
    const flags = flagsOf(userId) | (read ? FLAG_BITS.read : 0);
    const group = byFlags.get(flags);
    if (group) group.push(userId);
    else byFlags.set(flags, [userId]);
  }
  const insert = db.prepare('INSERT INTO user_messages (user_id, message_id, flags) SELECT value, ?, ? FROM json_each(?)');
  for (const [flags, ids] of byFlags) insert.run(id, flags, JSON.stringify(ids));
  const mentionedRecipientIds = userIds.filter((userId) => rendered.mentionedUserIds.has(userId));
  const automatic = channel ? followOnSend(db, ctx, sender, { messageId: id, channel, topic, mentionedRecipientIds }, now) : undefined;
  const message = messageToWire(db, id, { applyMarkdown: true, clientGravatar: false }, ctx.realmUrl);
  for (const [flags, ids] of byFlags) ctx.emit({ type: 'message', message, flags: wireFlags(flags) }, ids);
  // A public channel's message also reaches queues that watch every public channel, with no flags
  // (zerver/tornado/event_queue.py get_client_info_for_message_event).
  if (channel && !channel.invite_only) {
    ctx.emit({ type: 'message', message, flags: [], for_public_watchers: true }, publicChannelWatcherIds(db, userIds));
  }
  linkAttachments(db, id, sender.id, content);
  // Last: nothing after it in the sending can fail and take the message back.
  keepSentMessage(db, ctx, message, sender);
  return automatic === undefined ? { id } : { id, automatic_new_visibility_policy: automatic };
}

// ---------------------------------------------------------------------------------------------------
// Wire form

export interface WireOptions {
  /** HTML content (default), or the raw Markdown. */
  applyMarkdown?: boolean;
  /** null `avatar_url` where the client can compute the Gravatar itself (default false). */
  clientGravatar?: boolean;
  /** Keep the empty topic as `""` instead of the organization's display name for it (default false). */
  allowEmptyTopicName?: boolean;
  /** Add `rendered_content` (the outgoing-webhook payload has it). */
  withRenderedContent?: boolean;
}

/** One row of `message_edits`. */
export interface EditRow {
  message_id: number;
  user_id: number | null;
  timestamp: number;
  prev_content: string | null;
  prev_rendered_content: string | null;
  prev_topic: string | null;
  prev_stream: number | null;
  stream: number | null;
  topic: string | null;
}

const inList = (ids: readonly number[]): string => JSON.stringify(ids);

/**
 * Messages in the format of GET /messages (without `flags`), in the order of `rows`: the same for every
 * caller (flags aside), as a Zulip server's message dicts are.
 */
export function messagesToWire(db: Db, rows: readonly MessageRow[], opts: WireOptions, realmUrl: string): WireMessage[] {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const view = userView(db, null, { clientGravatar: false, includeCustomProfileFields: false }, realmUrl);
  const memberLists = new Map<number, number[]>();
  for (const r of rows) if (r.type === 'private' && !memberLists.has(r.recipient_id)) memberLists.set(r.recipient_id, recipientMembers(db, r.recipient_id));
  const userIds = new Set<number>(rows.map((r) => r.sender_id));
  for (const list of memberLists.values()) for (const id of list) userIds.add(id);
  const userRows = usersForView(db, [...userIds]);
  const users = new Map(userRows.map((u) => [u.id, view(u)]));
  const policy = opts.clientGravatar ? getSetting(db, 'email_address_visibility') : undefined;
  const gravatarLeftToClient = new Set(policy === undefined ? [] : userRows.filter((u) => leavesGravatarToClient(policy, u)).map((u) => u.id));
  const channels = new Map(
    (
      db
        .prepare('SELECT id, name FROM streams WHERE id IN (SELECT value FROM json_each(?))')
        .all(inList(rows.flatMap((r) => (r.stream_id ? [r.stream_id] : [])))) as {
        id: number;
        name: string;
      }[]
    ).map((c) => [c.id, c.name]),
  );
  const reactions = new Map<number, MessageReaction[]>();
  for (const r of db
    .prepare(
      'SELECT message_id, emoji_name, emoji_code, reaction_type, user_id FROM reactions WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY rowid',
    )
    .all(inList(ids)) as (MessageReaction & { message_id: number })[]) {
    const { message_id, ...reaction } = r;
    reactions.set(message_id, [...(reactions.get(message_id) ?? []), reaction]);
  }
  const showHistory = getSetting(db, 'allow_edit_history');
  const edits = new Map<number, EditRow[]>();
  if (showHistory) {
    for (const e of db
      .prepare('SELECT * FROM message_edits WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY id DESC')
      .all(inList(ids)) as EditRow[]) {
      edits.set(e.message_id, [...(edits.get(e.message_id) ?? []), e]);
    }
  }
  const topicOf = (t: string) => displayTopic(db, t, opts.allowEmptyTopicName ?? false);
  const linksOf = topicLinker(db);
  const html = opts.applyMarkdown ?? true;
  return rows.map((r) => {
    const sender = users.get(r.sender_id);
    const displayRecipient: string | DisplayRecipientUser[] =
      r.type === 'stream'
        ? (channels.get(r.stream_id!) ?? '')
        : memberLists.get(r.recipient_id)!.map((id) => {
            const u = users.get(id);
            return { id, email: u?.email ?? '', full_name: u?.full_name ?? '', is_mirror_dummy: false };
          });
    const wire: WireMessage = {
      id: r.id,
      sender_id: r.sender_id,
      content: html ? r.rendered_content : r.content,
      recipient_id: r.recipient_id,
      timestamp: r.date_sent,
      client: r.client,
      subject: r.type === 'stream' ? topicOf(r.topic) : '',
      topic_links: r.type === 'stream' ? linksOf(r.topic) : [],
      is_me_message: r.is_me_message === 1,
      reactions: reactions.get(r.id) ?? [],
      submessages: [],
      sender_full_name: sender?.full_name ?? '',
      sender_email: sender?.email ?? '',
      sender_realm_str: sender?.is_system_bot ? SYSTEM_BOT_REALM : '',
      display_recipient: displayRecipient,
      type: r.type,
      avatar_url: gravatarLeftToClient.has(r.sender_id) ? null : (sender?.avatar_url ?? null),
      content_type: html ? 'text/html' : 'text/x-markdown',
    };
    if (r.type === 'stream') wire.stream_id = r.stream_id!;
    if (opts.withRenderedContent) wire.rendered_content = r.rendered_content;
    if (r.last_edit_time !== null) wire.last_edit_timestamp = r.last_edit_time;
    if (r.last_moved_time !== null) wire.last_moved_timestamp = r.last_moved_time;
    const history = edits.get(r.id);
    if (history?.length) wire.edit_history = history.map((e) => editHistoryEntry(e, topicOf));
    return wire;
  });
}

function editHistoryEntry(e: EditRow, topicOf: (t: string) => string): EditHistoryEntry {
  const entry: EditHistoryEntry = { user_id: e.user_id, timestamp: e.timestamp };
  if (e.prev_content !== null) {
    entry.prev_content = e.prev_content;
    entry.prev_rendered_content = e.prev_rendered_content ?? '';
  }
  if (e.prev_stream !== null) {
    entry.prev_stream = e.prev_stream;
    entry.stream = e.stream!;
  }
  if (e.prev_topic !== null) {
    entry.prev_topic = topicOf(e.prev_topic);
    entry.topic = topicOf(e.topic ?? '');
  }
  return entry;
}

/** One message in the format of GET /messages (without `flags`). */
export function messageToWire(db: Db, messageId: number, opts: WireOptions, realmUrl: string): WireMessage {
  const row = messageById(db, messageId);
  if (!row) throw badRequest('Invalid message(s)');
  return messagesToWire(db, [row], opts, realmUrl)[0]!;
}

/** The caller's flags on a message they may read: their own, or `read` + `historical` without a copy. */
export function viewerFlags(db: Db, viewer: UserRow, messageId: number): string[] {
  const row = db.prepare('SELECT flags FROM user_messages WHERE user_id = ? AND message_id = ?').get(viewer.id, messageId) as { flags: number } | undefined;
  return wireFlags(row ? row.flags : FLAG_BITS.read | FLAG_BITS.historical);
}
