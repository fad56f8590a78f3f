/**
 * Which channels went quiet: `channels list --quiet-since`. A channel is quiet when its newest message the
 * caller can read is older than the cutoff (or it has none); when the caller cannot see that, it is
 * `unknown`, never quiet.
 */
import { getSubscriptions } from '../../api/operations/channels.js';
import type { ChatClient } from '../../client/client.js';
import type { ChannelRow } from './rows.js';

export type Quietness = 'quiet' | 'unknown';

/** A channel row of the report: the listing's row and why it is listed. */
export type QuietRow = ChannelRow & { status: Quietness };

/** The private channels the caller is subscribed to: only in those can "no message" be read as none. */
export async function subscribedIds(client: ChatClient): Promise<Set<number>> {
  return new Set((await client.call(getSubscriptions, {})).subscriptions.map((s) => s.stream_id));
}

/**
 * Why a channel is listed, or undefined when it is not stale: a message since the cutoff, created after it,
 * or archived already. A private channel the caller is not subscribed to shows no messages at all, so
 * "none" there is unknown; so is a channel whose messages could not be read.
 */
export function quietnessOf(row: ChannelRow, cutoff: number, subscribed: ReadonlySet<number>): Quietness | undefined {
  if (row.is_archived || (row.date_created ?? 0) >= cutoff) return undefined;
  const last = row.last_message_time;
  if (last === undefined || (last === null && row.invite_only && !subscribed.has(row.stream_id))) return 'unknown';
  return last === null || last < cutoff ? 'quiet' : undefined;
}

/** The stale rows, quiet and unknown, in the listing's order. */
export function quietRows(rows: readonly ChannelRow[], cutoff: number, subscribed: ReadonlySet<number>): QuietRow[] {
  return rows.flatMap((row) => {
    const status = quietnessOf(row, cutoff, subscribed);
    return status ? [{ ...row, status }] : [];
  });
}
