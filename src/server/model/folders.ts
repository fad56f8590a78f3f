/** Channel folders in the store, their wire form, and changes to them (each a `channel_folder` event to everyone). */
import { badRequest } from '../../api/errors.js';
import type { ChannelFolder } from '../../api/operations/folders.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { firstUnprintable } from './channels.js';
import { renderHtml } from './render.js';
import { listeningUserIds } from './event-queues.js';

/** A folder as stored: the wire fields, with SQLite's 0 or 1 for the flag. */
export type FolderRow = Omit<ChannelFolder, 'is_archived'> & { is_archived: number };

export const folderView = (f: FolderRow): ChannelFolder => ({
  id: f.id,
  name: f.name,
  description: f.description,
  rendered_description: f.rendered_description,
  order: f.order,
  date_created: f.date_created,
  creator_id: f.creator_id,
  is_archived: f.is_archived === 1,
});

/** Folders in display order (archived ones only when asked). */
export const listFolders = (db: Db, includeArchived: boolean): ChannelFolder[] =>
  (db.prepare('SELECT * FROM channel_folders ORDER BY "order", id').all() as FolderRow[]).filter((f) => includeArchived || !f.is_archived).map(folderView);

export function folderById(db: Db, id: number): FolderRow {
  const row = db.prepare('SELECT * FROM channel_folders WHERE id = ?').get(id) as FolderRow | undefined;
  if (!row) throw badRequest('Invalid channel folder ID');
  return row;
}

/** Zulip's check_channel_folder_name: not blank, printable, unique without case (archived folders too). */
export function checkFolderName(db: Db, name: string): void {
  if (name.trim() === '') throw badRequest("Channel folder name can't be empty.");
  const bad = firstUnprintable(name);
  if (bad !== null) throw badRequest(`Invalid character in channel folder name, at position ${bad}.`);
  const wanted = name.toLowerCase();
  const names = db.prepare('SELECT name FROM channel_folders').all() as { name: string }[];
  if (names.some((f) => f.name.toLowerCase() === wanted)) throw badRequest('Channel folder name already in use');
}

/** Creates a folder; it goes last (its order is its ID, as on a Zulip server). Returns its ID. */
export function createFolder(db: Db, sink: EventSink, f: { name: string; description: string; creatorId: number }, now: number): number {
  checkFolderName(db, f.name);
  const info = db
    .prepare(
      `INSERT INTO channel_folders (name, description, rendered_description, "order", date_created, creator_id)
       VALUES (?, ?, ?, 0, ?, ?)`,
    )
    .run(f.name, f.description, renderHtml(db, f.description), now, f.creatorId);
  const id = Number(info.lastInsertRowid);
  db.prepare('UPDATE channel_folders SET "order" = ? WHERE id = ?').run(id, id);
  sink.emit({ type: 'channel_folder', op: 'add', channel_folder: folderView(folderById(db, id)) }, listeningUserIds(db));
  return id;
}

export interface FolderChange {
  name?: string;
  description?: string;
  is_archived?: boolean;
}

/** Applies what differs from the folder as it is, each part checked first and sent as its own update. */
export function updateFolder(db: Db, sink: EventSink, folder: FolderRow, change: FolderChange): void {
  const send = (data: Record<string, string | boolean>) =>
    sink.emit({ type: 'channel_folder', op: 'update', channel_folder_id: folder.id, data }, listeningUserIds(db));
  if (change.name !== undefined && change.name !== folder.name) {
    checkFolderName(db, change.name);
    db.prepare('UPDATE channel_folders SET name = ? WHERE id = ?').run(change.name, folder.id);
    send({ name: change.name });
  }
  if (change.description !== undefined && change.description !== folder.description) {
    const rendered = renderHtml(db, change.description);
    db.prepare('UPDATE channel_folders SET description = ?, rendered_description = ? WHERE id = ?').run(change.description, rendered, folder.id);
    send({ description: change.description, rendered_description: rendered });
  }
  if (change.is_archived !== undefined && change.is_archived !== (folder.is_archived === 1)) {
    if (change.is_archived && db.prepare('SELECT 1 FROM streams WHERE folder_id = ? AND is_archived = 0').get(folder.id)) {
      throw badRequest('You need to remove all the channels from this folder to archive it.');
    }
    db.prepare('UPDATE channel_folders SET is_archived = ? WHERE id = ?').run(change.is_archived ? 1 : 0, folder.id);
    send({ is_archived: change.is_archived });
  }
}

/** Puts the folders in the given order, which must name every folder. */
export function reorderFolders(db: Db, sink: EventSink, order: readonly number[]): void {
  const ids = (db.prepare('SELECT id FROM channel_folders').all() as { id: number }[]).map((r) => r.id);
  if (ids.some((id) => !order.includes(id))) throw badRequest('Invalid order mapping.');
  const set = db.prepare('UPDATE channel_folders SET "order" = ? WHERE id = ?');
  for (const [index, id] of order.entries()) set.run(index, id);
  sink.emit({ type: 'channel_folder', op: 'reorder', order }, listeningUserIds(db));
}
