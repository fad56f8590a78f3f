/** Channel folders in the store and their wire form. */
import { badRequest } from '../../api/errors.js';
import type { ChannelFolder } from '../../api/operations/folders.js';
import type { Db } from '../store/db.js';
import { firstUnprintable } from './channels.js';

export interface FolderRow {
  id: number;
  name: string;
  description: string;
  rendered_description: string;
  order: number;
  date_created: number;
  creator_id: number | null;
  is_archived: number;
}

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
  (db.prepare('SELECT * FROM channel_folders ORDER BY "order", id').all() as FolderRow[])
    .filter((f) => includeArchived || !f.is_archived)
    .map(folderView);

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
