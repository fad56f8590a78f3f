import type { CallParamsOf, Operation } from '../../api/operation.js';
import type { WireRequest } from '../../api/wire.js';
import { setMessageEditTypingStatus, setTypingStatus, type TypingOp } from '../../api/operations/typing.js';
import type { ChatClient } from '../../client/client.js';
import type { ParamLabels } from '../../client/shape.js';
import { defineCommand } from '../command/command.js';
import type { Context } from '../command/context.js';
import { printDryRun } from '../bulk/dry-run.js';
import { usageError } from '../core/errors.js';
import { flag, type Values } from '../core/flags.js';
import { resolveChannel, resolveUserIds } from '../lookup/resolve.js';
import { topicName } from './topics.js';

type Conversation = { kind: 'direct'; users: string[] } | { kind: 'channel'; channel: string; topic: string } | { kind: 'edit'; messageId: number };

const WHERE_FLAGS = {
  to: flag.list('--to <users...>', 'direct conversation: the other users, by ID or e-mail'),
  channel: flag.string('--channel <channel>', 'channel conversation: the channel, by ID or name (with --topic)'),
  topic: flag.string('--topic <topic>', "channel conversation: the topic ('' for the general-chat topic)"),
  message: flag.int('--message <id>', 'editing: the message being edited', { min: 0, what: 'a message ID' }),
};

type Where = Values<typeof WHERE_FLAGS>;

/** Exactly one of --to, --channel with --topic, or --message. */
function checkWhere({ to, channel, topic, message }: Where): void {
  const given = [to.length > 0, channel !== undefined || topic !== undefined, message !== undefined].filter(Boolean).length;
  if (given !== 1) throw usageError('say where: --to USER... (direct), --channel C --topic T (channel), or --message ID (editing)');
  if (to.length || message !== undefined) return;
  if (channel === undefined) throw usageError('--topic goes with --channel');
  if (topic === undefined) throw usageError("--channel needs --topic ('' for the general-chat topic)");
}

/** The conversation checkWhere let through. */
function conversationOf({ to, channel, topic, message }: Where): Conversation {
  if (message !== undefined) return { kind: 'edit', messageId: message };
  if (to.length) return { kind: 'direct', users: to };
  return { kind: 'channel', channel: channel ?? '', topic: topic ?? '' };
}

/** Sends one request, or under --dry-run returns it as it would go out; the client shapes it for the server's level. */
type Send = <O extends Operation>(op: O, params: CallParamsOf<O>, labels?: ParamLabels) => Promise<WireRequest[] | undefined>;

/** The typing notification for one conversation. */
async function notify(client: ChatClient, c: Conversation, op: TypingOp, send: Send): Promise<WireRequest[] | undefined> {
  switch (c.kind) {
    case 'direct':
      return send(setTypingStatus, { type: 'direct', op, to: await resolveUserIds(client, c.users) });
    case 'channel':
      return send(
        setTypingStatus,
        { type: 'stream', op, stream_id: await resolveChannel(client, c.channel), topic: topicName(c.topic) },
        { stream_id: 'channel typing notifications' },
      );
    case 'edit':
      return send(setMessageEditTypingStatus, { message_id: c.messageId, op });
  }
}

async function run(ctx: Context, op: TypingOp, conversation: Conversation, dryRun: boolean): Promise<void> {
  const client = await ctx.client();
  const send: Send = async (o, params, labels) =>
    dryRun ? client.prepare(o, params, { labels }) : void (await client.call(o, params, { signal: ctx.signal, labels }));
  const planned = await notify(client, conversation, op, send);
  if (planned) {
    printDryRun(ctx, planned);
    return;
  }
  ctx.info(`chatctl: typing ${op === 'start' ? 'started' : 'stopped'}`);
}

const DESCRIPTION =
  'Sends a typing notification (POST /typing; for an edit, POST /messages/{id}/typing) to a direct conversation ' +
  '(--to), a channel topic (--channel and --topic), or the people who can see a message being edited ' +
  '(--message). Clients show the indicator from start until stop, or until it expires (about 45 s) without a ' +
  'new start, so a long composition repeats start. The request is shaped for older servers as needed.';

export const commands = [
  defineCommand({
    path: ['typing', 'start'],
    summary: 'tell a conversation that you started typing',
    description: DESCRIPTION,
    examples: [
      'chatctl typing start --to ada@example.com',
      'chatctl typing start --to 8 9',
      'chatctl typing start --channel general --topic "release notes"',
      'chatctl typing start --message 1234',
    ],
    options: WHERE_FLAGS,
    mutating: true,
    check: checkWhere,
    run: (opts, ctx) => run(ctx, 'start', conversationOf(opts), opts.dryRun),
  }),
  defineCommand({
    path: ['typing', 'stop'],
    summary: 'tell a conversation that you stopped typing',
    description: DESCRIPTION,
    examples: [
      'chatctl typing stop --to ada@example.com',
      'chatctl typing stop --channel general --topic "release notes"',
      'chatctl typing stop --message 1234',
    ],
    options: WHERE_FLAGS,
    mutating: true,
    check: checkWhere,
    run: (opts, ctx) => run(ctx, 'stop', conversationOf(opts), opts.dryRun),
  }),
];
