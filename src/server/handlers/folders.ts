/** Channel folders: listing for everyone, changes for administrators; each change is a `channel_folder` event. */
import { badRequest } from '../../api/errors.js';
import { createChannelFolder, getChannelFolders, reorderChannelFolders, updateChannelFolder } from '../../api/operations/folders.js';
import { bind, callerOf, type Binding } from '../context.js';
import { renderHtml } from '../model/render.js';
import { checkFolderName, folderById, folderView, listFolders } from '../model/folders.js';
import { activeUserIds } from '../model/groups.js';

export const bindings: Binding[] = [
  bind(getChannelFolders, (ctx, p) => ({ channel_folders: listFolders(ctx.db, p.include_archived) })),

  bind(createChannelFolder, (ctx, p) => {
    const db = ctx.db;
    checkFolderName(db, p.name);
    const info = db
      .prepare(
        `INSERT INTO channel_folders (name, description, rendered_description, "order", date_created, creator_id)
         VALUES (?, ?, ?, 0, ?, ?)`,
      )
      .run(p.name, p.description, renderHtml(db, p.description), ctx.nowSeconds(), callerOf(ctx).id);
    const id = Number(info.lastInsertRowid);
    // A new folder goes last: its order is its ID, as on a Zulip server.
    db.prepare('UPDATE channel_folders SET "order" = ? WHERE id = ?').run(id, id);
    ctx.emit({ type: 'channel_folder', op: 'add', channel_folder: folderView(folderById(db, id)) }, activeUserIds(db));
    return { channel_folder_id: id };
  }),

  bind(updateChannelFolder, (ctx, p) => {
    const db = ctx.db;
    const folder = folderById(db, p.channel_folder_id);
    const send = (data: Record<string, string | boolean>) =>
      ctx.emit({ type: 'channel_folder', op: 'update', channel_folder_id: folder.id, data }, activeUserIds(db));
    if (p.name !== undefined && p.name !== folder.name) {
      checkFolderName(db, p.name);
      db.prepare('UPDATE channel_folders SET name = ? WHERE id = ?').run(p.name, folder.id);
      send({ name: p.name });
    }
    if (p.description !== undefined && p.description !== folder.description) {
      const rendered = renderHtml(db, p.description);
      db.prepare('UPDATE channel_folders SET description = ?, rendered_description = ? WHERE id = ?').run(p.description, rendered, folder.id);
      send({ description: p.description, rendered_description: rendered });
    }
    if (p.is_archived !== undefined && p.is_archived !== (folder.is_archived === 1)) {
      if (p.is_archived && db.prepare('SELECT 1 FROM streams WHERE folder_id = ? AND is_archived = 0').get(folder.id)) {
        throw badRequest('You need to remove all the channels from this folder to archive it.');
      }
      db.prepare('UPDATE channel_folders SET is_archived = ? WHERE id = ?').run(p.is_archived ? 1 : 0, folder.id);
      send({ is_archived: p.is_archived });
    }
    return {};
  }),

  bind(reorderChannelFolders, (ctx, p) => {
    const db = ctx.db;
    const ids = (db.prepare('SELECT id FROM channel_folders').all() as { id: number }[]).map((r) => r.id);
    if (ids.some((id) => !p.order.includes(id))) throw badRequest('Invalid order mapping.');
    const set = db.prepare('UPDATE channel_folders SET "order" = ? WHERE id = ?');
    p.order.forEach((id, index) => set.run(index, id));
    ctx.emit({ type: 'channel_folder', op: 'reorder', order: p.order }, activeUserIds(db));
    return {};
  }),
];
