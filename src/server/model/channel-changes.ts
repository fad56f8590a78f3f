/**
 * Changes to a channel once it exists: name, description, privacy, folder, default status, archiving and
 * unarchiving, each with the `stream` (and `default_streams`) events a Zulip server sends for it.
 */
import { ApiError, badRequest } from '../../api/errors.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { channelView, checkChannelName, metadataUserIds, streamByName, type StreamRow } from './channels.js';
import { renderHtml } from './render.js';
import { listeningViewers } from './event-queues.js';
import { isGuest } from './users.js';

/** Zulip's ChannelExistsError: a name another channel has, whatever its case. */
export const channelExists = (name: string): ApiError =>
  new ApiError(`Channel '${name}' already exists`, 'CHANNEL_ALREADY_EXISTS', 400, { channel_name: name });

/** Zulip's check_stream_name_available: a valid name no channel has. */
export function checkNameAvailable(db: Db, name: string): void {
  checkChannelName(name);
  if (streamByName(db, name)) throw channelExists(name);
}

/** A `stream` `update` event of one property, to everyone who may see the channel. */
function emitUpdate(db: Db, sink: EventSink, stream: StreamRow, property: string, value: unknown, extra: Record<string, unknown> = {}): void {
  sink.emit({ type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property, value, ...extra }, metadataUserIds(db, stream));
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
 * Zulip's do_change_stream_permission: one `update` per property that changed, to those who may see the
 * channel afterwards; a channel made public is announced (`create`) to those who could not see it, and one
 * made private is withdrawn (`delete`) from those who no longer may.
 */
export function changeChannelPermission(db: Db, sink: EventSink, stream: StreamRow, next: ChannelPermission): void {
  const before = new Set(metadataUserIds(db, stream));
  db.prepare('UPDATE streams SET invite_only = ?, history_public_to_subscribers = ?, is_web_public = ? WHERE id = ?').run(
    next.invite_only ? 1 : 0,
    next.history_public_to_subscribers ? 1 : 0,
    next.is_web_public ? 1 : 0,
    stream.id,
  );
  const changed = { ...stream, ...toRow(next) };
  const after = metadataUserIds(db, changed);
  const afterSet = new Set(after);
  const view = channelView(db)(changed);
  const gained = after.filter((id) => !before.has(id));
  const lost = [...before].filter((id) => !afterSet.has(id));
  if (gained.length) sink.emit({ type: 'stream', op: 'create', streams: [view] }, gained);
  if (lost.length) sink.emit({ type: 'stream', op: 'delete', streams: [view], stream_ids: [stream.id] }, lost);
  const stayed = after.filter((id) => before.has(id));
  if ((stream.invite_only === 1) !== next.invite_only) {
    const event = {
      type: 'stream',
      op: 'update',
      stream_id: stream.id,
      name: stream.name,
      property: 'invite_only',
      value: next.invite_only,
      history_public_to_subscribers: next.history_public_to_subscribers,
      is_web_public: next.is_web_public,
    };
    sink.emit(event, stayed);
  }
  if ((stream.history_public_to_subscribers === 1) !== next.history_public_to_subscribers) {
    sink.emit(
      {
        type: 'stream',
        op: 'update',
        stream_id: stream.id,
        name: stream.name,
        property: 'history_public_to_subscribers',
        value: next.history_public_to_subscribers,
      },
      stayed,
    );
  }
  if ((stream.is_web_public === 1) !== next.is_web_public) {
    sink.emit({ type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property: 'is_web_public', value: next.is_web_public }, stayed);
  }
}

const toRow = (p: ChannelPermission): Pick<StreamRow, 'invite_only' | 'history_public_to_subscribers' | 'is_web_public'> => ({
  invite_only: p.invite_only ? 1 : 0,
  history_public_to_subscribers: p.history_public_to_subscribers ? 1 : 0,
  is_web_public: p.is_web_public ? 1 : 0,
});

/** The organization's default channels, by name as Zulip sorts them. */
const defaultChannels = (db: Db): StreamRow[] =>
  db.prepare('SELECT * FROM streams WHERE is_default = 1 AND is_archived = 0 ORDER BY name COLLATE BINARY, id').all() as StreamRow[];

/**
 * Adds a channel to the default channels or takes it out; the whole new list goes to every active member
 * (not guests), as Zulip's notify_default_streams sends it. Asking for what is already so sends nothing.
 */
export function setDefaultChannel(db: Db, sink: EventSink, stream: StreamRow, isDefault: boolean): void {
  if ((stream.is_default === 1) === isDefault) return;
  db.prepare('UPDATE streams SET is_default = ? WHERE id = ?').run(isDefault ? 1 : 0, stream.id);
  const view = channelView(db);
  const members = listeningViewers(db)
    .filter((u) => !isGuest(u))
    .map((u) => u.id);
  sink.emit({ type: 'default_streams', default_streams: defaultChannels(db).map(view) }, members);
}

/**
 * Zulip's do_deactivate_stream: the channel keeps its name, subscribers and messages; it stops being a
 * default channel, and those who could see it get a `delete` (clients declaring `archived_channels` get it
 * as an `is_archived` update: event-queues.ts).
 */
export function archiveChannel(db: Db, sink: EventSink, stream: StreamRow): void {
  if (stream.is_archived) throw badRequest('Channel is already deactivated');
  const audience = metadataUserIds(db, stream);
  setDefaultChannel(db, sink, stream, false);
  db.prepare('UPDATE streams SET is_archived = 1 WHERE id = ?').run(stream.id);
  const view = channelView(db)({ ...stream, is_default: 0, is_archived: 1 });
  sink.emit({ type: 'stream', op: 'delete', streams: [view], stream_ids: [stream.id] }, audience);
}

/**
 * Zulip's do_unarchive_stream: a private channel with nobody in it stays archived (nobody could reach it).
 * Those who may see it get it again as a `create` marked `for_unarchiving`.
 */
export function unarchiveChannel(db: Db, sink: EventSink, stream: StreamRow): void {
  if (!stream.is_archived) throw badRequest('Channel is not currently deactivated');
  const subscribed = db.prepare('SELECT 1 FROM subscriptions WHERE stream_id = ? AND active = 1').get(stream.id) !== undefined;
  if (stream.invite_only && !subscribed) throw badRequest('Channel is private and have no subscribers');
  db.prepare('UPDATE streams SET is_archived = 0 WHERE id = ?').run(stream.id);
  const active = { ...stream, is_archived: 0 };
  sink.emit({ type: 'stream', op: 'create', streams: [channelView(db)(active)], for_unarchiving: true }, metadataUserIds(db, active));
}
