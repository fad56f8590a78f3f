import { createChannelFolder, getChannelFolders, updateChannelFolder } from '../../api/operations/folders.js';
import { converted } from '../core/args.js';
import { defineCommand } from '../command/command.js';
import { printDryRun } from '../bulk/dry-run.js';
import { usageError } from '../core/errors.js';
import { arg, flag } from '../core/flags.js';
import type { OutputSpec } from '../output/output.js';
import { resolveFolder } from '../lookup/resolve.js';

const FOLDER_FIELDS = ['id', 'name', 'description', 'rendered_description', 'order', 'is_archived', 'date_created', 'creator_id'] as const;
const FOLDER_COLUMNS = ['id', 'name', 'description', 'is_archived'] as const;
const FOLDER_OUTPUT: OutputSpec = { fields: FOLDER_FIELDS, columns: FOLDER_COLUMNS, times: { date_created: 's' }, key: ['id', 'name'] };

/** A folder's name, as given; blank is no name. */
function folderName(name: string): string {
  if (name.trim() === '') throw usageError('a folder needs a name');
  return name;
}

export const commands = [
  defineCommand({
    path: ['folders', 'list'],
    aliases: ['ls'],
    summary: 'list channel folders, in display order',
    description: 'Lists the channel folders of the organization (GET /channel_folders); archived ones only with --archived.',
    examples: ['chatctl folders list', 'chatctl folders list --archived --json'],
    options: { archived: flag.bool('--archived', 'include archived folders') },
    output: FOLDER_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const { channel_folders } = await client.call(getChannelFolders, { include_archived: opts.archived || undefined });
      await out.list(channel_folders);
    },
  }),

  defineCommand({
    path: ['folders', 'create'],
    summary: 'create a channel folder (administrators)',
    description: 'Creates a channel folder (POST /channel_folders/create) at the end of the order, and prints its ID.',
    examples: ['chatctl folders create Engineering --description "Channels of the engineering teams"', 'chatctl folders create Social --json'],
    args: { name: converted(arg.required("the folder's name"), folderName) },
    options: { description: flag.string('--description <text>', 'what the folder holds (Markdown; default empty)') },
    output: { fields: ['id', 'name'] },
    mutating: true,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const { name } = opts;
      const client = await ctx.client();
      const params = { name, description: opts.description ?? '' };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(createChannelFolder, params));
        return;
      }
      const { channel_folder_id } = await client.call(createChannelFolder, params, { signal: ctx.signal });
      await out.item({ id: channel_folder_id, name });
    },
  }),

  defineCommand({
    path: ['folders', 'update'],
    summary: 'rename, describe, archive or unarchive a channel folder (administrators)',
    description:
      'Changes a channel folder (PATCH /channel_folders/{id}), named by ID or name. A folder can be archived only ' + 'once no unarchived channel is in it.',
    examples: [
      'chatctl folders update 3 --name "Eng" --description "Engineering channels"',
      'chatctl folders update Social --archive',
      'chatctl folders update 3 --unarchive --dry-run',
    ],
    args: { folder: arg.required('folder ID or name') },
    options: {
      name: flag.custom('--name <name>', 'new name', folderName),
      description: flag.string('--description <text>', 'new description (Markdown)'),
      archive: flag.bool('--archive', 'archive the folder'),
      unarchive: flag.bool('--unarchive', 'unarchive the folder'),
    },
    mutating: true,
    check({ name, description, archive, unarchive }) {
      if (archive && unarchive) throw usageError('--archive and --unarchive exclude each other');
      if (name === undefined && description === undefined && !archive && !unarchive) {
        throw usageError('nothing to change: pass --name, --description, --archive or --unarchive');
      }
    },
    async run(opts, ctx) {
      const { name, description, archive, unarchive, folder: ref } = opts;
      const client = await ctx.client();
      const params = { channel_folder_id: await resolveFolder(client, ref), name, description, is_archived: archive ? true : unarchive ? false : undefined };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(updateChannelFolder, params));
        return;
      }
      await client.call(updateChannelFolder, params, { signal: ctx.signal });
      ctx.info(`chatctl: folder ${ref} updated`);
    },
  }),
];
