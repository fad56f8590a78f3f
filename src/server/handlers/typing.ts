/** Typing notifications: composing a new message, and editing an existing one (model/typing.ts). */
import { badRequest } from '../../api/errors.js';
import { setMessageEditTypingStatus, setTypingStatus } from '../../api/operations/typing.js';
import { bind, callerOf, type Handlers, type HandlerContext } from '../context.js';
import { accessStream } from '../model/channels.js';
import { accessMessage, type MessageRow } from '../model/message-access.js';
import { canonicalTopic } from '../model/messages.js';
import { checkSendsTyping, notifyChannelTyping, notifyDirectTyping, notifyEditTyping } from '../model/typing.js';
import type { UserRow } from '../model/users.js';
import { getSetting } from '../model/realm.js';

function checkCanEdit(ctx: HandlerContext, user: UserRow, message: MessageRow): void {
  if (!getSetting(ctx.db, 'allow_message_editing')) throw badRequest('Your organization has turned off message editing');
  if (message.sender_id !== user.id) throw badRequest("You don't have permission to edit this message");
  const limit = getSetting(ctx.db, 'message_content_edit_limit_seconds');
  if (limit !== null && ctx.nowSeconds() - message.date_sent > limit) throw badRequest('The time limit for editing this message has passed');
}

export const handlers: Handlers<'typing'> = {
  setTypingStatus: bind(setTypingStatus, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    if (p.type === 'stream' || p.type === 'channel') {
      // Plain errors (no var_name), in this order, as a Zulip server checks them.
      if (p.stream_id === undefined) throw badRequest("Missing 'stream_id' argument");
      if (p.topic === undefined) throw badRequest('Missing topic');
      checkSendsTyping(me, 'stream');
      // Posting is unrestricted here, so seeing the channel's content is what sending to it takes.
      const stream = accessStream(db, me, p.stream_id);
      notifyChannelTyping(db, ctx, me, p.op, stream, canonicalTopic(db, p.topic));
      return {};
    }
    if (p.to === undefined) throw badRequest("Missing 'to' argument");
    if (p.to.length === 0) throw badRequest("Empty 'to' list");
    checkSendsTyping(me, 'private');
    notifyDirectTyping(db, ctx, me, p.op, p.to);
    return {};
  }),

  setMessageEditTypingStatus: bind(setMessageEditTypingStatus, (ctx, p) => {
    const me = callerOf(ctx);
    const message = accessMessage(ctx.db, me, p.message_id);
    checkCanEdit(ctx, me, message);
    checkSendsTyping(me, message.type);
    notifyEditTyping(ctx.db, ctx, me, p.op, message);
    return {};
  }),
};
