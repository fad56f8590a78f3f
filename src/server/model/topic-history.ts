/**
 * The topics of a channel as a Zulip server lists them (zerver/lib/topic.py get_topic_history_for_stream):
 * one entry per topic, case-blind, named as its newest message names it, with that message's ID, newest first.
 */
import type { TopicSummary } from '../../api/operations/channels.js';
import type { Db } from '../store/db.js';
import type { StreamRow } from './channels.js';
import { displayTopic } from './messages.js';

/**
 * The topics `userId` sees in `channel`, whose access the caller has checked. With history public to subscribers
 * every message counts; with protected history only those the user received (even an administrator's view), as a
 * server decides by the channel's setting alone (views/streams.py get_topics_backend). SQLite takes the bare
 * `topic` from the row max(id) picked, so each group is named by its newest message; the covering index
 * messages_by_stream_topic is read once.
 */
export function channelTopics(db: Db, userId: number, channel: StreamRow, allowEmptyTopicName: boolean): TopicSummary[] {
  const rows = (
    channel.history_public_to_subscribers === 1
      ? db.prepare('SELECT topic, max(id) AS max_id FROM messages WHERE stream_id = ? GROUP BY topic COLLATE NOCASE ORDER BY max_id DESC').all(channel.id)
      : db
          .prepare(
            `SELECT m.topic AS topic, max(m.id) AS max_id FROM messages m JOIN user_messages um ON um.message_id = m.id AND um.user_id = ?
             WHERE m.stream_id = ? GROUP BY m.topic COLLATE NOCASE ORDER BY max_id DESC`,
          )
          .all(userId, channel.id)
  ) as { topic: string; max_id: number }[];
  return rows.map((r) => ({ name: displayTopic(db, r.topic, allowEmptyTopicName), max_id: r.max_id }));
}
