import type { OutgoingWebhookMessage, OutgoingWebhookTrigger } from '../../api/operations/webhooks.js';
import { getOwnUser } from '../../api/operations/users.js';
import { parseAllowedAddress } from '../../api/webhook-addresses.js';
import type { ChatClient } from '../../client/client.js';
import { idArg, parseIdArg } from '../core/args.js';
import { defineCommand } from '../command/command.js';
import type { Context } from '../command/context.js';
import { ChatctlError, usageError } from '../core/errors.js';
import { flag } from '../core/flags.js';
import type { OutputSpec } from '../output/output.js';
import { deliver } from '../webhook/deliver.js';
import { listenForPayloads } from '../webhook/listen.js';
import {
  buildPayload,
  fetchBotToken,
  fetchUser,
  fetchWebhookMessage,
  sampleMessage,
  SAMPLE_BOT,
  SAMPLE_SENDER,
  triggerOf,
  TRIGGERS,
  type Person,
} from '../webhook/payload.js';

/** JSON for a person on a terminal, one line for a pipe. */
const writeJson = (ctx: Context, value: unknown): void => {
  ctx.io.stdout.write(`${JSON.stringify(value, null, ctx.io.stdoutIsTTY ? 2 : undefined)}\n`);
};

/** The bot named by --bot: it must be a bot, and should be one a message can trigger. */
async function botOf(ctx: Context, client: ChatClient, ref: string): Promise<Person & { bot_type: number | null }> {
  const bot = await fetchUser(client, ref, ctx.signal);
  if (!bot.is_bot) throw usageError(`${ref} is not a bot`, 'name an outgoing-webhook bot (users list --bots)');
  if (bot.bot_type !== 3 && bot.bot_type !== 4)
    ctx.warn(`${bot.email} is not an outgoing-webhook bot (bot_type ${bot.bot_type}); no server would send it this payload`);
  return bot;
}

/** The bot's token, or null with a note on stderr saying why. */
async function tokenOf(ctx: Context, client: ChatClient, bot: Person & { bot_type: number | null }): Promise<string | null> {
  // Only service bots have a token; botOf has already said this is not one.
  if (bot.bot_type !== 3 && bot.bot_type !== 4) return null;
  const { token, why } = await fetchBotToken(client, bot.user_id, ctx.signal);
  if (token === null) ctx.warn(`token is null: the token of ${bot.email} is not available (${why})`);
  return token;
}

/** The trigger for a real message: what the server would decide, or --trigger; warns when the two disagree. */
function messageTrigger(ctx: Context, message: OutgoingWebhookMessage, bot: Person, asked: OutgoingWebhookTrigger | undefined): OutgoingWebhookTrigger {
  const actual = triggerOf(message, bot.user_id);
  if (!actual) ctx.warn(`message ${message.id} does not trigger ${bot.email}: it is neither a direct message to the bot nor mentions it`);
  else if (asked && asked !== actual) ctx.warn(`message ${message.id} triggers ${bot.email} as ${actual}, not ${asked}`);
  return asked ?? actual ?? (message.type === 'private' ? 'direct_message' : 'mention');
}

const urlRequired = () => usageError('--url is required: where the integration listens');

/** An integration's address: an http or https URL, kept as given ('' is none). */
function parseIntegrationUrl(url: string, name: string): string {
  if (!url) throw urlRequired();
  const protocol = URL.canParse(url) ? new URL(url).protocol : '';
  if (protocol !== 'http:' && protocol !== 'https:') throw usageError(`${name} takes an http or https URL, not "${url}"`);
  return url;
}

const DELIVERY_OUTPUT: OutputSpec = { fields: ['status', 'body', 'effect'] };

export const commands = [
  defineCommand({
    path: ['webhook', 'payload'],
    summary: 'show the payload an outgoing-webhook bot would receive for a message',
    description:
      'Prints, in JSON, the payload a Zulip-compatible server POSTs to an outgoing-webhook bot for MESSAGE_ID: ' +
      'bot_email, bot_full_name, data (the raw message), trigger, token, and the message the way GET /messages shows it ' +
      'with apply_markdown false, plus rendered_content. The trigger is the one the server would use (a mention in ' +
      'a channel, or a direct message to the bot); a warning says so when the message would not trigger the bot. ' +
      "The bot's token is shown only to its owner and administrators (POST /register realm_bots); for anyone else " +
      'token is null and a note goes to stderr.',
    examples: [
      'chatctl webhook payload 1234 --bot helper-bot@example.com',
      'chatctl webhook payload 1234 --bot 42 | jq .message.content',
      'chatctl webhook payload 1234 --bot 42 > payload.json && curl -d @payload.json -H "Content-Type: application/json" http://localhost:8080/',
    ],
    args: { messageId: idArg('the message (ID)', 'message', { label: 'message_id' }) },
    options: {
      bot: flag.string('--bot <bot>', 'the outgoing-webhook bot (ID or e-mail)'),
      trigger: flag.choice('--trigger <trigger>', 'override the trigger', TRIGGERS),
    },
    async run(opts, ctx) {
      const botRef = opts.bot;
      if (!botRef) throw usageError('--bot is required: the payload names the bot it is for');
      const client = await ctx.client();
      const bot = await botOf(ctx, client, botRef);
      const message = await fetchWebhookMessage(client, opts.messageId, ctx.signal);
      const trigger = messageTrigger(ctx, message, bot, opts.trigger);
      writeJson(ctx, buildPayload(bot, message, trigger, await tokenOf(ctx, client, bot)));
    },
  }),

  defineCommand({
    path: ['webhook', 'trigger'],
    summary: 'POST a realistic outgoing-webhook payload to an integration, to test it',
    description:
      'Sends an integration at --url what a Zulip-compatible server would: a JSON POST of the outgoing-webhook ' +
      "payload, given up after 10 seconds. The message is --message-id's (read from the server), or a sample " +
      "that mentions the bot (--trigger direct_message: a direct message to it). The bot is --bot's (its token " +
      'too, when you may see it), or a sample bot; --token sets the token. Without --bot and --message-id ' +
      'nothing is read from a server.\n\n' +
      "Prints the integration's reply: HTTP status, body, and what the server would do with it (post the " +
      'content, post nothing, or report a failure such as "Invalid JSON in response"). Exit 1 when the server ' +
      'would report a failure, 75 when the integration cannot be reached. --dry-run prints the request, token masked ' +
      "(a bot's own token is not read in a dry run).",
    examples: [
      'chatctl webhook trigger --url http://localhost:8080/',
      'chatctl webhook trigger --url https://bots.example.com/zulip --bot helper-bot@example.com --trigger direct_message',
      'chatctl webhook trigger --url http://localhost:8080/ --message-id 1234 --bot 42 --json',
      'CHATCTL_WEBHOOK_TOKEN="$TOKEN" chatctl webhook trigger --url http://localhost:8080/ --dry-run',
    ],
    options: {
      url: flag.custom('--url <url>', "the integration's URL (the bot's payload URL)", parseIntegrationUrl),
      bot: flag.string('--bot <bot>', 'the outgoing-webhook bot (ID or e-mail); default: a sample bot'),
      trigger: flag.choice('--trigger <trigger>', 'mention (a channel message) or direct_message', TRIGGERS),
      messageId: flag.custom('--message-id <id>', 'send this message instead of a sample', (v) => parseIdArg(v, 'message')),
      token: flag.string(
        '--token <token>',
        "the token to send (default: $CHATCTL_WEBHOOK_TOKEN, else the bot's when you may see it); the variable keeps it out of ps",
      ),
    },
    output: DELIVERY_OUTPUT,
    mutating: true,
    async run(opts, ctx) {
      const { url, messageId, bot: botRef, trigger: asked } = opts;
      if (url === undefined) throw urlRequired();
      const out = ctx.output(opts);

      const client = botRef !== undefined || messageId !== undefined ? await ctx.client() : null;
      const named = client && botRef !== undefined ? await botOf(ctx, client, botRef) : null;
      const bot: Person = named ?? SAMPLE_BOT;
      let message: OutgoingWebhookMessage;
      let trigger: OutgoingWebhookTrigger;
      if (client && messageId !== undefined) {
        message = await fetchWebhookMessage(client, messageId, ctx.signal);
        trigger = named ? messageTrigger(ctx, message, named, asked) : (asked ?? (message.type === 'private' ? 'direct_message' : 'mention'));
      } else {
        const sender = client ? await client.call(getOwnUser, {}, { signal: ctx.signal }) : SAMPLE_SENDER;
        trigger = asked ?? 'mention';
        message = sampleMessage(sender, bot, trigger, ctx.nowMs());
      }
      const given = opts.token ?? ctx.env.CHATCTL_WEBHOOK_TOKEN;
      if (opts.dryRun) {
        // The bot's token is read with POST /register, which a dry run does not send: a service bot's
        // payload is shown with its token masked, as it would go if the server shows it to you.
        const serviceBot = named !== null && (named.bot_type === 3 || named.bot_type === 4);
        const masked = given !== undefined || serviceBot ? '********' : null;
        ctx.io.stdout.write(`${JSON.stringify({ method: 'POST', url, body: { ...buildPayload(bot, message, trigger, masked) } })}\n`);
        ctx.info('chatctl: dry run: 1 request not sent');
        return;
      }
      const token = given ?? (client && named ? await tokenOf(ctx, client, named) : null);
      const payload = buildPayload(bot, message, trigger, token);
      const delivery = await deliver(url, payload, ctx.signal);
      await out.item({ status: delivery.status, body: delivery.body, effect: delivery.effect });
      if (delivery.failed) throw new ChatctlError(`the server would report: ${delivery.effect}`);
    },
  }),

  defineCommand({
    path: ['webhook', 'listen'],
    summary: 'receive outgoing-webhook payloads and print them',
    description:
      'Listens for outgoing-webhook payloads on http://HOST:PORT/ (any path), as an integration would: point a ' +
      "bot's payload URL here, or send to it with webhook trigger. Each accepted payload is printed: indented " +
      'JSON on a terminal, one JSON line (NDJSON) otherwise. With --token, payloads carrying another token are ' +
      'refused with 401 and a warning on stderr. Replies {"response_not_required": true}, or with --reply TEXT ' +
      '{"content": TEXT}, which the bot posts back to the conversation. Stops on Ctrl-C, or after --count payloads.',
    examples: [
      'chatctl webhook listen',
      'CHATCTL_WEBHOOK_TOKEN="$TOKEN" chatctl webhook listen --port 9000 --reply "Got it!"',
      'chatctl webhook listen --count 1 | jq .data',
    ],
    options: {
      port: flag.port('--port <port>', 'the port to listen on (0: any free port)', { default: 8080 }),
      host: flag.string('--host <host>', 'the address to listen on', { default: '127.0.0.1' }),
      token: flag.string('--token <token>', 'accept only payloads carrying this token (default: $CHATCTL_WEBHOOK_TOKEN; the variable keeps it out of ps)'),
      reply: flag.string('--reply <text>', 'answer with this content, which the bot posts back'),
      count: flag.int('--count <n>', 'stop after this many payloads', { min: 1, what: 'a number of payloads (1 or more)' }),
    },
    async run(opts, ctx) {
      const received = await listenForPayloads({
        host: opts.host,
        port: opts.port,
        token: opts.token ?? ctx.env.CHATCTL_WEBHOOK_TOKEN,
        reply: opts.reply,
        count: opts.count,
        signal: ctx.signal,
        onListening: (url) => {
          ctx.info(`chatctl: listening for outgoing-webhook payloads at ${url} (Ctrl-C to stop)`);
          // serve lets bots reach only the public Internet: this address has to be allowed by name.
          const { host } = new URL(url);
          if (parseAllowedAddress(host)) ctx.info(`chatctl: a chatctl serve reaches it with --allow-webhook-address ${host}`);
        },
        onPayload: (payload) => writeJson(ctx, payload),
        onReject: (reason) => ctx.warn(reason),
      });
      ctx.info(`chatctl: received ${received} payload${received === 1 ? '' : 's'}`);
    },
  }),
];
