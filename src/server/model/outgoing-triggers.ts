/**
 * Which outgoing-webhook bots a message triggers, as a Zulip server decides at send time: never for a
 * message from a bot; for a channel message, each bot it @-mentions, subscribed to the channel or not (a
 * server reads service bots from the recipients and the possibly-mentioned users together); for a direct
 * message, each bot among its recipients.
 */
import type { OutgoingWebhookTrigger } from '../../api/operations/webhooks.js';
import { FLAG_BITS } from './flags.js';
import { mentionedUserIdsIn, userMentionOpening } from './render.js';
import type { UserRow } from './users.js';
import type { Db } from '../store/db.js';

export interface Triggered {
  bot: UserRow;
  trigger: OutgoingWebhookTrigger;
}

/** Service bots that can be called: active outgoing-webhook bots with a URL. */
const SERVICE_BOT = `u.is_bot = 1 AND u.bot_type = 3 AND u.is_active = 1 AND u.service_base_url IS NOT NULL`;
/**
 * A copy of a message that triggers its holder, when the holder is a service bot: a direct message, or a
 * mention (a group's too, which reaches the group's subscribed members).
 */
const TRIGGERING_COPY = `(m.type = 'private' OR (um.flags & ${FLAG_BITS.mentioned}) != 0) AND s.is_bot = 0`;

const triggerOf = (type: 'stream' | 'private'): OutgoingWebhookTrigger => (type === 'private' ? 'direct_message' : 'mention');

export function triggeredBots(db: Db, messageId: number): Triggered[] {
  const message = db
    .prepare('SELECT m.type, m.rendered_content, s.is_bot AS sender_is_bot FROM messages m JOIN users s ON s.id = m.sender_id WHERE m.id = ?')
    .get(messageId) as { type: 'stream' | 'private'; rendered_content: string; sender_is_bot: number } | undefined;
  if (!message || message.sender_is_bot) return [];
  const bots =
    message.type === 'private'
      ? // A direct message's copies are its few recipients: each is asked whether it is a service bot.
        (db
          .prepare(`SELECT u.* FROM user_messages um JOIN users u ON u.id = um.user_id WHERE um.message_id = ? AND ${SERVICE_BOT} ORDER BY u.id`)
          .all(messageId) as UserRow[])
      : // A channel message may have 100,000 copies: the organization's service bots are asked for theirs
        // (a mention flag, a group's mention included), and the users it @-mentions are looked up by ID.
        (db
          .prepare(
            `SELECT u.* FROM users u WHERE ${SERVICE_BOT} AND (
               EXISTS (SELECT 1 FROM user_messages um WHERE um.user_id = u.id AND um.message_id = ? AND (um.flags & ${FLAG_BITS.mentioned}) != 0)
               OR u.id IN (SELECT value FROM json_each(?)))
             ORDER BY u.id`,
          )
          .all(messageId, JSON.stringify([...mentionedUserIdsIn(message.rendered_content)])) as UserRow[]);
  return bots.map((bot) => ({ bot, trigger: triggerOf(message.type) }));
}

/** The newest message that triggered `botId`, if any: one it holds a triggering copy of, or one mentioning it elsewhere. */
export function newestTrigger(db: Db, botId: number): { messageId: number; trigger: OutgoingWebhookTrigger } | undefined {
  const held = db
    .prepare(
      `SELECT m.id, m.type FROM user_messages um JOIN messages m ON m.id = um.message_id JOIN users s ON s.id = m.sender_id
       WHERE um.user_id = ? AND ${TRIGGERING_COPY} ORDER BY m.id DESC LIMIT 1`,
    )
    .get(botId) as { id: number; type: 'stream' | 'private' } | undefined;
  // A mention matters only if newer than the held trigger: the scan of contents stops there.
  const mentioned = db
    .prepare(
      `SELECT m.id, m.type FROM messages m JOIN users s ON s.id = m.sender_id
       WHERE m.id > ? AND m.type = 'stream' AND s.is_bot = 0 AND instr(m.rendered_content, ?) > 0 ORDER BY m.id DESC LIMIT 1`,
    )
    .get(held?.id ?? 0, userMentionOpening(botId)) as { id: number; type: 'stream' | 'private' } | undefined;
  const newest = mentioned ?? held;
  return newest && { messageId: newest.id, trigger: triggerOf(newest.type) };
}
