/**
 * Who may read which messages, with a Zulip server's rules: direct messages only by their recipients;
 * channel messages by every non-guest in public channels, else by subscribers (who, in channels with
 * protected history, must also have received the message).
 */
import { badRequest } from '../../api/errors.js';
import type { Db } from '../store/db.js';
import { isSubscribed, type StreamRow } from './channels.js';
import { isGuest, type Viewer } from './users.js';

export interface MessageRow {
  id: number;
  sender_id: number;
  recipient_id: number;
  type: 'stream' | 'private';
  stream_id: number | null;
  topic: string;
  content: string;
  rendered_content: string;
  date_sent: number;
  client: string;
  is_me_message: number;
  last_edit_time: number | null;
  last_moved_time: number | null;
}

const isPublicTo = (user: Viewer, channel: Pick<StreamRow, 'invite_only'>): boolean => channel.invite_only === 0 && !isGuest(user);

/** Whether `user` may read the channel's whole history, not only what they received (Zulip's can_access_stream_history). */
export const canAccessChannelHistory = (db: Db, user: Viewer, channel: StreamRow): boolean =>
  isPublicTo(user, channel) || (channel.history_public_to_subscribers === 1 && isSubscribed(db, user.id, channel.id));

export const messageById = (db: Db, id: number): MessageRow | undefined => db.prepare('SELECT * FROM messages WHERE id = ?').get(id) as MessageRow | undefined;

export const userMessageFlags = (db: Db, userId: number, messageId: number): number | undefined =>
  (db.prepare('SELECT flags FROM user_messages WHERE user_id = ? AND message_id = ?').get(userId, messageId) as { flags: number } | undefined)?.flags;

export function hasMessageAccess(db: Db, user: Viewer, message: MessageRow): boolean {
  const received = () => userMessageFlags(db, user.id, message.id) !== undefined;
  if (message.type !== 'stream') return received();
  const channel = db.prepare('SELECT * FROM streams WHERE id = ?').get(message.stream_id) as StreamRow | undefined;
  if (!channel) return false;
  if (isPublicTo(user, channel)) return true;
  if (channel.history_public_to_subscribers === 0) return received() && isSubscribed(db, user.id, channel.id);
  return isSubscribed(db, user.id, channel.id);
}

/** The message, if `user` may read it; else `Invalid message(s)`, as for a message that does not exist. */
export function accessMessage(db: Db, user: Viewer, id: number): MessageRow {
  const message = messageById(db, id);
  if (!message || !hasMessageAccess(db, user, message)) throw badRequest('Invalid message(s)');
  return message;
}
