/**
 * What Notification Bot and Welcome Bot say, as a Zulip server sends it: a new channel's "channel events"
 * message and its announcement, the direct message to users someone else subscribed, and a new user's
 * welcome and signup announcement. Sent through sendMessage, as messages from the system bots.
 */
import { LIMITS } from '../../api/limits.js';
import type { Db } from '../store/db.js';
import type { StreamRow } from './channels.js';
import { streamById } from './channels.js';
import { sendMessage, type SendContext } from './messages.js';
import { getSetting } from './realm.js';
import { NOTIFICATION_BOT, systemBot, WELCOME_BOT } from './system-bots.js';
import { isAdmin, type UserRow } from './users.js';

/** The client a server's internal sends are recorded with. */
const INTERNAL_CLIENT = 'Internal';

/** zerver/lib/mention.py silent_mention_syntax_for_user. */
const silentMention = (user: Pick<UserRow, 'id' | 'full_name'>): string => `@_**${user.full_name}|${user.id}**`;

/** zerver/lib/topic_link_util.py get_stream_link_syntax, for the names it links as they are. */
const channelLink = (name: string): string => `#**${name}**`;

/** zerver/models/realms.py STREAM_EVENTS_NOTIFICATION_TOPIC_NAME. */
export const CHANNEL_EVENTS_TOPIC = 'channel events';

/** An announcement channel a setting names, if it still takes messages. */
function announcementChannel(db: Db, id: number | null): StreamRow | undefined {
  const channel = id === null ? undefined : streamById(db, id);
  return channel && !channel.is_archived ? channel : undefined;
}

/**
 * zerver/views/streams.py you_were_just_subscribed_message: one channel in a sentence, several as a list,
 * by name.
 */
function subscribedMessage(actor: UserRow, names: readonly string[]): string {
  const sorted = [...names].sort();
  if (sorted.length === 1) return `${silentMention(actor)} subscribed you to ${channelLink(sorted[0]!)}.`;
  return `${silentMention(actor)} subscribed you to the following channels:\n\n${sorted.map((n) => `* ${channelLink(n)}\n`).join('')}`;
}

/**
 * zerver/views/streams.py's creation message by the channel's policy (lib/streams.py
 * get_stream_permission_policy_key). A public channel with protected history gets none; this server makes none.
 */
function createdMessage(actor: UserRow, channel: StreamRow): string {
  const kind = channel.is_web_public
    ? 'Web-public'
    : !channel.invite_only
      ? 'Public'
      : channel.history_public_to_subscribers
        ? 'Private, shared history'
        : 'Private, protected history';
  const description = channel.description === '' ? '*No description.*' : channel.description;
  return `**${kind}** channel created by ${silentMention(actor)}. **Description:**\n\`\`\`\` quote\n${description}\n\`\`\`\``;
}

export interface SubscriptionNotices {
  /** Who made the request: the notices are on their behalf, and their own copies arrive read. */
  actor: UserRow;
  /** Channels the request created, in order. */
  created: readonly StreamRow[];
  /** Channel names each user was newly subscribed to, by user ID (the answer's `subscribed`). */
  subscribed: Readonly<Record<string, readonly string[]>>;
  /** Who the request subscribed, to tell bots apart. */
  subscribers: readonly Pick<UserRow, 'id' | 'is_bot'>[];
  /** `announce`: tell the new-channel announcements channel. */
  announce: boolean;
  /** `send_new_subscription_messages`, once the request's size allowed it. */
  tellSubscribers: boolean;
}

/** Whether a request subscribing these users may tell them (level 397): not when it subscribed more than the bound. */
export const mayTellNewSubscribers = (subscribed: Readonly<Record<string, readonly string[]>>): boolean =>
  Object.keys(subscribed).length <= LIMITS.bulkNewSubscriptionMessages;

/**
 * zerver/views/streams.py send_messages_for_new_subscribers, in its order: a direct message to each human
 * someone else newly subscribed to channels that already existed, the announcement of the new channels,
 * then each new channel's creation message in its "channel events" topic (unless the organization turned
 * those off, send_channel_events_messages). All are read for the actor. The work is one message per user the
 * request subscribed and per channel it created: bounded by the request.
 */
export function sendSubscriptionNotices(ctx: SendContext, n: SubscriptionNotices): void {
  const bot = systemBot(ctx.db, NOTIFICATION_BOT);
  if (!bot) return;
  const readBy = [n.actor.id];
  const createdNames = new Set(n.created.map((c) => c.name));
  if (n.tellSubscribers) {
    const bots = new Set(n.subscribers.filter((u) => u.is_bot).map((u) => u.id));
    for (const [key, names] of Object.entries(n.subscribed)) {
      const userId = Number(key);
      if (userId === n.actor.id || bots.has(userId)) continue;
      const notify = names.filter((name) => !createdNames.has(name));
      if (notify.length === 0) continue;
      sendMessage(ctx, bot, {
        type: 'private',
        to: [userId],
        content: subscribedMessage(n.actor, notify),
        readBy,
        renderAs: n.actor.id,
        client: INTERNAL_CLIENT,
      });
    }
  }
  if (n.created.length === 0) return;
  const announcements = n.announce ? announcementChannel(ctx.db, getSetting(ctx.db, 'new_stream_announcements_stream_id')) : undefined;
  if (announcements) {
    const links = n.created.map((c) => channelLink(c.name)).join(', ');
    const content =
      n.created.length > 1
        ? `${silentMention(n.actor)} created the following channels: ${links}.`
        : `${silentMention(n.actor)} created a new channel ${links}.`;
    sendMessage(ctx, bot, { type: 'stream', to: announcements.id, topic: 'new channels', content, readBy, client: INTERNAL_CLIENT });
  }
  if (!getSetting(ctx.db, 'send_channel_events_messages')) return;
  for (const channel of n.created) {
    sendMessage(ctx, bot, {
      type: 'stream',
      to: channel.id,
      topic: CHANNEL_EVENTS_TOPIC,
      content: createdMessage(n.actor, channel),
      readBy,
      client: INTERNAL_CLIENT,
    });
  }
}

/** zerver/lib/onboarding.py send_initial_direct_message: Welcome Bot's first direct message. */
function welcomeText(user: UserRow, realmUrl: string): string {
  const base = realmUrl.replace(/\/+$/, '');
  const setup = isAdmin(user) ? ` We also have a guide for [Setting up your organization](${base}/help/getting-your-organization-started-with-zulip).` : '';
  const commands = ['apps', 'profile', 'theme', 'channels', 'topics', 'message formatting', 'keyboard shortcuts', 'help'].map((c) => `\`${c}\``).join(', ');
  return [
    'Hello, and welcome to Zulip!👋 This is a direct message from me, Welcome Bot.\n\n',
    `If you are new to Zulip, check out our [Getting started guide](${base}/help/getting-started-with-zulip)!${setup}\n\n`,
    'I can also help you get set up! Just click anywhere on this message or press `r` to reply.\n\n',
    `Here are a few messages I understand: ${commands}.`,
  ].join('');
}

/**
 * What a new human account gets (zerver/actions/create_user.py process_new_human_user): unless it is the
 * organization's first, Notification Bot's "joined this organization" in the signups announcement channel
 * (notify_new_user; none when that setting names no channel), then Welcome Bot's direct message. Bulk
 * creation sends none, as Zulip's bulk_create_users.
 */
export function welcomeNewUser(ctx: SendContext, user: UserRow, opts: { firstUser: boolean }): void {
  const notifier = systemBot(ctx.db, NOTIFICATION_BOT);
  const signups = opts.firstUser ? undefined : announcementChannel(ctx.db, getSetting(ctx.db, 'signup_announcements_stream_id'));
  if (notifier && signups) {
    const content = `${silentMention(user)} joined this organization.`;
    sendMessage(ctx, notifier, { type: 'stream', to: signups.id, topic: 'signups', content, client: INTERNAL_CLIENT });
  }
  const welcome = systemBot(ctx.db, WELCOME_BOT);
  if (welcome) sendMessage(ctx, welcome, { type: 'private', to: [user.id], content: welcomeText(user, ctx.realmUrl), client: INTERNAL_CLIENT });
}
