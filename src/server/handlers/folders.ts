/** Channel folders: listing for everyone, changes for administrators (model/folders.ts). */
import { createChannelFolder, getChannelFolders, reorderChannelFolders, updateChannelFolder } from '../../api/operations/folders.js';
import { bind, callerOf, type Binding } from '../context.js';
import { createFolder, folderById, listFolders, reorderFolders, updateFolder } from '../model/folders.js';

export const bindings: Binding[] = [
  bind(getChannelFolders, (ctx, p) => ({ channel_folders: listFolders(ctx.db, p.include_archived) })),

  bind(createChannelFolder, (ctx, p) => ({
    channel_folder_id: createFolder(ctx.db, ctx, { name: p.name, description: p.description, creatorId: callerOf(ctx).id }, ctx.nowSeconds()),
  })),

  bind(updateChannelFolder, (ctx, p) => {
    updateFolder(ctx.db, ctx, folderById(ctx.db, p.channel_folder_id), p);
    return {};
  }),

  bind(reorderChannelFolders, (ctx, p) => {
    reorderFolders(ctx.db, ctx, p.order);
    return {};
  }),
];
