/**
 * Typing notifications, stateless as on a Zulip server: each request becomes one event to the users of the
 * conversation who receive typing notifications, and nothing is stored.
 */
import { badRequest } from '../../api/errors.js';
import { setMessageEditTypingStatus, setTypingStatus } from '../../api/operations/typing.js';
import { bind, callerOf, type Binding, type HandlerContext } from '../context.js';
import { accessStream } from '../model/channels.js';
import { accessMessage, type MessageRow } from '../model/message-access.js';
import { canonicalTopic, recipientMembers } from '../model/messages.js';
import { apiEmail, apiEmailer, userById, usersByIds, type UserBrief, type UserRow } from '../model/users.js';
import { getSetting } from '../realm.js';
import type { Db } from '../store/db.js';

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

function checkSendsTyping(user: UserRow, kind: 'stream' | 'private'): void {
  if (kind === 'stream' && !user.send_stream_typing_notifications) {
    throw badRequest('User has disabled typing notifications for channel messages');
  }
  if (kind === 'private' && !user.send_private_typing_notifications) {
    throw badRequest('User has disabled typing notifications for direct messages');
  }
}

function checkCanEdit(ctx: HandlerContext, user: UserRow, message: MessageRow): void {
  if (!getSetting(ctx.db, 'allow_message_editing')) throw badRequest('Your organization has turned off message editing');
  if (message.sender_id !== user.id) throw badRequest("You don't have permission to edit this message");
  const limit = getSetting(ctx.db, 'message_content_edit_limit_seconds');
  if (limit !== null && ctx.nowSeconds() - message.date_sent > limit) throw badRequest('The time limit for editing this message has passed');
}

export const bindings: Binding[] = [
  bind(setTypingStatus, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    const sender = { user_id: me.id, email: apiEmail(db, me, ctx.realmUrl) };
    if (p.type === 'stream' || p.type === 'channel') {
      // Plain errors (no var_name), in this order, as a Zulip server checks them.
      if (p.stream_id === undefined) throw badRequest("Missing 'stream_id' argument");
      if (p.topic === undefined) throw badRequest('Missing topic');
      checkSendsTyping(me, 'stream');
      // Posting is unrestricted here, so seeing the channel's content is what sending to it takes.
      const stream = accessStream(db, me, p.stream_id);
      const event = { type: 'typing', op: p.op, message_type: 'stream', sender, stream_id: stream.id, topic: canonicalTopic(db, p.topic) };
      ctx.emit(event, channelTypingAudience(db, stream.id));
      return {};
    }
    if (p.to === undefined) throw badRequest("Missing 'to' argument");
    if (p.to.length === 0) throw badRequest("Empty 'to' list");
    checkSendsTyping(me, 'private');
    // The sender belongs to the conversation; one unknown ID rejects the whole request.
    const ids = p.to.includes(me.id) ? p.to : [...p.to, me.id];
    // One query for the lot: a list of a thousand IDs is legal, and must not cost a thousand.
    const found = new Map(usersByIds(db, ids).map((u) => [u.id, u]));
    const recipients = ids.map((id) => {
      const user = found.get(id);
      if (!user) throw badRequest(`Invalid user ID ${id}`);
      return user;
    });
    const emailOf = apiEmailer(db, ctx.realmUrl);
    const event = {
      type: 'typing',
      op: p.op,
      message_type: 'direct',
      sender,
      recipients: recipients.map((u) => ({ user_id: u.id, email: emailOf(u) })),
    };
    ctx.emit(event, recipients.filter(receivesTyping).map((u) => u.id));
    return {};
  }),

  bind(setMessageEditTypingStatus, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    const message = accessMessage(db, me, p.message_id);
    checkCanEdit(ctx, me, message);
    checkSendsTyping(me, message.type);
    const base = { type: 'typing_edit_message', op: p.op, sender_id: me.id, message_id: message.id };
    if (message.type === 'stream') {
      const recipient = { type: 'channel', channel_id: message.stream_id, topic: message.topic };
      ctx.emit({ ...base, recipient }, channelTypingAudience(db, message.stream_id!));
      return {};
    }
    // A direct conversation's members, with the sender (a message to oneself has only them).
    const memberIds = new Set(recipientMembers(db, message.recipient_id));
    memberIds.add(message.sender_id);
    const audience = [...memberIds]
      .sort((a, b) => a - b)
      .map((id) => userById(db, id))
      .filter((u): u is UserRow => u !== undefined && receivesTyping(u))
      .map((u) => u.id);
    ctx.emit({ ...base, recipient: { type: 'direct', user_ids: audience } }, audience);
    return {};
  }),
];
