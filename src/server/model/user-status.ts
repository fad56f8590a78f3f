/**
 * User status: what GET /users/{id}/status and register show, and changing it. Validation and its order
 * are a Zulip server's update_user_status.
 */
import { badRequest } from '../../api/errors.js';
import type { ReactionType } from '../../api/operations/messages.js';
import type { UserStatus } from '../../api/operations/status.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { checkEmojiRequest, emojiDataFor } from './emoji.js';
import type { UserRow } from './users.js';
import { listeningUserIds } from './event-queues.js';

/**
 * A user's status as GET /users/{id}/status and register's `user_status` show it: only what is set (a user
 * with none gets `{}`), with the legacy `away` for a user who shares no presence.
 */
export function statusOf(
  user: Pick<UserRow, 'presence_enabled' | 'status_text' | 'status_emoji_name' | 'status_emoji_code' | 'status_reaction_type'>,
): UserStatus {
  const status: UserStatus = {};
  if (!user.presence_enabled) status.away = true;
  if (user.status_text) status.status_text = user.status_text;
  if (user.status_emoji_name) {
    status.emoji_name = user.status_emoji_name;
    status.emoji_code = user.status_emoji_code;
    status.reaction_type = user.status_reaction_type as ReactionType;
  }
  return status;
}

export interface StatusChange {
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

/** Validates and applies a status change, then tells everyone what changed (only the parts passed). */
export function updateStatus(db: Db, sink: EventSink, target: UserRow, change: StatusChange): void {
  const { away, status_text: text, emoji_name: name } = change;
  let { emoji_code: code, reaction_type: type } = change;
  if (away === undefined && text === undefined && name === undefined) throw badRequest('Client did not pass any new values.');
  if (name === '') {
    // An empty name clears the emoji, whatever code or type came with it.
    code = '';
    type = 'unicode_emoji';
  } else if (name !== undefined) {
    if (code === undefined || type === undefined) ({ emoji_code: code, reaction_type: type } = emojiDataFor(db, name));
    checkEmojiRequest(db, name, code, type);
  } else if (code !== undefined || type !== undefined) {
    throw badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  }
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
  sink.emit(event, listeningUserIds(db));
}
