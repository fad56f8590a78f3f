/**
 * Commands that do one thing to each channel named (archive, unarchive, default-channels add and remove):
 * channels from arguments or from --from-file rows with a stream_id or name column (what `channels list
 * --format ndjson` or `--format csv` prints), one planned call per channel.
 */
import type { Channel } from '../../api/operations/channels.js';
import type { ChatClient } from '../../client/client.js';
import { argumentsOrRows, cell, type Columns, type FromFile } from '../bulk/input.js';
import type { RowCall } from '../bulk/runner.js';
import type { Context } from '../command/context.js';
import { Refusal } from '../core/refusal.js';
import { findChannels } from './find.js';

/** stream_id or name names the channel; any other column (what else `channels list` prints) is ignored. */
export const CHANNEL_ROW_COLUMNS: Columns = {
  stream_id: { description: 'channel ID (this or name)', json: 'id' },
  name: { description: 'channel name (this or stream_id)' },
};

/** The channel references of a command: its arguments, or a reference per --from-file row (its stream_id, else its name). */
export const channelRefs = (ctx: Context, o: FromFile & { channels: readonly string[] }): Promise<string[]> =>
  argumentsOrRows(ctx, o, o.channels, { many: 'channels', one: 'channel (ID or name)' }, CHANNEL_ROW_COLUMNS, (r) => cell(r, 'stream_id') || cell(r, 'name'), {
    otherColumns: 'ignore',
  });

/** One row per reference, each channel once; `plan` says what to do with a channel found. */
export async function planPerChannel(
  client: ChatClient,
  refs: readonly string[],
  plan: (c: Channel) => Omit<RowCall, 'row' | 'target'>,
  o: { archived?: boolean } = {},
): Promise<RowCall[]> {
  const found = await findChannels(
    client,
    refs.filter((r) => r.trim() !== ''),
    o,
  );
  const seen = new Set<number>();
  const calls: RowCall[] = [];
  for (const ref of refs) {
    const base = { row: calls.length + 1, target: ref };
    const f = found.get(ref);
    if (!f) calls.push({ ...base, status: 'failed', error: new Refusal('no stream_id or name') });
    else if (!f.ok) calls.push({ ...base, status: 'failed', error: f.error });
    else if (!seen.has(f.channel.stream_id)) {
      seen.add(f.channel.stream_id);
      calls.push({ ...base, label: `channel ${f.channel.stream_id} (#${f.channel.name})`, ...plan(f.channel) });
    }
  }
  return calls;
}
