import { ApiError } from '../../api/errors.js';
import { classify } from '../../api/server-messages.js';
import { getAttachments, removeAttachment, type Attachment } from '../../api/operations/attachments.js';
import { getOwnUser } from '../../api/operations/users.js';
import { idsArg } from '../core/args.js';
import { confirmAndRun, OUTCOME_FIELDS, type Outcome, planCall, type RowCall, rowCalls, runCalls } from '../bulk/runner.js';
import { defineCommand, type OutputOptions } from '../command/command.js';
import { confirmOrExit } from '../bulk/confirm.js';
import type { Context } from '../command/context.js';
import { usageError } from '../core/errors.js';
import { flag, type Values } from '../core/flags.js';
import { tryOrganizationLock } from '../bulk/lock.js';
import type { Output, OutputSpec } from '../output/output.js';
import { formatSize, plural } from '../core/units.js';
import { uploadCommand } from './attachments-upload.js';

/** The wire fields, then what chatctl adds: how many messages link the file, and whose it is. */
const ATTACHMENT_FIELDS = ['id', 'name', 'size', 'create_time', 'references', 'owner', 'path_id', 'messages'] as const;
const ATTACHMENT_OUTPUT: OutputSpec = {
  fields: ATTACHMENT_FIELDS,
  columns: ['id', 'name', 'size', 'create_time', 'references'],
  times: { create_time: 'ms' },
  key: ['id', 'name'],
};

/** Deleting failed because the file is already gone (another run, or the server's own cleanup). */
const isGone = (e: unknown): boolean => e instanceof ApiError && classify(e)?.meaning === 'noSuchAttachment';

/**
 * An attachment as printed. JSON keeps the wire values (size in bytes); a terminal table shows sizes for
 * people. create_time (milliseconds) is shown by the output layer as the declared time field it is.
 */
function attachmentRow(a: Attachment, owner: string | null, out: Output, ctx: Context): Record<string, unknown> {
  const row = { ...a, references: a.messages.length, owner };
  if (out.isJson) return row;
  const human = out.format === 'table' && ctx.io.stdoutIsTTY;
  return { ...row, size: human ? formatSize(a.size) : a.size };
}

const total = (list: readonly Attachment[]): number => list.reduce((n, a) => n + a.size, 0);
const freed = (bytes: number): string => `${formatSize(bytes)}${bytes >= 1000 ? ` (${bytes} bytes)` : ''}`;

/**
 * What a clean run did: files deleted and bytes freed, then those already gone (done all the same) and
 * those that failed, of which not attempted (a stop, Ctrl-C) and unknown (in flight at Ctrl-C).
 */
function cleanSummary(outcomes: readonly Outcome[], fileOf: (o: Outcome) => Attachment, interrupted: boolean): string {
  const deleted = outcomes.filter((o) => o.status === 'deleted').map(fileOf);
  const count = (status: string) => outcomes.filter((o) => o.status === status).length;
  const failed = outcomes.filter((o) => !o.ok).length;
  const why = [count('skipped') ? `${count('skipped')} not attempted` : '', count('unknown') ? `${count('unknown')} unknown` : ''].filter(Boolean);
  const notes = [
    count('unchanged') ? `${count('unchanged')} already gone` : '',
    failed ? `${failed} failed${why.length ? ` (${why.join(', ')})` : ''}` : '',
  ].filter(Boolean);
  return `${interrupted ? 'interrupted: ' : ''}deleted ${plural(deleted.length, 'attachment')}, freed ${freed(total(deleted))}${notes.length ? `; ${notes.join(', ')}` : ''}`;
}

const CLEAN_FLAGS = {
  olderThan: flag.duration('--older-than <duration>', 'only files uploaded longer ago than this (30d, 12h, 2w)'),
  unreferenced: flag.bool('--unreferenced', 'only files no message links'),
  largerThan: flag.size('--larger-than <size>', 'only files larger than this (10MB, 512KiB)'),
  owner: flag.string('--owner <user>', 'whose files (ID or e-mail); the API allows only your own'),
};

type CleanOptions = Values<typeof CLEAN_FLAGS> & OutputOptions & { readonly dryRun: boolean; readonly yes: boolean };

interface CleanFilters {
  /** Only files uploaded before this time (ms since the epoch). */
  before?: number;
  /** Only files larger than this many bytes. */
  largerThan?: number;
  unreferenced: boolean;
}

/** At least one filter, so a mistyped command never deletes every upload. */
function checkFilters(o: Values<typeof CLEAN_FLAGS>): void {
  if (o.olderThan === undefined && o.largerThan === undefined && !o.unreferenced) {
    throw usageError('say which files to delete: pass --older-than, --unreferenced or --larger-than', 'attachments clean never deletes every upload at once');
  }
}

const cleanFilters = (o: Values<typeof CLEAN_FLAGS>, now: number): CleanFilters => ({
  before: o.olderThan !== undefined ? now - o.olderThan * 1000 : undefined,
  largerThan: o.largerThan,
  unreferenced: o.unreferenced,
});

const matches =
  (f: CleanFilters) =>
  (a: Attachment): boolean =>
    (f.before === undefined || a.create_time < f.before) &&
    (f.largerThan === undefined || a.size > f.largerThan) &&
    (!f.unreferenced || a.messages.length === 0);

/** `--owner`: the API lists only the caller's uploads, so the only owner there can be is the caller. */
async function checkOwner(ctx: Context, ref: string): Promise<void> {
  const me = await (await ctx.client()).call(getOwnUser, {});
  const key = ref.trim().toLowerCase();
  const mine = [String(me.user_id), me.email.toLowerCase(), (me.delivery_email ?? '').toLowerCase()];
  if (!mine.includes(key)) {
    throw usageError(
      `--owner ${ref} is not you (${me.email}): the server lists and deletes only the caller's own uploads`,
      "to clean another user's files, run chatctl as that user (--profile, or ZULIP_EMAIL and ZULIP_API_KEY)",
    );
  }
}

async function clean(opts: CleanOptions, ctx: Context): Promise<void> {
  const filters = cleanFilters(opts, ctx.nowMs());
  const { dryRun, yes, owner } = opts;
  // Refused before anything is read, so a cron entry without --yes fails on its first run, not the first
  // run that finds something to delete.
  if (!dryRun && !yes && !ctx.prompter.interactive) {
    throw usageError('attachments clean deletes files: not running interactively; pass --yes', 'see what it would delete with --dry-run');
  }
  const { quiet } = ctx.globals;
  const out = ctx.output(opts);
  const client = await ctx.client();
  if (owner !== undefined) await checkOwner(ctx, owner);

  const lock = dryRun ? null : tryOrganizationLock(ctx, 'attachments-clean');
  if (lock && 'heldBy' in lock) {
    ctx.info(`chatctl: another attachments clean${lock.heldBy > 0 ? ` (pid ${lock.heldBy})` : ''} is running on this organization; leaving it to finish`);
    return;
  }
  try {
    const { attachments } = await client.call(getAttachments, {}, { signal: ctx.signal });
    const doomed = attachments.filter(matches(filters));
    const ownerName = client.credentials?.email ?? null;
    const print = async (list: readonly Attachment[]) => {
      if (!quiet) await out.list(list.map((a) => attachmentRow(a, ownerName, out, ctx)));
    };
    if (doomed.length === 0) {
      await print([]);
      ctx.info('chatctl: no attachments match; nothing to delete');
      return;
    }
    if (dryRun) {
      await print(doomed);
      ctx.info(`chatctl: dry run: would delete ${plural(doomed.length, 'attachment')}, freeing ${freed(total(doomed))}`);
      return;
    }
    if (!yes) await confirmOrExit(ctx, false, `Delete ${plural(doomed.length, 'attachment')} (${formatSize(total(doomed))})?`);

    const calls: RowCall[] = doomed.map((a, i) => ({
      row: i + 1,
      target: String(a.id),
      status: 'deleted',
      call: planCall(removeAttachment, { attachment_id: a.id }, { id: a.id }),
      // Deleted by another run, or by the server's own cleanup, since the list was read: done all the same.
      inPlaceAfter: async (e) => (isGone(e) ? { id: a.id } : undefined),
    }));
    const fileOf = (o: Outcome): Attachment => doomed[o.row - 1]!;
    // Each deletion is printed once the server has answered for it (its row is gone by then): a run killed
    // half-way has printed only files really deleted.
    await runCalls(ctx, opts, client, calls, 'deleted', {
      report: {
        output: quiet ? undefined : ATTACHMENT_OUTPUT,
        row: (o) => (o.status === 'deleted' ? attachmentRow(fileOf(o), ownerName, out, ctx) : undefined),
        failed: (o) => `could not delete attachment ${o.target} (${fileOf(o).name}): ${o.error ?? 'failed'}`,
        summary: (outcomes, interrupted) => cleanSummary(outcomes, fileOf, interrupted),
      },
    });
  } finally {
    lock?.release();
  }
}

export const commands = [
  defineCommand({
    path: ['attachments', 'list'],
    aliases: ['ls'],
    summary: 'list your uploaded files',
    description:
      "Lists the files you uploaded (GET /attachments lists only the caller's own uploads): ID, name, size, " +
      'upload time and how many messages link each (references). --json prints the wire objects (create_time in ' +
      'milliseconds, the linking messages in messages) with references and owner added; tables show the time in ' +
      'ISO 8601, and sizes for people on a terminal.',
    examples: [
      'chatctl attachments list',
      "chatctl attachments list --json | jq '.[] | select(.references == 0) | .id'",
      'chatctl attachments list --fields id,name,size --format csv',
    ],
    output: ATTACHMENT_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const { attachments } = await client.call(getAttachments, {}, { signal: ctx.signal });
      await out.list(attachments.map((a) => attachmentRow(a, client.credentials?.email ?? null, out, ctx)));
    },
  }),

  defineCommand({
    path: ['attachments', 'delete'],
    aliases: ['rm'],
    summary: 'delete uploaded files by ID',
    description:
      'Deletes your uploaded files (DELETE /attachments/{id}); IDs come from attachments list. Messages that ' +
      "linked a file keep their text, but the link stops working. Each ID's outcome is printed (one JSON line " +
      'each with --json); exit 3 when any failed, the only one given too. Asks for confirmation on a ' +
      'terminal; elsewhere --yes is required.',
    examples: ['chatctl attachments delete 12', 'chatctl attachments delete 12 13 14 --yes --json', 'chatctl attachments delete 12 --dry-run'],
    args: { ids: idsArg('attachment IDs (from attachments list)', 'attachment') },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const { ids } = opts;
      const calls = rowCalls(ids, 'deleted', (id) => planCall(removeAttachment, { attachment_id: id }, { id }), 'attachment');
      await confirmAndRun(ctx, opts, calls, 'deleted', `Delete ${ids.length === 1 ? `attachment ${ids[0]}` : `${ids.length} attachments`}?`);
    },
  }),

  defineCommand({
    path: ['attachments', 'clean'],
    summary: 'delete your old, unlinked or large uploads (for cron)',
    description:
      'Deletes the uploads matching every filter given: --older-than (uploaded longer ago than a duration such as ' +
      '30d or 12h), --unreferenced (linked from no message), --larger-than (a size such as 10MB or 512KiB). At ' +
      'least one filter is required, so a mistyped command never deletes everything. The server lists only your ' +
      'own uploads, so --owner can only name you.\n\n' +
      'Prints each file as the server deletes it (with --dry-run, the files it would delete) as rows on stdout, ' +
      'so a run killed half-way has printed only what it really deleted, and then a summary (count, bytes ' +
      'freed) on stderr. The server removes a file only after its record, so a kill never leaves a record without ' +
      'its file (a file left without its record, at most one per request in flight, is swept by serve after an hour). ' +
      '-q/--quiet prints ' +
      'nothing but errors. Asks on a terminal; elsewhere --yes is required ' +
      '(exit 2 without it). Safe to run twice at once: a lock (in the data dir of an embedded organization, or in ' +
      'the config dir per server) lets one run work; a second run says so on stderr and exits 0. Exit 3 when some ' +
      'files could not be deleted; files already gone count as done.',
    examples: [
      'chatctl attachments clean --older-than 30d --dry-run',
      'chatctl attachments clean --older-than 90d --unreferenced --yes --quiet',
      'chatctl attachments clean --larger-than 10MB --older-than 7d --yes --json',
      'chatctl attachments clean --older-than 30d --yes -q   # nightly, from cron',
    ],
    options: CLEAN_FLAGS,
    output: ATTACHMENT_OUTPUT,
    mutating: true,
    dryRunHelp: 'print the attachments that would be deleted, delete nothing',
    destructive: true,
    check: checkFilters,
    run: clean,
  }),

  uploadCommand,
];
