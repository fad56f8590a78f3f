import type { CallParamsOf, Operation } from '../../api/operation.js';
import type { WireRequest } from '../../api/wire.js';
import { setMessageEditTypingStatus, setTypingStatus, type TypingOp } from '../../api/operations/typing.js';
import type { ChatClient } from '../../client/client.js';
import type { ParamLabels } from '../../client/shape.js';
import { defineLegacyCommand, opt, type CommandOptions, type CommandSpec } from '../legacy-command.js';
import type { Context } from '../context.js';
import { printDryRun } from '../dry-run.js';
import { usageError } from '../errors.js';
import { resolveChannel, resolveUserIds } from '../resolve.js';
import { topicName } from './topics.js';

type Conversation =
  | { kind: 'direct'; users: string[] }
  | { kind: 'channel'; channel: string; topic: string }
  | { kind: 'edit'; messageId: number };

/** Exactly one of --to, --channel with --topic, or --message. */
function conversationOf(opts: CommandOptions): Conversation {
  const to = opt.list(opts, 'to');
  const channel = opt.str(opts, 'channel');
  const topic = opt.str(opts, 'topic');
  const message = opt.str(opts, 'message');
  const given = [to.length > 0, channel !== undefined || topic !== undefined, message !== undefined].filter(Boolean).length;
  if (given !== 1) throw usageError('say where: --to USER... (direct), --channel C --topic T (channel), or --message ID (editing)');
  if (message !== undefined) {
    if (!/^\d+$/.test(message)) throw usageError(`--message takes a message ID, not "${message}"`);
    return { kind: 'edit', messageId: Number(message) };
  }
  if (to.length) return { kind: 'direct', users: to };
  if (channel === undefined) throw usageError('--topic goes with --channel');
  if (topic === undefined) throw usageError('--channel needs --topic (\'\' for the general-chat topic)');
  return { kind: 'channel', channel, topic };
}

/** Sends one request, or under --dry-run returns it as it would go out; the client shapes it for the server's level. */
type Send = <O extends Operation>(op: O, params: CallParamsOf<O>, labels?: ParamLabels) => Promise<WireRequest[] | void>;

/** The typing notification for one conversation. */
async function notify(client: ChatClient, c: Conversation, op: TypingOp, send: Send): Promise<WireRequest[] | void> {
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

async function run(opts: CommandOptions, ctx: Context, op: TypingOp): Promise<void> {
  const conversation = conversationOf(opts);
  const client = await ctx.client();
  const dryRun = opt.bool(opts, 'dryRun');
  const send: Send = async (o, params, labels) => (dryRun ? client.prepare(o, params, { labels }) : void (await client.call(o, params, { signal: ctx.signal, labels })));
  const planned = await notify(client, conversation, op, send);
  if (planned) {
    printDryRun(ctx, planned);
    return;
  }
  ctx.info(`chatctl: typing ${op === 'start' ? 'started' : 'stopped'}`);
}

const OPTIONS = [
  { flags: '--to <users...>', description: 'direct conversation: the other users, by ID or e-mail' },
  { flags: '--channel <channel>', description: 'channel conversation: the channel, by ID or name (with --topic)' },
  { flags: '--topic <topic>', description: 'channel conversation: the topic (\'\' for the general-chat topic)' },
  { flags: '--message <id>', description: 'editing: the message being edited' },
];

const DESCRIPTION =
  'Sends a typing notification (POST /typing; for an edit, POST /messages/{id}/typing) to a direct conversation ' +
  '(--to), a channel topic (--channel and --topic), or the people who can see a message being edited ' +
  '(--message). Clients show the indicator from start until stop, or until it expires (about 45 s) without a ' +
  'new start, so a long composition repeats start. The request is shaped for older servers as needed.';

export const commands: CommandSpec[] = [
  defineLegacyCommand({
    path: ['typing', 'start'],
    summary: 'tell a conversation that you started typing',
    description: DESCRIPTION,
    examples: [
      'chatctl typing start --to ada@example.com',
      'chatctl typing start --to 8 9',
      'chatctl typing start --channel general --topic "release notes"',
      'chatctl typing start --message 1234',
    ],
    options: OPTIONS,
    mutating: true,
    run: (opts, ctx) => run(opts, ctx, 'start'),
  }),
  defineLegacyCommand({
    path: ['typing', 'stop'],
    summary: 'tell a conversation that you stopped typing',
    description: DESCRIPTION,
    examples: ['chatctl typing stop --to ada@example.com', 'chatctl typing stop --channel general --topic "release notes"', 'chatctl typing stop --message 1234'],
    options: OPTIONS,
    mutating: true,
    run: (opts, ctx) => run(opts, ctx, 'stop'),
  }),
];
