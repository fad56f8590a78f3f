/** Channel folders: listing for everyone, changes for administrators (model/folders.ts). */
import { createChannelFolder, getChannelFolders, reorderChannelFolders, updateChannelFolder } from '../../api/operations/folders.js';
import { bind, callerOf, type Handlers } from '../context.js';
import { createFolder, folderById, listFolders, reorderFolders, updateFolder } from '../model/folders.js';

export const handlers: Handlers<'folders'> = {
  getChannelFolders: bind(getChannelFolders, (ctx, p) => ({ channel_folders: listFolders(ctx.db, p.include_archived) })),

  createChannelFolder: bind(createChannelFolder, (ctx, p) => ({
    channel_folder_id: createFolder(ctx.db, ctx, { name: p.name, description: p.description, creatorId: callerOf(ctx).id }, ctx.nowSeconds()),
  })),

  updateChannelFolder: bind(updateChannelFolder, (ctx, p) => {
    updateFolder(ctx.db, ctx, folderById(ctx.db, p.channel_folder_id), p);
    return {};
  }),

  reorderChannelFolders: bind(reorderChannelFolders, (ctx, p) => {
    reorderFolders(ctx.db, ctx, p.order);
    return {};
  }),
};
