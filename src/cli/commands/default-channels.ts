import { addDefaultStream, getStreams, removeDefaultStream } from '../../api/operations/channels.js';
import { BULK_FLAGS, confirmAndRun, OUTCOME_FIELDS, planCall, runCalls } from '../bulk/runner.js';
import { planPerChannel } from '../channels/per-channel.js';
import { CHANNEL_OUTPUT, channelRows, needsLastMessage } from '../channels/rows.js';
import { defineCommand } from '../command/command.js';
import { arg } from '../core/flags.js';

const CHANNELS_ARG = { channels: arg.variadic('channel IDs or names', { required: true }) };

export const commands = [
  defineCommand({
    path: ['channels', 'default-channels', 'list'],
    aliases: ['ls'],
    summary: 'list the default channels, which new users join',
    description:
      'Lists the default channels: those every new user is subscribed to. A Zulip server has no list of its own ' +
      'for them: chatctl reads GET /streams with include_default and keeps the channels marked is_default.',
    examples: ['chatctl channels default-channels list', 'chatctl channels default-channels list --fields stream_id,name --format csv'],
    output: CHANNEL_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const { streams } = await client.call(getStreams, { include_default: true });
      await out.list(
        await channelRows(
          ctx,
          client,
          streams.filter((c) => c.is_default === true),
          { lastMessage: needsLastMessage(opts.fields) },
        ),
      );
    },
  }),

  defineCommand({
    path: ['channels', 'default-channels', 'add'],
    summary: 'make channels default channels (administrators)',
    description:
      'Makes each channel named (ID or name) a default channel (POST /default_streams): new users join it. ' +
      'Private channels cannot be. A channel that already is one is reported unchanged.',
    examples: ['chatctl channels default-channels add general announcements', 'chatctl channels default-channels add 12 --dry-run'],
    args: CHANNELS_ARG,
    options: BULK_FLAGS,
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      const client = await ctx.client();
      const calls = await planPerChannel(client, opts.channels, (c) => ({
        status: 'added',
        inPlace: c.is_default ? { id: c.stream_id } : undefined,
        call: planCall(addDefaultStream, { stream_id: c.stream_id }, { id: c.stream_id }),
      }));
      await runCalls(ctx, opts, client, calls, 'added');
    },
  }),

  defineCommand({
    path: ['channels', 'default-channels', 'remove'],
    aliases: ['rm'],
    summary: 'stop making channels default channels (administrators)',
    description:
      'Stops making each channel named (ID or name) a default channel (DELETE /default_streams); its subscribers ' +
      'stay. A channel that is not one is reported unchanged. Asks for confirmation on a terminal; elsewhere ' +
      '--yes is required.',
    examples: ['chatctl channels default-channels remove random', 'chatctl channels default-channels remove 12 13 --yes --json'],
    args: CHANNELS_ARG,
    options: BULK_FLAGS,
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const client = await ctx.client();
      const calls = await planPerChannel(client, opts.channels, (c) => ({
        status: 'removed',
        inPlace: c.is_default ? undefined : { id: c.stream_id },
        call: planCall(removeDefaultStream, { stream_id: c.stream_id }, { id: c.stream_id }),
      }));
      const n = opts.channels.length;
      await confirmAndRun(
        ctx,
        opts,
        calls,
        'removed',
        `Stop making ${n === 1 ? opts.channels[0] : `${n} channels`} default${n === 1 ? ' channel' : ' channels'}?`,
      );
    },
  }),
];
