/**
 * What an outgoing-webhook bot is sent: the generic interface's JSON payload (the message as GET /messages
 * shows it with apply_markdown false, plus rendered_content), or the Slack-compatible interface's form.
 */
import type { OutgoingWebhookMessage, OutgoingWebhookPayload, OutgoingWebhookTrigger } from '../../api/operations/webhooks.js';
import { messageToWire } from '../model/messages.js';
import { renderHtml } from '../model/render.js';
import { REALM_ID } from '../model/uploads.js';
import { userView } from '../model/user-view.js';
import { userById, type UserRow } from '../model/users.js';
import type { Db } from '../store/db.js';

/** Service interfaces of outgoing-webhook bots, as a Zulip server numbers them. */
export const GENERIC_INTERFACE = 1;
export const SLACK_INTERFACE = 2;

/** The triggering message as the bot receives it: raw content, rendered HTML alongside, real avatar URLs. */
export function webhookMessage(db: Db, messageId: number, realmUrl: string): OutgoingWebhookMessage {
  const wire = messageToWire(db, messageId, { applyMarkdown: false, clientGravatar: false, allowEmptyTopicName: true, withRenderedContent: true }, realmUrl);
  return { ...wire, rendered_content: wire.rendered_content ?? '' };
}

export function webhookPayload(bot: UserRow, message: OutgoingWebhookMessage, trigger: OutgoingWebhookTrigger): OutgoingWebhookPayload {
  return {
    bot_email: bot.email,
    bot_full_name: bot.full_name,
    data: message.content,
    trigger,
    token: bot.service_token ?? '',
    message,
  };
}

/** The form a Slack-compatible bot gets (channel messages only: Slack's format has no direct messages). */
export function slackForm(bot: UserRow, message: OutgoingWebhookMessage, trigger: OutgoingWebhookTrigger, teamDomain: string): URLSearchParams {
  return new URLSearchParams([
    ['token', bot.service_token ?? ''],
    ['team_id', `T${REALM_ID}`],
    // zerver/lib/outgoing_webhook.py SlackOutgoingWebhookService: the realm's host, not the request's.
    ['team_domain', teamDomain],
    ['channel_id', `C${message.stream_id ?? ''}`],
    ['channel_name', typeof message.display_recipient === 'string' ? message.display_recipient : ''],
    ['thread_ts', String(message.timestamp)],
    ['timestamp', String(message.timestamp)],
    ['user_id', `U${message.sender_id}`],
    ['user_name', message.sender_full_name],
    ['text', message.content],
    ['trigger_word', trigger],
    ['service_id', String(bot.id)],
  ]);
}

/**
 * What the bot would receive for a direct message from its owner, for a bot that has not been triggered
 * yet. The message is not stored: its ID and recipient ID are 0.
 */
export function samplePayload(db: Db, bot: UserRow, now: number, realmUrl: string): OutgoingWebhookPayload {
  const owner = (bot.bot_owner_id !== null ? userById(db, bot.bot_owner_id) : undefined) ?? bot;
  const view = userView(db, null, { clientGravatar: false, includeCustomProfileFields: false }, realmUrl);
  const sender = view(owner);
  const content = `Hello, @**${bot.full_name}**!`;
  const recipients = [...new Map([owner, bot].map((u) => [u.id, view(u)])).values()].sort((a, b) => a.user_id - b.user_id);
  const message: OutgoingWebhookMessage = {
    id: 0,
    sender_id: owner.id,
    content,
    recipient_id: 0,
    timestamp: now,
    client: 'chatctl',
    subject: '',
    topic_links: [],
    is_me_message: false,
    reactions: [],
    submessages: [],
    sender_full_name: sender.full_name,
    sender_email: sender.email,
    sender_realm_str: '',
    display_recipient: recipients.map((u) => ({ id: u.user_id, email: u.email, full_name: u.full_name, is_mirror_dummy: false })),
    type: 'private',
    avatar_url: sender.avatar_url,
    content_type: 'text/x-markdown',
    rendered_content: renderHtml(db, content),
  };
  return webhookPayload(bot, message, 'direct_message');
}
