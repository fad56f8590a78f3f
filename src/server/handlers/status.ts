/**
 * User status: reading a user's status, setting one's own (with the legacy `away`), and administrators
 * setting another user's. Validation and its order are a Zulip server's update_user_status.
 */
import { badRequest } from '../../api/errors.js';
import { getUserStatus, updateOwnStatus, updateUserStatus } from '../../api/operations/status.js';
import { bind, callerOf, type Binding, type HandlerContext } from '../context.js';
import { checkEmojiRequest, emojiDataFor } from '../model/emoji.js';
import { accessUser, activeUserIds, statusOf, userById, type UserRow } from '../model/users.js';

interface StatusChange {
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

/** Validates and applies a status change, then tells everyone what changed (only the parts passed). */
function updateStatus(ctx: HandlerContext, target: UserRow, change: StatusChange): Record<string, never> {
  const { away, status_text: text, emoji_name: name } = change;
  let { emoji_code: code, reaction_type: type } = change;
  if (away === undefined && text === undefined && name === undefined) throw badRequest('Client did not pass any new values.');
  if (name === '') {
    // An empty name clears the emoji, whatever code or type came with it.
    code = '';
    type = 'unicode_emoji';
  } else if (name !== undefined) {
    if (code === undefined || type === undefined) ({ emoji_code: code, reaction_type: type } = emojiDataFor(ctx.db, name));
    checkEmojiRequest(ctx.db, name, code, type);
  } else if (code !== undefined || type !== undefined) {
    throw badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  }
  const db = ctx.db;
  const event: Record<string, unknown> & { type: string } = { type: 'user_status', user_id: target.id };
  if (away !== undefined) {
    // `away` is the legacy inverse of presence_enabled.
    db.prepare('UPDATE users SET presence_enabled = ? WHERE id = ?').run(away ? 0 : 1, target.id);
    event.away = away;
  }
  if (text !== undefined) {
    db.prepare('UPDATE users SET status_text = ? WHERE id = ?').run(text, target.id);
    event.status_text = text;
  }
  if (name !== undefined) {
    db.prepare('UPDATE users SET status_emoji_name = ?, status_emoji_code = ?, status_reaction_type = ? WHERE id = ?').run(name, code, type, target.id);
    Object.assign(event, { emoji_name: name, emoji_code: code, reaction_type: type });
  }
  ctx.emit(event, activeUserIds(db));
  return {};
}

export const bindings: Binding[] = [
  bind(getUserStatus, (ctx, p) => {
    const target = accessUser(callerOf(ctx), userById(ctx.db, p.user_id), { forAdmin: false });
    return { status: statusOf(target) };
  }),

  bind(updateOwnStatus, (ctx, p) => updateStatus(ctx, callerOf(ctx), p)),

  bind(updateUserStatus, (ctx, p) => {
    const target = accessUser(callerOf(ctx), userById(ctx.db, p.user_id), { forAdmin: true });
    return updateStatus(ctx, target, p);
  }),
];
