/**
 * Editing a message's content and moving messages between topics and channels (PATCH /messages/{id}),
 * with a Zulip server's checks in its order, the edit record, re-rendering, flag updates and the
 * `update_message` / `delete_message` events. Notification messages about moves (Notification Bot
 * breadcrumbs) are not sent.
 */
import type { Attachment } from '../../api/operations/attachments.js';
import { badRequest, moveTimeLimitExceeded } from '../../api/errors.js';
import type { HandlerContext } from '../context.js';
import { EMPTY_TOPIC_FALLBACK_NAME, getSetting } from './realm.js';
import { mayUse } from './realm-permissions.js';
import type { Db } from '../store/db.js';
import { attachmentById, attachmentView, linkAttachments } from './attachments.js';
import { accessStream, subscriberIds, type StreamRow } from './channels.js';
import { FLAG_BITS } from './flags.js';
import { accessMessage, canAccessChannelHistory, type MessageRow } from './message-access.js';
import {
  canonicalTopic,
  channelRecipientId,
  checkTopicCharacters,
  displayTopic,
  isResolvedTopic,
  mentionFlags,
  normalizeContent,
  topicParticipantIds,
  truncateTopic,
  unresolvedTopic,
  wireFlags,
} from './messages.js';
import { renderMarkdown, topicLinks } from './render.js';
import { RESOLVED_TOPIC_PREFIX } from './resolved-topic.js';
import { isGuest, isModeratorOrAbove, userById, type UserRow } from './users.js';

export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

export interface EditRequest {
  messageId: number;
  content?: string;
  topic?: string;
  streamId?: number;
  propagateMode: PropagateMode;
}

/** Zulip allows 20 s past a time limit, for network delays and the client's own countdown. */
const EDIT_LIMIT_BUFFER = 20;

/**
 * Who may rename topics, resolve them and move messages out of their channel: the organization's group
 * settings (zerver/lib/streams.py can_edit_topic, can_resolve_topics, can_move_messages_out_of_channel).
 * The per-channel grants those also consult are not modelled.
 */
const mayMoveTopics = (db: Db, user: UserRow): boolean => mayUse(db, user, 'can_move_messages_between_topics_group');
const mayResolveTopics = (db: Db, user: UserRow): boolean => mayUse(db, user, 'can_resolve_topics_group');
const mayMoveBetweenChannels = (db: Db, user: UserRow): boolean => mayUse(db, user, 'can_move_messages_between_channels_group');

/** The time limits on moves bind those below moderators only (zerver/actions/message_edit.py, `is_moderator`). */
function checkMoveLimit(db: Db, user: UserRow, message: MessageRow, limitKey: MoveLimitKey, now: number, msg: string): void {
  const limit = getSetting(db, limitKey);
  if (limit !== null && !isModeratorOrAbove(user) && now - message.date_sent > limit + EDIT_LIMIT_BUFFER) throw badRequest(msg);
}

type MoveLimitKey = 'move_messages_within_stream_limit_seconds' | 'move_messages_between_streams_limit_seconds';

/** The topic without any leading character of the resolved prefix, as Python's `lstrip(RESOLVED_TOPIC_PREFIX)`. */
function stripPrefixCharacters(topic: string): string {
  let start = 0;
  while (start < topic.length && RESOLVED_TOPIC_PREFIX.includes(topic.charAt(start))) start++;
  return topic.slice(start);
}

/**
 * Whether a topic edit only adds or removes the resolved prefix (zerver/actions/message_edit.py
 * build_message_edit_request): such an edit is governed by can_resolve_topics_group, without time limit.
 * `requested` is the new topic before truncation.
 */
function isResolveToggle(oldTopic: string, requested: string, target: string): boolean {
  const resolving = isResolvedTopic(target) && !isResolvedTopic(oldTopic) && requested.slice(RESOLVED_TOPIC_PREFIX.length) === oldTopic;
  const unresolving = isResolvedTopic(oldTopic) && !isResolvedTopic(target) && stripPrefixCharacters(oldTopic) === target;
  return resolving || unresolving;
}

/**
 * A `change_all` move by someone the time limits bind must take every message of the topic they can see
 * (zerver/actions/message_edit.py check_time_limit_for_change_all_propagate_mode): the strictest limit of
 * the move decides which are recent enough.
 */
function checkChangeAllLimit(db: Db, topicMessages: readonly MessageRow[], topicMoved: boolean, channelMoved: boolean, now: number): void {
  const deadlines: number[] = [];
  const withinLimit = getSetting(db, 'move_messages_within_stream_limit_seconds');
  const betweenLimit = getSetting(db, 'move_messages_between_streams_limit_seconds');
  if (topicMoved && withinLimit !== null) deadlines.push(withinLimit + EDIT_LIMIT_BUFFER);
  if (channelMoved && betweenLimit !== null) deadlines.push(betweenLimit + EDIT_LIMIT_BUFFER);
  if (deadlines.length === 0) return;
  const oldest = now - Math.min(...deadlines);
  const allowed = topicMessages.filter((m) => m.date_sent > oldest);
  const first = allowed[0];
  // With none allowed, the message asked for is itself past the limit, which was refused before.
  if (allowed.length === topicMessages.length || !first) return;
  throw moveTimeLimitExceeded(first.id, topicMessages.length, allowed.length);
}

function checkCanEditContent(db: Db, user: UserRow, message: MessageRow, now: number): void {
  if (!getSetting(db, 'allow_message_editing')) throw badRequest('Your organization has turned off message editing');
  if (message.sender_id !== user.id) throw badRequest("You don't have permission to edit this message");
  const limit = getSetting(db, 'message_content_edit_limit_seconds');
  if (limit !== null && now - message.date_sent > limit + EDIT_LIMIT_BUFFER) throw badRequest('The time limit for editing this message has passed');
}

/** The messages a topic or channel move takes along, by propagate mode (only those the mover can read). */
function messagesToMove(db: Db, user: UserRow, message: MessageRow, channel: StreamRow, mode: PropagateMode): MessageRow[] {
  if (mode === 'change_one') return [message];
  const later = mode === 'change_later' ? ' AND m.id >= ?' : '';
  const params: unknown[] = [message.stream_id, message.topic];
  if (later) params.push(message.id);
  const visible = canAccessChannelHistory(db, user, channel)
    ? ''
    : ' AND EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = ?)';
  if (visible) params.push(user.id);
  return db
    .prepare(`SELECT m.* FROM messages m WHERE m.stream_id = ? AND m.topic = ? COLLATE NOCASE${later}${visible} ORDER BY m.id`)
    .all(...params) as MessageRow[];
}

const inList = (ids: readonly number[]): string => JSON.stringify(ids);

/** Applies an edit; returns the uploads the new content no longer links (and no other message does). */
export function editMessage(ctx: HandlerContext, user: UserRow, req: EditRequest): Attachment[] {
  const db = ctx.db;
  const now = ctx.nowSeconds();
  const message = accessMessage(db, user, req.messageId);
  if (req.content !== undefined) checkCanEditContent(db, user, message, now);
  let topic = req.topic === undefined ? undefined : canonicalTopic(db, req.topic);
  if (topic === message.topic) topic = undefined;
  let streamId = req.streamId;
  if (streamId === message.stream_id) streamId = undefined;

  if (topic === undefined && req.content === undefined && streamId === undefined) throw badRequest('Nothing to change');
  if (message.type !== 'stream') {
    if (streamId !== undefined) throw badRequest('Direct messages cannot be moved to channels.');
    if (topic !== undefined) throw badRequest('Direct messages cannot have topics.');
  }
  if (req.propagateMode !== 'change_one' && topic === undefined && streamId === undefined) throw badRequest('Invalid propagate_mode without topic edit');
  if (topic === RESOLVED_TOPIC_PREFIX.trim() || topic === `${RESOLVED_TOPIC_PREFIX}${EMPTY_TOPIC_FALLBACK_NAME}`)
    throw badRequest('General chat cannot be marked as resolved');
  if (topic !== undefined) checkTopicCharacters(topic);
  if (streamId !== undefined && req.content !== undefined) throw badRequest('Cannot change message content while changing channel');

  let content: string | undefined;
  if (req.content !== undefined) content = normalizeContent(req.content.trimEnd() === '' ? '(deleted)' : req.content);
  const requestedTopic = topic;
  if (topic !== undefined) topic = truncateTopic(topic);
  const newChannel = streamId === undefined ? undefined : accessStream(db, user, streamId);
  let resolveToggle = false;
  if (requestedTopic !== undefined && topic !== undefined) {
    resolveToggle = isResolveToggle(message.topic, requestedTopic, topic);
    if (resolveToggle) {
      if (!mayResolveTopics(db, user)) throw badRequest("You don't have permission to resolve topics in this channel.");
    } else {
      if (!mayMoveTopics(db, user)) throw badRequest("You don't have permission to edit this message");
      checkMoveLimit(db, user, message, 'move_messages_within_stream_limit_seconds', now, "The time limit for editing this message's topic has passed.");
    }
  }
  if (newChannel) {
    if (!mayMoveBetweenChannels(db, user)) throw badRequest("You don't have permission to move this message");
    checkMoveLimit(db, user, message, 'move_messages_between_streams_limit_seconds', now, "The time limit for editing this message's channel has passed");
  }

  const oldChannel = message.stream_id === null ? undefined : (db.prepare('SELECT * FROM streams WHERE id = ?').get(message.stream_id) as StreamRow);
  const moving = topic !== undefined || newChannel !== undefined;
  const moved = moving ? messagesToMove(db, user, message, oldChannel!, req.propagateMode) : [message];
  if (req.propagateMode === 'change_all' && moving && !resolveToggle && !isModeratorOrAbove(user)) {
    checkChangeAllLimit(db, moved, topic !== undefined, newChannel !== undefined, now);
  }
  const movedIds = moved.map((m) => m.id);
  const event: Record<string, unknown> & { type: string } = {
    type: 'update_message',
    user_id: user.id,
    edit_timestamp: now,
    message_id: message.id,
    message_ids: movedIds,
    rendering_only: false,
  };
  if (oldChannel) {
    event.stream_name = oldChannel.name;
    event.stream_id = oldChannel.id;
  }

  let detached: Attachment[] = [];
  if (content !== undefined) {
    detached = applyContentEdit(ctx, message, content, topic ?? message.topic, event);
  }
  let losingAccess: number[] = [];
  if (moving) {
    event.propagate_mode = req.propagateMode;
    event.orig_subject = displayTopic(db, message.topic, false);
    if (topic !== undefined) {
      event.subject = displayTopic(db, topic, false);
      event.topic_links = topicLinks(db, topic);
    }
    if (newChannel) event.new_stream_id = newChannel.id;
    losingAccess = applyMove(ctx, message, moved, oldChannel!, newChannel, topic, now);
  }
  recordEdits(db, user, message, moved, { content, topic, newChannel, now });
  notify(ctx, oldChannel, movedIds, event, losingAccess);
  return detached;
}

function applyContentEdit(ctx: HandlerContext, message: MessageRow, content: string, topic: string, event: Record<string, unknown>): Attachment[] {
  const db = ctx.db;
  const rendered = renderMarkdown(db, content, { senderId: message.sender_id });
  event.orig_content = message.content;
  event.orig_rendered_content = message.rendered_content;
  event.content = content;
  event.rendered_content = rendered.html;
  event.prev_rendered_content_version = 1;
  event.is_me_message = content.startsWith('/me ');
  db.prepare('UPDATE messages SET content = ?, rendered_content = ?, is_me_message = ?, last_edit_time = ? WHERE id = ?').run(
    content,
    rendered.html,
    content.startsWith('/me ') ? 1 : 0,
    ctx.nowSeconds(),
    message.id,
  );
  // Mentions follow the new content, as on a Zulip server: `mentioned` and the topic wildcard are
  // recomputed; a channel wildcard mention, once made, is not taken back.
  const isChannel = message.type === 'stream';
  const participants = isChannel && rendered.topicWildcard ? topicParticipantIds(db, message.recipient_id, topic) : new Set<number>();
  const flagsOf = mentionFlags(db, rendered, isChannel, participants);
  const rows = db.prepare('SELECT user_id, flags FROM user_messages WHERE message_id = ?').all(message.id) as { user_id: number; flags: number }[];
  const update = db.prepare('UPDATE user_messages SET flags = ? WHERE user_id = ? AND message_id = ?');
  for (const row of rows) {
    const wanted = flagsOf(row.user_id);
    let flags = (row.flags & ~FLAG_BITS.mentioned) | (wanted & FLAG_BITS.mentioned);
    flags |= wanted & FLAG_BITS.stream_wildcard_mentioned;
    if (!rendered.streamWildcard) flags = (flags & ~FLAG_BITS.topic_wildcard_mentioned) | (wanted & FLAG_BITS.topic_wildcard_mentioned);
    if (flags !== row.flags) update.run(flags, row.user_id, message.id);
  }
  const before = (db.prepare('SELECT attachment_id FROM attachment_messages WHERE message_id = ?').all(message.id) as { attachment_id: number }[]).map(
    (r) => r.attachment_id,
  );
  linkAttachments(db, message.id, message.sender_id, content);
  const stillLinked = db.prepare('SELECT 1 FROM attachment_messages WHERE attachment_id = ?');
  return before
    .filter((id) => !stillLinked.get(id))
    .flatMap((id) => {
      const row = attachmentById(db, id);
      return row ? [attachmentView(db, row)] : [];
    });
}

/** Moves the messages; returns the users who can no longer read them (they get `delete_message`). */
function applyMove(
  ctx: HandlerContext,
  target: MessageRow,
  moved: MessageRow[],
  oldChannel: StreamRow,
  newChannel: StreamRow | undefined,
  topic: string | undefined,
  now: number,
): number[] {
  const db = ctx.db;
  const ids = inList(moved.map((m) => m.id));
  // Resolving or unresolving a topic (adding or removing the `✔ ` prefix) is not a move.
  const onlyResolving =
    !newChannel && topic !== undefined && isResolvedTopic(topic) !== isResolvedTopic(target.topic) && unresolvedTopic(topic) === unresolvedTopic(target.topic);
  const movedAt = onlyResolving ? null : now;
  if (topic !== undefined) db.prepare('UPDATE messages SET topic = ? WHERE id IN (SELECT value FROM json_each(?))').run(topic, ids);
  if (movedAt !== null) db.prepare('UPDATE messages SET last_moved_time = ? WHERE id IN (SELECT value FROM json_each(?))').run(movedAt, ids);
  if (!newChannel) return [];
  db.prepare('UPDATE messages SET stream_id = ?, recipient_id = ? WHERE id IN (SELECT value FROM json_each(?))').run(
    newChannel.id,
    channelRecipientId(db, newChannel.id),
    ids,
  );
  const newSubscribers = new Set(subscriberIds(db, newChannel.id));
  const holders = (
    db.prepare('SELECT DISTINCT user_id FROM user_messages WHERE message_id IN (SELECT value FROM json_each(?))').all(ids) as { user_id: number }[]
  ).map((r) => r.user_id);
  const losingRows = holders.filter((id) => !newSubscribers.has(id));
  const removeRows = db.prepare('DELETE FROM user_messages WHERE user_id = ? AND message_id IN (SELECT value FROM json_each(?))');
  for (const id of losingRows) removeRows.run(id, ids);
  if (newChannel.history_public_to_subscribers === 0) {
    // Without shared history, subscribers read only what they hold: give every current one a copy.
    const add = db.prepare('INSERT OR IGNORE INTO user_messages (user_id, message_id, flags) VALUES (?, ?, ?)');
    for (const id of newSubscribers) for (const m of moved) add.run(id, m.id, FLAG_BITS.read);
  }
  // In a public channel only guests who are not subscribed lose access; in a private one, everyone not subscribed.
  const oldAll = (db.prepare('SELECT user_id FROM subscriptions WHERE stream_id = ?').all(oldChannel.id) as { user_id: number }[]).map((r) => r.user_id);
  const candidates = [...new Set([...oldAll, ...holders])].filter((id) => !newSubscribers.has(id));
  const losing = newChannel.invite_only
    ? candidates
    : candidates.filter((id) => {
        const user = userById(db, id);
        return user !== undefined && isGuest(user);
      });
  if (losing.length) {
    ctx.emit(
      {
        type: 'delete_message',
        message_ids: moved.map((m) => m.id),
        message_type: 'stream',
        stream_id: oldChannel.id,
        topic: displayTopic(db, target.topic, false),
      },
      losing,
    );
  }
  return losing;
}

interface EditSummary {
  content: string | undefined;
  topic: string | undefined;
  newChannel: StreamRow | undefined;
  now: number;
}

/** One `message_edits` row per changed message; the others moved along get only the topic/channel part. */
function recordEdits(db: Db, user: UserRow, target: MessageRow, moved: MessageRow[], e: EditSummary): void {
  const insert = db.prepare(
    `INSERT INTO message_edits (message_id, user_id, timestamp, prev_content, prev_rendered_content, prev_topic, prev_stream, stream, topic)
     VALUES (@message_id, @user_id, @timestamp, @prev_content, @prev_rendered_content, @prev_topic, @prev_stream, @stream, @topic)`,
  );
  const targets = moved.some((m) => m.id === target.id) ? moved : [target, ...moved];
  for (const m of targets) {
    const isTarget = m.id === target.id;
    insert.run({
      message_id: m.id,
      user_id: user.id,
      timestamp: e.now,
      prev_content: isTarget && e.content !== undefined ? m.content : null,
      prev_rendered_content: isTarget && e.content !== undefined ? m.rendered_content : null,
      prev_topic: e.topic !== undefined ? m.topic : null,
      topic: e.topic !== undefined ? e.topic : null,
      prev_stream: e.newChannel ? m.stream_id : null,
      stream: e.newChannel ? e.newChannel.id : null,
    });
  }
}

/**
 * `update_message` to everyone holding a copy, plus (with shared history) the channel's subscribers, each
 * with their own flags; not to those who just lost access.
 */
function notify(
  ctx: HandlerContext,
  oldChannel: StreamRow | undefined,
  movedIds: number[],
  event: Record<string, unknown> & { type: string },
  losing: number[],
): void {
  const db = ctx.db;
  const lost = new Set(losing);
  const flagsByUser = new Map<number, number>();
  for (const r of db.prepare('SELECT user_id, flags FROM user_messages WHERE message_id = ?').all(event.message_id) as { user_id: number; flags: number }[]) {
    if (!lost.has(r.user_id)) flagsByUser.set(r.user_id, r.flags);
  }
  if (oldChannel?.history_public_to_subscribers) {
    for (const id of subscriberIds(db, oldChannel.id)) if (!flagsByUser.has(id) && !lost.has(id)) flagsByUser.set(id, FLAG_BITS.read);
  }
  const groups = new Map<number, number[]>();
  for (const [userId, flags] of flagsByUser) groups.set(flags, [...(groups.get(flags) ?? []), userId]);
  for (const [flags, userIds] of groups) ctx.emit({ ...event, message_ids: movedIds, flags: wireFlags(flags) }, userIds);
}
