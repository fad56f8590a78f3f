/**
 * The §4.21 payload an outgoing-webhook bot receives, built on the client side from what the API shows:
 * the message the way GET /messages gives it with apply_markdown false (plus its rendered HTML), the bot's user,
 * and the bot's service token where the caller may see it (POST /register realm_bots: the bot's owner and
 * administrators). Sample messages stand in when no real message is named.
 */
import { ApiError } from '../../api/errors.js';
import { isPlainObject } from '../../api/schema.js';
import { deleteQueue, register } from '../../api/operations/events.js';
import { getMessages, type FetchedMessage } from '../../api/operations/messages.js';
import { getUser, getUserByEmail } from '../../api/operations/users.js';
import type { OutgoingWebhookMessage, OutgoingWebhookPayload, OutgoingWebhookTrigger } from '../../api/operations/webhooks.js';
import type { ChatClient } from '../../client/client.js';
import { escapeHtml } from '../../html.js';

export const TRIGGERS: readonly OutgoingWebhookTrigger[] = ['mention', 'direct_message'];

/** Who a payload is for, or from: enough of a user for the payload's fields. */
export interface Person {
  user_id: number;
  email: string;
  full_name: string;
  avatar_url?: string | null;
}

/** Stand-ins for a payload built without a server. */
export const SAMPLE_BOT: Person = { user_id: 0, email: 'outgoing-bot@example.com', full_name: 'Outgoing Bot', avatar_url: null };
export const SAMPLE_SENDER: Person = { user_id: 0, email: 'sender@example.com', full_name: 'Sample Sender', avatar_url: null };

/** A user by ID or e-mail (GET /users/{id} or /users/{email}), with real avatar URLs as a webhook gets them. */
export async function fetchUser(client: ChatClient, ref: string, signal?: AbortSignal): Promise<Person & { is_bot: boolean; bot_type: number | null }> {
  const key = ref.trim();
  const { user } = /^\d+$/.test(key)
    ? await client.call(getUser, { user_id: Number(key), client_gravatar: false }, { signal })
    : await client.call(getUserByEmail, { email: key, client_gravatar: false }, { signal });
  return user;
}

/**
 * The bot's service token, or null and why. A Zulip server shows it only in POST /register (realm_bots:
 * the caller's own bots, or every bot for administrators); the queue that comes with the registration is
 * deleted straight away.
 */
export async function fetchBotToken(client: ChatClient, botId: number, signal?: AbortSignal): Promise<{ token: string | null; why?: string }> {
  const res = await client.call(register, { event_types: ['realm_bot'], fetch_event_types: ['realm_bot'] }, { signal });
  if (res.queue_id) await client.call(deleteQueue, { queue_id: res.queue_id }).catch(() => undefined);
  // realm_bots is state the response does not type: each bot and service is checked as it is read.
  const bots: unknown = res.realm_bots;
  if (!Array.isArray(bots)) return { token: null, why: 'the server did not return realm_bots from POST /register' };
  const bot: unknown = bots.find((b) => isPlainObject(b) && b.user_id === botId);
  if (!isPlainObject(bot)) return { token: null, why: "it is shown only to the bot's owner and administrators" };
  const services: unknown[] = Array.isArray(bot.services) ? bot.services : [];
  const token = services.map((s) => (isPlainObject(s) ? s.token : undefined)).find((t): t is string => typeof t === 'string');
  return token ? { token } : { token: null, why: 'the server shows no service for the bot' };
}

/** Without the per-reader fields GET /messages adds: a webhook's message has no flags or search matches. */
function asWebhookMessage(m: FetchedMessage, rendered: string): OutgoingWebhookMessage {
  const { flags: _flags, match_content: _mc, match_subject: _ms, ...message } = m;
  return { ...message, rendered_content: rendered };
}

/**
 * Message `id` as a webhook gets it: raw content, the HTML alongside (a second read, with Markdown applied),
 * and the empty topic as "" (a server sends it so, not as the organization's name for it).
 */
export async function fetchWebhookMessage(client: ChatClient, id: number, signal?: AbortSignal): Promise<OutgoingWebhookMessage> {
  const read = async (applyMarkdown: boolean) => {
    const { messages } = await client.call(
      getMessages,
      {
        anchor: String(id),
        num_before: 0,
        num_after: 0,
        narrow: [{ operator: 'id', operand: id }],
        apply_markdown: applyMarkdown,
        client_gravatar: false,
        allow_empty_topic_name: true,
      },
      { signal },
    );
    const message = messages.find((m) => m.id === id);
    if (!message) throw new ApiError('Invalid message(s)', 'BAD_REQUEST', 400);
    return message;
  };
  const raw = await read(false);
  const html = await read(true);
  return asWebhookMessage(raw, html.content);
}

/** Whether the message triggers the bot, as the server decides: a direct message to it, or a real (not silent) mention. */
export function triggerOf(message: OutgoingWebhookMessage, botId: number): OutgoingWebhookTrigger | null {
  if (message.type === 'private') {
    return Array.isArray(message.display_recipient) && message.display_recipient.some((r) => r.id === botId) ? 'direct_message' : null;
  }
  const mentioned = [...message.rendered_content.matchAll(/<span class="user-mention" data-user-id="(\d+)"/g)].map((m) => Number(m[1]));
  return mentioned.includes(botId) ? 'mention' : null;
}

/**
 * A message that would trigger `bot`: a channel message mentioning it, or a direct message to it. It was
 * never sent, so its ID and recipient ID are 0.
 */
export function sampleMessage(sender: Person, bot: Person, trigger: OutgoingWebhookTrigger, now: number): OutgoingWebhookMessage {
  const text = 'Hello from chatctl webhook trigger!';
  const content = `@**${bot.full_name}** ${text}`;
  const dm = trigger === 'direct_message';
  const recipients = [sender, bot]
    .filter((p, i, all) => all.findIndex((q) => q.user_id === p.user_id && q.email === p.email) === i)
    .map((p) => ({ id: p.user_id, email: p.email, full_name: p.full_name, is_mirror_dummy: false }));
  return {
    id: 0,
    type: dm ? 'private' : 'stream',
    content,
    content_type: 'text/x-markdown',
    rendered_content: `<p><span class="user-mention" data-user-id="${bot.user_id}">@${escapeHtml(bot.full_name)}</span> ${escapeHtml(text)}</p>`,
    avatar_url: sender.avatar_url ?? null,
    client: 'chatctl',
    display_recipient: dm ? recipients : 'general',
    is_me_message: false,
    reactions: [],
    recipient_id: 0,
    sender_email: sender.email,
    sender_full_name: sender.full_name,
    sender_id: sender.user_id,
    sender_realm_str: '',
    ...(dm ? {} : { stream_id: 0 }),
    subject: dm ? '' : 'chatctl test',
    submessages: [],
    timestamp: Math.floor(now / 1000),
    topic_links: [],
  };
}

export function buildPayload(
  bot: Person,
  message: OutgoingWebhookMessage,
  trigger: OutgoingWebhookTrigger,
  token: string | null,
): Omit<OutgoingWebhookPayload, 'token'> & { token: string | null } {
  return { bot_email: bot.email, bot_full_name: bot.full_name, data: message.content, trigger, token, message };
}
