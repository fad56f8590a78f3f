/**
 * Changes to a channel once it exists: name, description, privacy, folder, default status, archiving and
 * unarchiving, each with the `stream` (and `default_streams`) events a Zulip server sends for it
 * (zerver/actions/streams.py and zerver/actions/default_streams.py).
 */
import { ApiError, badRequest } from '../../api/errors.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { channelView, checkChannelName, defaultChannelIds, metadataUserIds, streamById, streamByName, subscriberIds, type StreamRow } from './channels.js';
import { renderHtml } from './render.js';
import { listeningViewers } from './event-queues.js';
import { isGuest } from './users.js';

/**
 * Zulip's ChannelExistsError (lib/streams.py check_stream_name_available, for creating and renaming): a
 * name another channel has, whatever its case or whether it is archived. HTTP 409 with the name as
 * `channel_name`, as the error was introduced with POST /channels/create (zulip/zulip#33405).
 */
export const channelExists = (name: string): ApiError =>
  new ApiError(`Channel '${name}' already exists`, 'CHANNEL_ALREADY_EXISTS', 409, { channel_name: name });

/** Zulip's check_stream_name_available: a valid name no channel has. */
export function checkNameAvailable(db: Db, name: string): void {
  checkChannelName(name);
  if (streamByName(db, name)) throw channelExists(name);
}

/**
 * A `stream` `delete` event. Since feature level 343 its `streams` objects carry only `stream_id` (the
 * list is deprecated for `stream_ids`): lib/streams.py send_stream_deletion_event.
 */
export const streamDeletion = (streamIds: readonly number[]): Record<string, unknown> & { type: string } => ({
  type: 'stream',
  op: 'delete',
  streams: streamIds.map((id) => ({ stream_id: id })),
  stream_ids: [...streamIds],
});

/** A `stream` `update` event of one property, to everyone who may see the channel. */
function emitUpdate(db: Db, sink: EventSink, stream: StreamRow, property: string, value: unknown, extra: Record<string, unknown> = {}): void {
  sink.emit({ type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property, value, ...extra }, metadataUserIds(db, stream));
}

/**
 * New channels, as lib/streams.py create_stream_if_needed announces them when it creates them: to those
 * who may see a channel nobody is in yet (everyone but guests for a public one, the administrators and
 * its creator for a private one). Default channels are then made so before anyone is subscribed, as
 * views/streams.py add_subscriptions_backend orders it.
 */
export function announceCreated(db: Db, sink: EventSink, created: readonly StreamRow[], isDefault: boolean): void {
  const view = channelView(db);
  for (const stream of created) sink.emit({ type: 'stream', op: 'create', streams: [view(stream)] }, metadataUserIds(db, stream));
  if (isDefault) for (const stream of created) setDefaultChannel(db, sink, stream, true);
}

export function renameChannel(db: Db, sink: EventSink, stream: StreamRow, newName: string): void {
  db.prepare('UPDATE streams SET name = ? WHERE id = ?').run(newName, stream.id);
  // The event names the channel by its old name: that is how clients still know it.
  emitUpdate(db, sink, stream, 'name', newName);
}

export function setChannelDescription(db: Db, sink: EventSink, stream: StreamRow, description: string): void {
  const rendered = renderHtml(db, description);
  db.prepare('UPDATE streams SET description = ?, rendered_description = ? WHERE id = ?').run(description, rendered, stream.id);
  emitUpdate(db, sink, stream, 'description', description, { rendered_description: rendered });
}

export function setChannelFolder(db: Db, sink: EventSink, stream: StreamRow, folderId: number | null): void {
  if (stream.folder_id === folderId) return;
  db.prepare('UPDATE streams SET folder_id = ? WHERE id = ?').run(folderId, stream.id);
  emitUpdate(db, sink, stream, 'folder_id', folderId);
}

export interface ChannelPermission {
  invite_only: boolean;
  history_public_to_subscribers: boolean;
  is_web_public: boolean;
}

/**
 * Zulip's do_change_stream_permission: a private channel made public is announced (`create`, and its
 * subscribers in a `peer_add`) to those who could not see it; everyone else who may see it afterwards
 * gets one `update` of `invite_only` carrying the other two settings, whichever changed. Those a channel
 * made private shuts out are told nothing.
 */
export function changeChannelPermission(db: Db, sink: EventSink, stream: StreamRow, next: ChannelPermission): void {
  const before = new Set(metadataUserIds(db, stream));
  db.prepare('UPDATE streams SET invite_only = ?, history_public_to_subscribers = ?, is_web_public = ? WHERE id = ?').run(
    next.invite_only ? 1 : 0,
    next.history_public_to_subscribers ? 1 : 0,
    next.is_web_public ? 1 : 0,
    stream.id,
  );
  const changed = streamById(db, stream.id)!;
  const after = metadataUserIds(db, changed);
  const gained = stream.invite_only && !next.invite_only ? after.filter((id) => !before.has(id)) : [];
  if (gained.length) {
    sink.emit({ type: 'stream', op: 'create', streams: [channelView(db)(changed)] }, gained);
    sink.emit({ type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: subscriberIds(db, stream.id) }, gained);
  }
  const announced = new Set(gained);
  sink.emit(
    {
      type: 'stream',
      op: 'update',
      stream_id: stream.id,
      name: stream.name,
      property: 'invite_only',
      value: next.invite_only,
      history_public_to_subscribers: next.history_public_to_subscribers,
      is_web_public: next.is_web_public,
    },
    after.filter((id) => !announced.has(id)),
  );
}

/**
 * Adds a channel to the default channels or takes it out; the whole new list of IDs goes to every active
 * member (not guests), as actions/default_streams.py notify_default_streams sends it. Adding a default
 * channel again sends nothing; taking one out always sends the list, as do_remove_default_stream does.
 */
export function setDefaultChannel(db: Db, sink: EventSink, stream: StreamRow, isDefault: boolean): void {
  if (isDefault && stream.is_default === 1) return;
  db.prepare('UPDATE streams SET is_default = ? WHERE id = ?').run(isDefault ? 1 : 0, stream.id);
  const members = listeningViewers(db)
    .filter((u) => !isGuest(u))
    .map((u) => u.id);
  sink.emit({ type: 'default_streams', default_streams: defaultChannelIds(db) }, members);
}

/**
 * Zulip's do_deactivate_stream: the channel keeps its name, subscribers and messages; it stops being a
 * default channel; those who could see it get an `is_archived` update if their client declared
 * `archived_channels`, a `delete` otherwise (`for_archiving` chooses the audience: event-queues.ts).
 */
export function archiveChannel(db: Db, sink: EventSink, stream: StreamRow): void {
  if (stream.is_archived) throw badRequest('Channel is already deactivated');
  const audience = metadataUserIds(db, stream);
  if (stream.is_default) setDefaultChannel(db, sink, stream, false);
  db.prepare('UPDATE streams SET is_archived = 1 WHERE id = ?').run(stream.id);
  sink.emit({ type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property: 'is_archived', value: true }, audience);
  sink.emit({ ...streamDeletion([stream.id]), for_archiving: true }, audience);
}

/**
 * Zulip's do_unarchive_stream: a private channel with nobody in it stays archived (nobody could reach it).
 * Those who may see it get an `is_archived` update if their client declared `archived_channels`, the
 * channel's `create` otherwise (`for_unarchiving` chooses the audience: event-queues.ts).
 */
export function unarchiveChannel(db: Db, sink: EventSink, stream: StreamRow): void {
  if (!stream.is_archived) throw badRequest('Channel is not currently deactivated');
  const subscribed = db.prepare('SELECT 1 FROM subscriptions WHERE stream_id = ? AND active = 1').get(stream.id) !== undefined;
  if (stream.invite_only && !subscribed) throw badRequest('Channel is private and have no subscribers');
  db.prepare('UPDATE streams SET is_archived = 0 WHERE id = ?').run(stream.id);
  const active = streamById(db, stream.id)!;
  const audience = metadataUserIds(db, active);
  sink.emit({ type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property: 'is_archived', value: false }, audience);
  sink.emit({ type: 'stream', op: 'create', streams: [channelView(db)(active)], for_unarchiving: true }, audience);
}
