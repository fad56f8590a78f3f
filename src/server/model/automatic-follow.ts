/**
 * The topics a channel message makes its sender follow (or unmute), and those it makes the users it mentions
 * follow, by their automatic-follow settings (zerver/actions/message_send.py do_send_messages,
 * zerver/lib/message.py visibility_policy_for_send_message).
 */
import type { VisibilityPolicy } from '../../api/operations/channels.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import type { StreamRow } from './channels.js';
import { canAccessChannelHistory } from './message-access.js';
import { setVisibilityPolicy } from './subscriptions.js';
import { userById, type UserRow } from './users.js';

/** When a setting changes a topic's policy (zerver/models/users.py AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_*). */
const ON_PARTICIPATION = 1;
const ON_SEND = 2;
const ON_INITIATION = 3;
const NEVER = 4;
type AutomaticPolicy = typeof ON_PARTICIPATION | typeof ON_SEND | typeof ON_INITIATION | typeof NEVER;

const INHERIT = 0;
const MUTED = 1;
const UNMUTED = 2;
const FOLLOWED = 3;

export interface FollowSettings {
  automatically_follow_topics_policy: AutomaticPolicy;
  automatically_unmute_topics_in_muted_streams_policy: AutomaticPolicy;
  automatically_follow_topics_where_mentioned: boolean;
}

/** A new Zulip user's settings (zerver/models/users.py UserBaseSettings): follow the topics one starts. */
const DEFAULT_FOLLOW_SETTINGS: FollowSettings = {
  automatically_follow_topics_policy: ON_INITIATION,
  automatically_unmute_topics_in_muted_streams_policy: ON_SEND,
  automatically_follow_topics_where_mentioned: true,
};

/** A user's automatic-follow settings. The embedded server stores no personal settings: everyone has the defaults. */
export const followSettingsOf = (_user: UserRow): FollowSettings => DEFAULT_FOLLOW_SETTINGS;

export interface SentToTopic {
  messageId: number;
  channel: StreamRow;
  topic: string;
  /** The users the message mentions by name (not silently), who receive it. */
  mentionedRecipientIds: Iterable<number>;
}

/**
 * Applies the sender's and the mentioned users' automatic policies to the topic of a channel message just
 * stored, emitting their `user_topic` events; returns the policy the sender's topic took, if it changed.
 */
export function followOnSend(db: Db, sink: EventSink, sender: UserRow, sent: SentToTopic, now: number): VisibilityPolicy | undefined {
  const policyOf = db.prepare('SELECT visibility_policy FROM user_topics WHERE user_id = ? AND stream_id = ? AND topic = ?').pluck();
  const currentOf = (userId: number) => (policyOf.get(userId, sent.channel.id, sent.topic) as VisibilityPolicy | undefined) ?? INHERIT;
  let senderPolicy: VisibilityPolicy | undefined;
  if (!sender.is_bot) {
    senderPolicy = policyForSender(db, sender, sent, currentOf(sender.id));
    if (senderPolicy !== undefined) setVisibilityPolicy(db, sink, sender.id, sent.channel.id, sent.topic, senderPolicy, now);
  }
  // A topic one muted stays muted; one already followed needs nothing.
  for (const userId of new Set(sent.mentionedRecipientIds)) {
    const user = userById(db, userId);
    if (!user || user.is_bot || !user.is_active || !followSettingsOf(user).automatically_follow_topics_where_mentioned) continue;
    const current = currentOf(userId);
    if (current !== MUTED && current !== FOLLOWED) setVisibilityPolicy(db, sink, userId, sent.channel.id, sent.topic, FOLLOWED, now);
  }
  return senderPolicy;
}

/** zerver/lib/message.py visibility_policy_for_send_message: follow wins over unmute; never lowers a policy. */
function policyForSender(db: Db, sender: UserRow, sent: SentToTopic, current: VisibilityPolicy): VisibilityPolicy | undefined {
  const settings = followSettingsOf(sender);
  const follow = settings.automatically_follow_topics_policy;
  const unmute = settings.automatically_unmute_topics_in_muted_streams_policy;
  if ((follow === NEVER && unmute === NEVER) || current === FOLLOWED) return undefined;
  if (follow === ON_PARTICIPATION || follow === ON_SEND) return FOLLOWED;
  const channelMuted =
    db.prepare('SELECT is_muted FROM subscriptions WHERE user_id = ? AND stream_id = ? AND active = 1').pluck().get(sender.id, sent.channel.id) === 1;
  let policy: VisibilityPolicy | undefined = channelMuted && (unmute === ON_PARTICIPATION || unmute === ON_SEND) ? UNMUTED : undefined;
  // A topic with a policy of its own was not started by this message.
  if (current !== INHERIT) return policy === current ? undefined : policy;
  if (!startsTopic(db, sender, sent)) return policy;
  if (follow === ON_INITIATION) return FOLLOWED;
  if (channelMuted && unmute === ON_INITIATION) policy = UNMUTED;
  return policy;
}

/** Whether the sender can see no earlier message of the topic (only their own copies, without shared history). */
function startsTopic(db: Db, sender: UserRow, sent: SentToTopic): boolean {
  const others = canAccessChannelHistory(db, sender, sent.channel)
    ? db.prepare('SELECT 1 FROM messages WHERE stream_id = ? AND topic = ? COLLATE NOCASE AND id != ? LIMIT 1').get(sent.channel.id, sent.topic, sent.messageId)
    : db
        .prepare(
          `SELECT 1 FROM messages m JOIN user_messages um ON um.message_id = m.id AND um.user_id = ?
           WHERE m.stream_id = ? AND m.topic = ? COLLATE NOCASE AND m.id != ? LIMIT 1`,
        )
        .get(sender.id, sent.channel.id, sent.topic, sent.messageId);
  return others === undefined;
}
