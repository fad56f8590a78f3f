/**
 * Channels as objects, by ID or name: the channel commands need more than an ID (the subscription
 * endpoints take names; archiving asks what a channel is), so references are matched against GET /streams.
 */
import { ApiError } from '../../api/errors.js';
import { getStreams, type Channel } from '../../api/operations/channels.js';
import type { CallParamsOf } from '../../api/operation.js';
import type { ChatClient } from '../../client/client.js';
import { FeatureLevelError } from '../../client/features.js';
import { unknownRef, type Refusal } from '../core/refusal.js';
import { matchChannels } from '../lookup/resolve.js';

export type FoundChannel = { ok: true; channel: Channel } | { ok: false; error: Refusal };

/**
 * Each reference (an ID, a name or #name) as the channel it names. The first request lists what the caller
 * sees by default (public channels and its own); only when a reference is not among them is every channel
 * the caller may administer asked for (`include_all`): administrators see private channels they are not
 * subscribed to only that way, and servers before feature level 356 refuse it to everyone else. With
 * `archived`, archived channels are listed too. Every channel comes with `is_default`.
 */
export async function findChannels(client: ChatClient, refs: readonly string[], o: { archived?: boolean } = {}): Promise<Map<string, FoundChannel>> {
  let base: CallParamsOf<typeof getStreams> = { include_default: true, exclude_archived: o.archived ? false : undefined };
  let streams: Channel[];
  try {
    streams = (await client.call(getStreams, base)).streams;
  } catch (e) {
    // A server before feature level 315 lists no archived channel: what it lists is all there is.
    if (!(e instanceof FeatureLevelError)) throw e;
    base = { include_default: true };
    streams = (await client.call(getStreams, base)).streams;
  }
  let matched = matchChannels(refs, streams);
  const listed = (ref: string): boolean => {
    const r = matched.get(ref)!;
    return r.ok && streams.some((c) => c.stream_id === r.id);
  };
  if (!refs.every(listed)) {
    try {
      streams = (await client.call(getStreams, { ...base, include_all: true })).streams;
      matched = matchChannels(refs, streams);
    } catch (e) {
      // Refused (not an administrator, on an older server): the channels the caller sees are all there are.
      if (!(e instanceof ApiError)) throw e;
    }
  }
  const byId = new Map(streams.map((c) => [c.stream_id, c]));
  return new Map(
    refs.map((ref): [string, FoundChannel] => {
      const r = matched.get(ref)!;
      if (!r.ok) return [ref, r];
      const channel = byId.get(r.id);
      return [ref, channel ? { ok: true, channel } : { ok: false, error: unknownRef('Invalid channel ID') }];
    }),
  );
}

/** The channels named, in order, or the error of the first that names none (exit 6). */
export async function requireChannels(client: ChatClient, refs: readonly string[], o: { archived?: boolean } = {}): Promise<Channel[]> {
  const found = await findChannels(client, refs, o);
  return refs.map((ref) => {
    const f = found.get(ref)!;
    if (!f.ok) throw f.error;
    return f.channel;
  });
}
