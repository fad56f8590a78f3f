/**
 * Changing personal message flags (read, starred, collapsed), with a Zulip server's checks and its
 * `update_message_flags` event.
 */
import { badRequest } from '../../api/errors.js';
import type { HandlerContext } from '../context.js';
import type { Db } from '../store/db.js';
import { EDITABLE_FLAGS, FLAG_BITS, type FlagName } from './flags.js';
import { accessMessage } from './message-access.js';
import { displayTopic, recipientMembers } from './messages.js';
import type { UserRow } from './users.js';

export interface FlagChange {
  /** Messages whose flag changed, ascending. */
  changed: number[];
  /** For `read` removal: channels whose messages were skipped, the caller not being subscribed. */
  ignoredChannels?: number[];
}

/** The flag and operation checks, in the server's order; run after any narrow query. */
export function checkFlagRequest(op: string, flag: string): { flag: FlagName; adding: boolean } {
  if (!Object.hasOwn(FLAG_BITS, flag)) throw badRequest(`Invalid flag: '${flag}'`);
  if (!EDITABLE_FLAGS.includes(flag as FlagName)) throw badRequest(`Flag not editable: '${flag}'`);
  if (op !== 'add' && op !== 'remove') throw badRequest(`Invalid message flag operation: '${op}'`);
  return { flag: flag as FlagName, adding: op === 'add' };
}

const unique = (ids: readonly number[]): number[] => [...new Set(ids)];

/**
 * Adds or removes `flag` on `messageIds` for `user`. Messages the user may read but never received get a
 * `historical` copy first; unreadable ones fail the whole request with `Invalid message(s)`.
 */
export function updateFlags(ctx: HandlerContext, user: UserRow, op: string, rawFlag: string, messageIds: readonly number[]): FlagChange {
  const db = ctx.db;
  const { flag, adding } = checkFlagRequest(op, rawFlag);
  let ids = unique(messageIds);
  let ignoredChannels: number[] | undefined;
  if (flag === 'read' && !adding) {
    // Unread messages must be in channels one is subscribed to: the others are left alone.
    const skipped = db
      .prepare(
        `SELECT m.id, m.stream_id FROM messages m WHERE m.id IN (SELECT value FROM json_each(?)) AND m.type = 'stream'
           AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ? AND s.stream_id = m.stream_id AND s.active = 1)`,
      )
      .all(JSON.stringify(ids), user.id) as { id: number; stream_id: number }[];
    const skippedIds = new Set(skipped.map((r) => r.id));
    ids = ids.filter((id) => !skippedIds.has(id));
    ignoredChannels = unique(skipped.map((r) => r.stream_id)).sort((a, b) => a - b);
  }
  const have = new Set(
    (
      db
        .prepare('SELECT message_id FROM user_messages WHERE user_id = ? AND message_id IN (SELECT value FROM json_each(?))')
        .all(user.id, JSON.stringify(ids)) as {
        message_id: number;
      }[]
    ).map((r) => r.message_id),
  );
  const historical = ids.filter((id) => !have.has(id));
  for (const id of historical) accessMessage(db, user, id);
  const insert = db.prepare('INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, ?)');
  for (const id of historical) insert.run(user.id, id, FLAG_BITS.read | FLAG_BITS.historical);
  const bit = FLAG_BITS[flag];
  const changed = (
    db
      .prepare(
        `UPDATE user_messages SET flags = ${adding ? `flags | ${bit}` : `flags & ~${bit}`}
         WHERE user_id = ? AND message_id IN (SELECT value FROM json_each(?)) AND (flags & ${bit}) ${adding ? '=' : '!='} 0
         RETURNING message_id`,
      )
      .all(user.id, JSON.stringify(ids)) as { message_id: number }[]
  )
    .map((r) => r.message_id)
    .sort((a, b) => a - b);
  const event: Record<string, unknown> & { type: string } = { type: 'update_message_flags', op, operation: op, flag, messages: changed, all: false };
  if (flag === 'read' && !adding) event.message_details = unreadDetails(db, user, changed);
  ctx.emit(event, [user.id]);
  return ignoredChannels ? { changed, ignoredChannels } : { changed };
}

/** What a client needs to put messages marked unread back into its unread counts. */
function unreadDetails(db: Db, user: UserRow, ids: readonly number[]): Record<string, Record<string, unknown>> {
  const rows = db
    .prepare(
      `SELECT m.id, m.type, m.stream_id, m.topic, m.recipient_id, um.flags FROM messages m
       JOIN user_messages um ON um.message_id = m.id AND um.user_id = ? WHERE m.id IN (SELECT value FROM json_each(?))`,
    )
    .all(user.id, JSON.stringify(ids)) as { id: number; type: string; stream_id: number | null; topic: string; recipient_id: number; flags: number }[];
  const mentionBits = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned | FLAG_BITS.group_mentioned;
  return Object.fromEntries(
    rows.map((r) => {
      const details: Record<string, unknown> =
        r.type === 'stream'
          ? { type: 'stream', stream_id: r.stream_id, topic: displayTopic(db, r.topic, false) }
          : { type: 'private', user_ids: recipientMembers(db, r.recipient_id).filter((id) => id !== user.id) };
      if (r.flags & mentionBits) details.mentioned = true;
      return [String(r.id), details];
    }),
  );
}
