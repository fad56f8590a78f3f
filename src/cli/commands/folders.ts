import { createChannelFolder, getChannelFolders, updateChannelFolder } from '../../api/operations/folders.js';
import { defineLegacyCommand, opt, type CommandSpec } from '../legacy-command.js';
import { printDryRun } from '../dry-run.js';
import { usageError } from '../errors.js';
import type { OutputFlags, OutputSpec } from '../output/output.js';
import { isId, matchIdsOrNames, requireResolved } from '../resolve.js';

const FOLDER_FIELDS = ['id', 'name', 'description', 'rendered_description', 'order', 'is_archived', 'date_created', 'creator_id'] as const;
const FOLDER_COLUMNS = ['id', 'name', 'description', 'is_archived'] as const;
const FOLDER_OUTPUT: OutputSpec = { fields: FOLDER_FIELDS, columns: FOLDER_COLUMNS, times: { date_created: 's' } };


export const commands: CommandSpec[] = [
  defineLegacyCommand({
    path: ['folders', 'list'],
    aliases: ['ls'],
    summary: 'list channel folders, in display order',
    description: 'Lists the channel folders of the organization (GET /channel_folders); archived ones only with --archived.',
    examples: ['chatctl folders list', 'chatctl folders list --archived --json'],
    options: [{ flags: '--archived', description: 'include archived folders' }],
    output: FOLDER_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts as OutputFlags);
      const client = await ctx.client();
      const { channel_folders } = await client.call(getChannelFolders, { include_archived: opt.bool(opts, 'archived') || undefined });
      await out.list(channel_folders);
    },
  }),

  defineLegacyCommand({
    path: ['folders', 'create'],
    summary: 'create a channel folder (administrators)',
    description: 'Creates a channel folder (POST /channel_folders/create) at the end of the order, and prints its ID.',
    examples: ['chatctl folders create Engineering --description "Channels of the engineering teams"', 'chatctl folders create Social --json'],
    args: [{ name: 'name', description: 'the folder\'s name', required: true }],
    options: [{ flags: '--description <text>', description: 'what the folder holds (Markdown; default empty)' }],
    output: { fields: ['id', 'name'] },
    mutating: true,
    async run(opts, ctx) {
      const out = ctx.output(opts as OutputFlags);
      const name = opt.str(opts, 'name')!;
      if (name.trim() === '') throw usageError('a folder needs a name');
      const client = await ctx.client();
      const params = { name, description: opt.str(opts, 'description') ?? '' };
      if (opt.bool(opts, 'dryRun')) {
        printDryRun(ctx, await client.prepare(createChannelFolder, params));
        return;
      }
      const { channel_folder_id } = await client.call(createChannelFolder, params, { signal: ctx.signal });
      await out.item({ id: channel_folder_id, name });
    },
  }),

  defineLegacyCommand({
    path: ['folders', 'update'],
    summary: 'rename, describe, archive or unarchive a channel folder (administrators)',
    description:
      'Changes a channel folder (PATCH /channel_folders/{id}), named by ID or name. A folder can be archived only ' +
      'once no unarchived channel is in it.',
    examples: [
      'chatctl folders update 3 --name "Eng" --description "Engineering channels"',
      'chatctl folders update Social --archive',
      'chatctl folders update 3 --unarchive --dry-run',
    ],
    args: [{ name: 'folder', description: 'folder ID or name', required: true }],
    options: [
      { flags: '--name <name>', description: 'new name' },
      { flags: '--description <text>', description: 'new description (Markdown)' },
      { flags: '--archive', description: 'archive the folder' },
      { flags: '--unarchive', description: 'unarchive the folder' },
    ],
    mutating: true,
    async run(opts, ctx) {
      const archive = opt.bool(opts, 'archive');
      const unarchive = opt.bool(opts, 'unarchive');
      if (archive && unarchive) throw usageError('--archive and --unarchive exclude each other');
      const name = opt.str(opts, 'name');
      const description = opt.str(opts, 'description');
      if (name === undefined && description === undefined && !archive && !unarchive) {
        throw usageError('nothing to change: pass --name, --description, --archive or --unarchive');
      }
      if (name !== undefined && name.trim() === '') throw usageError('a folder needs a name');
      const client = await ctx.client();
      const ref = opt.str(opts, 'folder')!;
      const folders = isId(ref) ? [] : (await client.call(getChannelFolders, { include_archived: true })).channel_folders;
      const [id] = requireResolved(matchIdsOrNames([ref], folders, (n) => `Invalid channel folder ID: no folder named "${n}"`), [ref]);
      const params = { channel_folder_id: id!, name, description, is_archived: archive ? true : unarchive ? false : undefined };
      if (opt.bool(opts, 'dryRun')) {
        printDryRun(ctx, await client.prepare(updateChannelFolder, params));
        return;
      }
      await client.call(updateChannelFolder, params, { signal: ctx.signal });
      ctx.info(`chatctl: folder ${ref} updated`);
    },
  }),
];
