/**
 * Calling an outgoing-webhook bot and acting on its answer, as a Zulip server's outgoing-webhook worker
 * does: a reply with content is posted by the bot in the same conversation; failures are posted there as
 * `Failure! ...` and reported to the bot's owner in a direct message (status and reason, never the service's
 * answer: see notifyOwner); only a reply's `content` is ever posted in the conversation. The address called
 * must pass the destination policy (destinations.ts). Runs after the triggering message's transaction has
 * committed, never inside the sender's request.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { ApiError } from '../../api/errors.js';
import type { OutgoingWebhookMessage, OutgoingWebhookTrigger } from '../../api/operations/webhooks.js';
import { failureReply, isSuccessStatus, OUTGOING_WEBHOOK_TIMEOUT_SECONDS, readReply, statusProblem } from '../../api/webhook-reply.js';
import type { HandlerContext } from '../context.js';
import { sendMessage } from '../model/messages.js';
import { channelNarrowPath, encodeHashComponent } from '../model/render.js';
import { userById, type UserRow } from '../model/users.js';
import { SERVER_VERSION } from '../model/realm.js';
import type { WebhookDestinations } from './destination-policy.js';
import { destinationAllowed, DestinationRefused, vettedLookup } from './destinations.js';
import { GENERIC_INTERFACE, SLACK_INTERFACE, slackForm, webhookPayload } from './payload.js';

/** Retries after a timeout or a connection error, before the bot is declared unavailable. */
export const MAX_REQUEST_RETRIES = 3;
export const USER_AGENT = `ZulipOutgoingWebhook/${SERVER_VERSION}`;

/** One call to make, prepared inside the triggering transaction so it describes the message as sent. */
export interface Delivery {
  botId: number;
  url: string;
  serviceInterface: number;
  message: OutgoingWebhookMessage;
  body: { contentType: string; text: string } | null;
}

/** `teamDomain`: the organization's domain, which the Slack-compatible form names. */
export function prepareDelivery(bot: UserRow, message: OutgoingWebhookMessage, trigger: OutgoingWebhookTrigger, teamDomain: string): Delivery {
  const base = { botId: bot.id, url: bot.service_base_url ?? '', serviceInterface: bot.service_interface ?? GENERIC_INTERFACE, message };
  if (base.serviceInterface !== SLACK_INTERFACE) {
    return { ...base, body: { contentType: 'application/json', text: JSON.stringify(webhookPayload(bot, message, trigger)) } };
  }
  // Slack's format has no direct messages: nothing is sent, the bot says so in the conversation.
  if (message.type === 'private') return { ...base, body: null };
  return { ...base, body: { contentType: 'application/x-www-form-urlencoded', text: slackForm(bot, message, trigger, teamDomain).toString() } };
}

type Outcome = { status: number; text: string } | { failure: 'timeout' | 'connection' } | { refused: true } | { exception: Error };

/** What a bot's answer may hold: enough for any reply a person reads, bounded so no bot can fill memory. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** Errors of reaching the service, retried as a Zulip server retries a ConnectionError. */
const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ETIMEDOUT']);

/**
 * The URL to request and its credentials: credentials in the URL (`user:password@`) are
 * sent as Basic authentication, as a server's HTTP client does.
 */
function splitCredentials(url: string): { url: string; headers: Record<string, string> } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { url, headers: {} };
  }
  if (u.username === '' && u.password === '') return { url, headers: {} };
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  const credentials = `${decode(u.username)}:${decode(u.password)}`;
  u.username = '';
  u.password = '';
  return { url: u.href, headers: { authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` } };
}

/**
 * One POST to the bot, by the destination policy (destinations.ts). Redirects are not followed: a 3xx is
 * the answer, as a refusal to follow it anywhere the policy has not seen.
 */
function call(rawUrl: string, body: { contentType: string; text: string }, policy: WebhookDestinations): Promise<Outcome> {
  const { url, headers } = splitCredentials(rawUrl);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ exception: new TypeError('Invalid URL') });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.resolve({ exception: new TypeError(`Unsupported protocol ${target.protocol}`) });
  }
  // An address in the URL (any spelling: the URL parser makes 127.1, 0x7f.1 and 2130706433 into 127.0.0.1) is
  // connected to without a lookup, so it is checked here; a name is checked on what it resolves to.
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  if (isIP(literal) && !destinationAllowed(policy, literal, port)) return Promise.resolve({ refused: true });
  const signal = AbortSignal.timeout(OUTGOING_WEBHOOK_TIMEOUT_SECONDS * 1000);
  return new Promise((resolve) => {
    const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      headers: { 'content-type': body.contentType, 'user-agent': USER_AGENT, 'content-length': Buffer.byteLength(body.text), ...headers },
      lookup: vettedLookup(policy, port),
      signal,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          res.destroy();
          resolve({ exception: new RangeError(`The response is larger than ${MAX_RESPONSE_BYTES} bytes`) });
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ failure: signal.aborted ? 'timeout' : 'connection' }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof DestinationRefused) resolve({ refused: true });
      else if (signal.aborted) resolve({ failure: 'timeout' });
      else if (error.code !== undefined && CONNECTION_ERRORS.has(error.code)) resolve({ failure: 'connection' });
      else resolve({ exception: error });
    });
    req.end(body.text);
  });
}

/** A bot's URL as the log shows it: no credentials, query string or fragment, which can carry secrets. */
function loggableUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

export async function deliver(ctx: HandlerContext, d: Delivery): Promise<void> {
  const bot = userById(ctx.db, d.botId);
  if (!bot?.is_active) return;
  if (!d.body) {
    reply(ctx, bot, d.message, failureReply("Slack outgoing webhooks don't support direct messages."));
    return;
  }
  let outcome: Outcome = { failure: 'connection' };
  for (let attempt = 0; attempt <= MAX_REQUEST_RETRIES; attempt++) {
    outcome = await call(d.url, d.body, ctx.webhookDestinations);
    if (!('failure' in outcome)) break;
    ctx.log(
      `outgoing webhook of bot ${bot.id} to ${loggableUrl(d.url)} (message ${d.message.id}): ${outcome.failure === 'timeout' ? 'timed out' : 'connection failed'}, attempt ${attempt + 1}`,
    );
  }
  if ('failure' in outcome) {
    reply(ctx, bot, d.message, failureReply('Bot is unavailable'));
    notifyOwner(ctx, bot, d.message, {
      failureMessage:
        outcome.failure === 'timeout'
          ? `Request timed out after ${OUTGOING_WEBHOOK_TIMEOUT_SECONDS} seconds.`
          : 'A connection error occurred. Is my bot server down?',
    });
    return;
  }
  if ('refused' in outcome) {
    // What a Zulip server says when Smokescreen refuses the address (407): nothing was sent, nothing answered.
    ctx.log(`outgoing webhook of bot ${bot.id} to ${loggableUrl(d.url)} (message ${d.message.id}) refused: a private or disallowed address`);
    reply(ctx, bot, d.message, failureReply(statusProblem(407)));
    notifyOwner(ctx, bot, d.message, { statusCode: 407 });
    return;
  }
  if ('exception' in outcome) {
    const message = outcome.exception.message.split(d.url).join(loggableUrl(d.url));
    ctx.log(`outgoing webhook of bot ${bot.id} to ${loggableUrl(d.url)} (message ${d.message.id}) failed: ${message}`);
    reply(
      ctx,
      bot,
      d.message,
      failureReply(
        `An exception of type *${outcome.exception.name}* occurred for message \`${d.message.content}\`! See the Zulip server logs for more information.`,
      ),
    );
    notifyOwner(ctx, bot, d.message, { exception: outcome.exception });
    return;
  }
  if (!isSuccessStatus(outcome.status)) {
    ctx.log(`outgoing webhook of bot ${bot.id} to ${loggableUrl(d.url)} (message ${d.message.id}) answered ${outcome.status}`);
    reply(ctx, bot, d.message, failureReply(statusProblem(outcome.status)));
    notifyOwner(ctx, bot, d.message, { statusCode: outcome.status });
    return;
  }
  handleSuccess(ctx, bot, d, outcome.text);
}

function handleSuccess(ctx: HandlerContext, bot: UserRow, d: Delivery, text: string): void {
  const r = readReply(text, d.serviceInterface === SLACK_INTERFACE);
  if (r.kind === 'failure') {
    reply(ctx, bot, d.message, failureReply(r.problem));
    notifyOwner(ctx, bot, d.message, {
      failureMessage: `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${r.problem}`,
    });
    return;
  }
  if (r.kind === 'post') reply(ctx, bot, d.message, r.content);
  else if (r.reason === 'content is not a string') {
    ctx.log(`outgoing webhook of bot ${bot.id} (message ${d.message.id}): reply content is not a string`);
  }
}

/** Posts `content` as the bot in the conversation of `message`: same channel and topic, or same recipients. */
function reply(ctx: HandlerContext, bot: UserRow, message: OutgoingWebhookMessage, content: string): void {
  const others = Array.isArray(message.display_recipient) ? message.display_recipient.map((r) => r.id).filter((id) => id !== bot.id) : [];
  const req =
    message.type === 'stream'
      ? { type: 'stream' as const, to: message.stream_id!, topic: message.subject, content }
      : { type: 'private' as const, to: others.length ? others : [bot.id], content };
  post(ctx, bot, req);
}

interface OwnerNotice {
  statusCode?: number;
  failureMessage?: string;
  exception?: Error;
}

/**
 * Tells the bot's owner, in a direct message from the bot, what went wrong with a call: the status and a short
 * reason, never what the service answered. (zerver/lib/outgoing_webhook.py notify_bot_owner adds "The response
 * contains the following payload" with the whole body; behind Smokescreen that body comes from the public
 * Internet, but an operator may let this server's bots reach private services, whose answers are not the bot
 * owner's to read.)
 */
function notifyOwner(ctx: HandlerContext, bot: UserRow, message: OutgoingWebhookMessage, n: OwnerNotice): void {
  const owner = bot.bot_owner_id !== null ? userById(ctx.db, bot.bot_owner_id) : undefined;
  if (!owner?.is_active) return;
  let text = `[A message](${nearUrl(ctx.realmUrl, message)}) to your bot @_**${bot.full_name}** triggered an outgoing webhook.`;
  if (n.exception) {
    text += `\nWhen trying to send a request to the webhook service, an exception of type ${n.exception.name} occurred:\n\`\`\`\n${n.exception.message}\n\`\`\``;
  } else if (n.failureMessage) {
    text += `\n${n.failureMessage}`;
  } else if (n.statusCode === 407) {
    text += '\nThe URL configured for the webhook is for a private or disallowed network.';
  } else if (n.statusCode) {
    text += `\nThe webhook got a response with status code *${n.statusCode}*.`;
  }
  post(ctx, bot, { type: 'private', to: [owner.id], content: text });
}

function post(ctx: HandlerContext, bot: UserRow, req: Parameters<typeof sendMessage>[2]): void {
  try {
    ctx.tx(() => sendMessage(ctx, bot, { ...req, client: 'OutgoingWebhookResponse' }));
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    ctx.log(`outgoing webhook bot ${bot.id} could not post its reply: ${e.msg}`);
  }
}

/** The link to a message in its conversation, as a Zulip server writes it. */
function nearUrl(realmUrl: string, message: OutgoingWebhookMessage): string {
  if (message.type === 'stream') {
    const channel = typeof message.display_recipient === 'string' ? message.display_recipient : '';
    return `${realmUrl}${channelNarrowPath(message.stream_id!, channel)}/topic/${encodeHashComponent(message.subject)}/near/${message.id}`;
  }
  const ids = Array.isArray(message.display_recipient) ? message.display_recipient.map((r) => r.id) : [];
  return `${realmUrl}/#narrow/dm/${ids.join(',')}-dm/near/${message.id}`;
}
