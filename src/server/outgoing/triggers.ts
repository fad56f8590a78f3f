/**
 * Which outgoing-webhook bots a message triggers, as a Zulip server decides at send time: never for a
 * message from a bot; for a channel message, each bot it @-mentions; for a direct message, each bot among
 * its recipients.
 */
import type { OutgoingWebhookTrigger } from '../../api/operations/webhooks.js';
import { FLAG_BITS } from '../model/flags.js';
import type { UserRow } from '../model/users.js';
import type { Db } from '../store/db.js';

export interface Triggered {
  bot: UserRow;
  trigger: OutgoingWebhookTrigger;
}

/** Service bots that can be called: active outgoing-webhook bots with a URL. */
const SERVICE_BOT = `u.is_bot = 1 AND u.bot_type = 3 AND u.is_active = 1 AND u.service_base_url IS NOT NULL`;
/** A copy of a message that triggers its holder, when the holder is a service bot. */
const TRIGGERING = `(m.type = 'private' OR (um.flags & ${FLAG_BITS.mentioned}) != 0) AND s.is_bot = 0`;

const triggerOf = (type: 'stream' | 'private'): OutgoingWebhookTrigger => (type === 'private' ? 'direct_message' : 'mention');

export function triggeredBots(db: Db, messageId: number): Triggered[] {
  const rows = db
    .prepare(
      `SELECT u.*, m.type AS message_type FROM user_messages um
       JOIN messages m ON m.id = um.message_id JOIN users s ON s.id = m.sender_id JOIN users u ON u.id = um.user_id
       WHERE um.message_id = ? AND ${SERVICE_BOT} AND ${TRIGGERING} ORDER BY u.id`,
    )
    .all(messageId) as (UserRow & { message_type: 'stream' | 'private' })[];
  return rows.map(({ message_type, ...bot }) => ({ bot, trigger: triggerOf(message_type) }));
}

/** The newest message that triggered `botId`, if any. */
export function newestTrigger(db: Db, botId: number): { messageId: number; trigger: OutgoingWebhookTrigger } | undefined {
  const row = db
    .prepare(
      `SELECT m.id, m.type FROM user_messages um JOIN messages m ON m.id = um.message_id JOIN users s ON s.id = m.sender_id
       WHERE um.user_id = ? AND ${TRIGGERING} ORDER BY m.id DESC LIMIT 1`,
    )
    .get(botId) as { id: number; type: 'stream' | 'private' } | undefined;
  return row && { messageId: row.id, trigger: triggerOf(row.type) };
}
