import { archiveStream, updateStream } from '../../api/operations/channels.js';
import { fromFileFlags } from '../bulk/input.js';
import { BULK_FLAGS, confirmAndRun, OUTCOME_FIELDS, planCall, runCalls } from '../bulk/runner.js';
import { channelRefs, planPerChannel } from '../channels/per-channel.js';
import { defineCommand } from '../command/command.js';
import { questionAbout } from '../bulk/confirm.js';
import { arg } from '../core/flags.js';

const FROM_FILE = fromFileFlags('channels from CSV with a header or JSON lines (- for stdin) with a stream_id or name column, such as channels list prints');

export const commands = [
  defineCommand({
    path: ['channels', 'archive'],
    summary: 'archive channels (their administrators)',
    description:
      'Archives each channel named (DELETE /streams/{id}), by ID or name, or one per --from-file row (its stream_id, ' +
      'else its name: the rows of channels list --format ndjson or --format csv, whatever else they hold). An archived ' +
      'channel takes no messages and leaves every subscriber’s list; its messages stay, and channels unarchive brings ' +
      'it back where the server supports it. A channel already archived is reported unchanged, so a run can be ' +
      'repeated. Each channel’s outcome is printed (one JSON line each with --json); exit 3 when some failed. Asks ' +
      'for confirmation on a terminal; elsewhere --yes is required.',
    examples: [
      'chatctl channels archive old-project',
      'chatctl channels archive 12 13 --yes --json',
      'chatctl channels list --format ndjson --fields stream_id,name | grep legacy | chatctl channels archive --from-file - --yes',
      'chatctl channels archive --from-file stale.csv --dry-run',
    ],
    args: { channels: arg.variadic('channel IDs or names') },
    options: { ...FROM_FILE, ...BULK_FLAGS },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const refs = await channelRefs(ctx, opts);
      const client = await ctx.client();
      const calls = await planPerChannel(
        client,
        refs,
        (c) => ({
          status: 'archived',
          inPlace: c.is_archived ? { id: c.stream_id } : undefined,
          call: planCall(archiveStream, { stream_id: c.stream_id }, { id: c.stream_id }),
        }),
        { archived: true },
      );
      await confirmAndRun(ctx, opts, calls, 'archived', questionAbout('Archive', calls, 'channels', refs));
    },
  }),

  defineCommand({
    path: ['channels', 'unarchive'],
    summary: 'unarchive channels (feature level 388)',
    description:
      'Brings archived channels back (PATCH /streams/{id} with is_archived=false), by ID or name, or one per ' +
      '--from-file row (stream_id or name). Servers before feature level 388 cannot unarchive a channel: chatctl ' +
      'says so before reading or sending anything. A channel that is not archived is reported unchanged.',
    examples: ['chatctl channels unarchive old-project', 'chatctl channels unarchive 12 13 --json', 'chatctl channels unarchive old-project --dry-run'],
    args: { channels: arg.variadic('channel IDs or names') },
    options: { ...FROM_FILE, ...BULK_FLAGS },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      const refs = await channelRefs(ctx, opts);
      const client = await ctx.client();
      const labels = { is_archived: 'channels unarchive' };
      // Refused before anything is read: what the server lacks is unarchiving, whichever channel (0 stands for any).
      await client.prepare(updateStream, { stream_id: 0, is_archived: false }, { labels });
      const calls = await planPerChannel(
        client,
        refs,
        (c) => ({
          status: 'unarchived',
          inPlace: c.is_archived ? undefined : { id: c.stream_id },
          call: planCall(updateStream, { stream_id: c.stream_id, is_archived: false }, { id: c.stream_id, labels }),
        }),
        { archived: true },
      );
      await runCalls(ctx, opts, client, calls, 'unarchived');
    },
  }),
];
