/**
 * Typing notifications, stateless as on a Zulip server: each request becomes one event to the users of the
 * conversation who receive typing notifications, and nothing is stored.
 */
import { badRequest } from '../../api/errors.js';
import type { TypingOp } from '../../api/operations/typing.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import type { StreamRow } from './channels.js';
import type { MessageRow } from './message-access.js';
import { recipientMembers } from './messages.js';
import { apiEmail, apiEmailer } from './user-view.js';
import { userById, usersByIds, type UserBrief, type UserRow } from './users.js';

/** Channels with more subscribers than this get no typing events at all (MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS). */
export const MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS = 100;

/**
 * Who gets a channel's typing events: active subscribers who receive typing notifications, or nobody when
 * the channel is too big for them.
 */
function channelTypingAudience(db: Db, streamId: number): number[] {
  const subscribers = db
    .prepare(
      `SELECT u.id, u.receives_typing_notifications AS receives FROM subscriptions s JOIN users u ON u.id = s.user_id
       WHERE s.stream_id = ? AND s.active = 1 AND u.is_active = 1`,
    )
    .all(streamId) as { id: number; receives: number }[];
  if (subscribers.length > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS) return [];
  return subscribers.filter((s) => s.receives).map((s) => s.id);
}

const receivesTyping = (u: UserBrief): boolean => u.is_active === 1 && u.receives_typing_notifications === 1;

/** Refuses a sender who turned typing notifications off for this kind of conversation. */
export function checkSendsTyping(user: UserRow, kind: 'stream' | 'private'): void {
  if (kind === 'stream' && !user.send_stream_typing_notifications) {
    throw badRequest('User has disabled typing notifications for channel messages');
  }
  if (kind === 'private' && !user.send_private_typing_notifications) {
    throw badRequest('User has disabled typing notifications for direct messages');
  }
}

const senderOf = (db: Db, sender: UserRow) => ({ user_id: sender.id, email: apiEmail(db, sender) });

/** Typing in a channel's topic, to the channel's audience. */
export function notifyChannelTyping(db: Db, sink: EventSink, sender: UserRow, op: TypingOp, stream: StreamRow, topic: string): void {
  const event = { type: 'typing', op, message_type: 'stream', sender: senderOf(db, sender), stream_id: stream.id, topic };
  sink.emit(event, channelTypingAudience(db, stream.id));
}

/** Typing in a direct conversation with `to` (the sender belongs to it too); one unknown ID rejects the lot. */
export function notifyDirectTyping(db: Db, sink: EventSink, sender: UserRow, op: TypingOp, to: readonly number[]): void {
  const ids = to.includes(sender.id) ? to : [...to, sender.id];
  // One query for the lot: a list of a thousand IDs is legal, and must not cost a thousand.
  const found = new Map(usersByIds(db, ids).map((u) => [u.id, u]));
  const recipients = ids.map((id) => {
    const user = found.get(id);
    if (!user) throw badRequest(`Invalid user ID ${id}`);
    return user;
  });
  const emailOf = apiEmailer(db);
  const event = {
    type: 'typing',
    op,
    message_type: 'direct',
    sender: senderOf(db, sender),
    recipients: recipients.map((u) => ({ user_id: u.id, email: emailOf(u) })),
  };
  sink.emit(
    event,
    recipients.filter(receivesTyping).map((u) => u.id),
  );
}

/** Typing while editing a message, to the message's conversation. */
export function notifyEditTyping(db: Db, sink: EventSink, sender: UserRow, op: TypingOp, message: MessageRow): void {
  const base = { type: 'typing_edit_message', op, sender_id: sender.id, message_id: message.id };
  if (message.type === 'stream') {
    const recipient = { type: 'channel', channel_id: message.stream_id, topic: message.topic };
    sink.emit({ ...base, recipient }, channelTypingAudience(db, message.stream_id!));
    return;
  }
  // A direct conversation's members, with the sender (a message to oneself has only them).
  const memberIds = new Set(recipientMembers(db, message.recipient_id));
  memberIds.add(message.sender_id);
  const audience = [...memberIds]
    .sort((a, b) => a - b)
    .map((id) => userById(db, id))
    .filter((u): u is UserRow => u !== undefined && receivesTyping(u))
    .map((u) => u.id);
  sink.emit({ ...base, recipient: { type: 'direct', user_ids: audience } }, audience);
}
