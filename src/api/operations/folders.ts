/** Channel folders (feature levels 389–418). */
import { operation, p } from '../operation.js';
import { s } from '../schema.js';

/** Limits of folder names and descriptions (register: max_channel_folder_name_length / _description_length). */
export const MAX_FOLDER_NAME_LENGTH = 60;
export const MAX_FOLDER_DESCRIPTION_LENGTH = 1024;

export interface ChannelFolder {
  id: number;
  name: string;
  description: string;
  rendered_description: string;
  order: number;
  date_created: number;
  creator_id: number | null;
  is_archived: boolean;
}

export const getChannelFolders = operation<{ channel_folders: ChannelFolder[] }>()({
  name: 'get-channel-folders',
  method: 'GET',
  path: '/channel_folders',
  summary: 'Channel folders, in display order',
  access: 'user',
  cacheable: true,
  params: {
    include_archived: p.def(s.bool(), false),
  },
  minFeatureLevel: 389,
});

export const createChannelFolder = operation<{ channel_folder_id: number }>()({
  name: 'create-channel-folder',
  method: 'POST',
  path: '/channel_folders/create',
  summary: 'Create a channel folder (administrators)',
  access: 'admin',
  params: {
    description: p.req(s.string({ maxLength: MAX_FOLDER_DESCRIPTION_LENGTH })),
    name: p.req(s.string({ maxLength: MAX_FOLDER_NAME_LENGTH })),
  },
  minFeatureLevel: 389,
});

export const updateChannelFolder = operation<Record<string, never>>()({
  name: 'update-channel-folder',
  method: 'PATCH',
  path: '/channel_folders/{channel_folder_id}',
  summary: 'Rename, describe, archive or unarchive a channel folder (administrators)',
  access: 'admin',
  params: {
    channel_folder_id: p.path(s.int()),
    description: p.opt(s.string({ maxLength: MAX_FOLDER_DESCRIPTION_LENGTH })),
    is_archived: p.opt(s.bool()),
    name: p.opt(s.string({ maxLength: MAX_FOLDER_NAME_LENGTH })),
  },
  minFeatureLevel: 389,
  idempotent: true,
});

export const reorderChannelFolders = operation<Record<string, never>>()({
  name: 'reorder-channel-folders',
  method: 'PATCH',
  path: '/channel_folders',
  summary: 'Set the display order of all channel folders (administrators)',
  access: 'admin',
  params: {
    order: p.req(s.list(s.int()), { doc: 'JSON list of every folder ID, in the new order' }),
  },
  minFeatureLevel: 414,
  idempotent: true,
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const foldersOps = {
  getChannelFolders,
  createChannelFolder,
  updateChannelFolder,
  reorderChannelFolders,
} as const;
