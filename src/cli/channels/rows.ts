/**
 * Channels as `channels list` and `channels get` print them: the wire object with what people ask about
 * added (privacy in one word, the folder's name, the subscriber count, the time of the last message).
 * `channelRows` is the one place rows are built, so a report that adds a column extends it here.
 */
import { getSubscribers, type Channel } from '../../api/operations/channels.js';
import { getChannelFolders } from '../../api/operations/folders.js';
import { getMessages } from '../../api/operations/messages.js';
import type { ChatClient } from '../../client/client.js';
import { runPool } from '../../client/pool.js';
import type { Context } from '../command/context.js';
import { ChatctlError } from '../core/errors.js';
import type { OutputSpec } from '../output/output.js';

export const PRIVACY = ['public', 'private', 'web-public'] as const;
export type Privacy = (typeof PRIVACY)[number];

export const privacyOf = (c: Pick<Channel, 'invite_only' | 'is_web_public'>): Privacy =>
  c.is_web_public ? 'web-public' : c.invite_only ? 'private' : 'public';

/** A channel's privacy as the create and update parameters say it. */
export const privacyParams = (p: Privacy) => ({ invite_only: p === 'private', is_web_public: p === 'web-public' });

export const CHANNEL_FIELDS = [
  'stream_id',
  'name',
  'description',
  'privacy',
  'subscriber_count',
  'folder',
  'folder_id',
  'last_message_time',
  'is_default',
  'is_archived',
  'invite_only',
  'is_web_public',
  'history_public_to_subscribers',
  'date_created',
  'creator_id',
  'stream_weekly_traffic',
  'message_retention_days',
  'first_message_id',
] as const;

export const CHANNEL_OUTPUT: OutputSpec = {
  fields: CHANNEL_FIELDS,
  columns: ['stream_id', 'name', 'privacy', 'subscriber_count', 'folder', 'description'],
  times: { date_created: 's', last_message_time: 's' },
  key: ['stream_id', 'name'],
};

export interface ChannelRow extends Omit<Channel, 'subscriber_count'> {
  privacy: Privacy;
  /** null: unknown (an older server, and its members could not be read). */
  subscriber_count: number | null;
  /** The folder's name; null: in no folder. */
  folder: string | null;
  /**
   * When the newest message the caller can read was sent (UNIX seconds), only when asked for; null: none
   * was ever sent (or none is left); undefined: unknown (the caller cannot read the channel's messages).
   */
  last_message_time?: number | null;
}

export interface RowNeeds {
  /** Fetch each channel's last message time: one request per channel. */
  lastMessage?: boolean;
}

/** Whether --fields asks for the last message time: only then is it fetched, a request per channel. */
export const needsLastMessage = (fields: readonly string[] | undefined): boolean => fields?.includes('last_message_time') === true;

/**
 * One request per channel, at most 4 at once and paced by the server's rate-limit headers; a channel whose
 * request fails gets undefined (what it stands for is unknown), and Ctrl-C stops the rest.
 */
async function perChannel<R>(ctx: Context, client: ChatClient, channels: readonly Channel[], fetch: (c: Channel) => Promise<R>): Promise<(R | undefined)[]> {
  const results = await runPool(channels, (c) => fetch(c), { pacer: client.pacer, signal: ctx.signal });
  if (ctx.signal.aborted) throw new ChatctlError('interrupted', 'interrupted');
  return results.map((r) => (r.ok ? r.value : undefined));
}

/** The time of a channel's newest message: GET /messages narrowed to it, anchored at the newest. */
async function lastMessageTime(client: ChatClient, c: Channel): Promise<number | null> {
  const { messages } = await client.call(getMessages, {
    anchor: 'newest',
    num_before: 1,
    num_after: 0,
    narrow: [{ operator: 'channel', operand: c.stream_id }],
    apply_markdown: false,
  });
  return messages.at(-1)?.timestamp ?? null;
}

/** The rows of `channels`, in order, with what `needs` asks for fetched channel by channel. */
export async function channelRows(ctx: Context, client: ChatClient, channels: readonly Channel[], needs: RowNeeds = {}): Promise<ChannelRow[]> {
  // Servers before feature level 394 give no subscriber_count: each channel's members are counted instead.
  const counts = channels.some((c) => c.subscriber_count === undefined)
    ? await perChannel(
        ctx,
        client,
        channels,
        async (c) => c.subscriber_count ?? (await client.call(getSubscribers, { stream_id: c.stream_id })).subscribers.length,
      )
    : channels.map((c) => c.subscriber_count);
  const last = needs.lastMessage ? await perChannel(ctx, client, channels, (c) => lastMessageTime(client, c)) : undefined;
  // Only a server with folders puts channels in them.
  const folders = channels.some((c) => c.folder_id !== null && c.folder_id !== undefined)
    ? new Map((await client.call(getChannelFolders, { include_archived: true })).channel_folders.map((f) => [f.id, f.name]))
    : new Map<number, string>();
  return channels.map((c, i) => ({
    ...c,
    privacy: privacyOf(c),
    subscriber_count: counts[i] ?? null,
    folder: c.folder_id === null || c.folder_id === undefined ? null : (folders.get(c.folder_id) ?? null),
    ...(last ? { last_message_time: last[i] } : {}),
  }));
}
