/**
 * `attachments upload FILE...`: each file to POST /user_uploads, one at a time (uploads are large; the
 * server takes one file per request), with a row per file: its URL, and the attachment's ID, which
 * `attachments delete` and `attachments clean` take.
 */
import { getAttachments, uploadFile } from '../../api/operations/attachments.js';
import type { UploadedFile } from '../../api/wire.js';
import { endsRun, failure } from '../bulk/runner.js';
import { defineCommand, type OutputOptions } from '../command/command.js';
import type { Context } from '../command/context.js';
import { printDryRun } from '../bulk/dry-run.js';
import { ChatctlError, RowsFailedError } from '../core/errors.js';
import { arg } from '../core/flags.js';
import type { OutputSpec } from '../output/output.js';
import { formatSize } from '../core/units.js';
import { pathIdOf, readUploads, sendUpload, uploadLimit } from '../bulk/uploads.js';

const UPLOAD_FIELDS = ['row', 'target', 'ok', 'status', 'id', 'url', 'error', 'code'] as const;
const UPLOAD_OUTPUT: OutputSpec = { fields: UPLOAD_FIELDS, columns: ['target', 'status', 'id', 'url', 'error'] };

interface UploadRow {
  row: number;
  target: string;
  ok: boolean;
  status: 'uploaded' | 'failed';
  id: number | null;
  url: string | null;
  error?: string | null;
  code?: string | null;
}

/** The IDs GET /attachments gives the uploads just made, by path ID: POST /user_uploads answers only the URL. */
async function attachmentIds(ctx: Context, urls: readonly string[]): Promise<Map<string, number>> {
  if (!urls.length) return new Map();
  const { attachments } = await (await ctx.client()).call(getAttachments, {}, { signal: ctx.signal });
  return new Map(attachments.map((a) => [a.path_id, a.id]));
}

async function upload(opts: { files: string[]; dryRun: boolean } & OutputOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  // The limit is read with POST /register, which a dry run does not send.
  const files = await readUploads(ctx, opts.files, opts.dryRun ? null : await uploadLimit(client));
  if (opts.dryRun) {
    printDryRun(ctx, (await Promise.all(files.map((f) => client.prepare(uploadFile, {}, { files: [f] })))).flat());
    return;
  }
  const done: { file: UploadedFile; target: string; url?: string; error?: unknown }[] = [];
  for (const [i, file] of files.entries()) {
    if (ctx.signal.aborted) break;
    const target = opts.files[i]!;
    try {
      const { url, uri } = await sendUpload(client, file, ctx.signal);
      done.push({ file, target, url: url ?? uri });
    } catch (e) {
      if (ctx.signal.aborted || endsRun(e)) throw e;
      done.push({ file, target, error: e });
    }
  }
  const ids = await attachmentIds(
    ctx,
    done.flatMap((d) => (d.url ? [d.url] : [])),
  );
  const rows = done.map(
    (d, i): UploadRow =>
      d.url
        ? { row: i + 1, target: d.target, ok: true, status: 'uploaded', id: ids.get(pathIdOf(d.url)) ?? null, url: d.url, error: null, code: null }
        : { row: i + 1, target: d.target, ok: false, status: 'failed', id: null, url: null, ...failure(d.error) },
  );
  const out = ctx.output(opts.json ? { ...opts, json: false, format: 'ndjson' } : opts);
  const uploaded = done.filter((d) => d.url);
  const bytes = uploaded.reduce((n, d) => n + d.file.data.length, 0);
  const failed = rows.length - uploaded.length;
  // One file on a terminal table: a sentence says it all (a failure is said once, by its error below).
  const only = rows.length === 1 && out.format === 'table' ? rows[0]! : undefined;
  const summary = `${uploaded.length} uploaded (${formatSize(bytes)}), ${failed} failed`;
  if (!only) {
    await out.list(rows);
    // A run where files failed says its summary once, as its error.
    if (!failed || ctx.signal.aborted) ctx.info(`chatctl: ${summary}`);
  } else if (only.ok) {
    ctx.info(`Uploaded ${only.target} (${formatSize(bytes)}) as attachment ${only.id ?? '(ID unknown)'}: ${only.url}`);
  }
  if (ctx.signal.aborted) throw new ChatctlError('interrupted', 'interrupted');
  // Exit 3 however many files failed; one file is said by its error.
  if (failed) throw new RowsFailedError(summary, files.length === 1 ? done[0]!.error : undefined);
}

export const uploadCommand = defineCommand({
  path: ['attachments', 'upload'],
  summary: 'upload files, to link them in messages',
  description:
    'Uploads each file (POST /user_uploads, one request per file; - reads stdin, uploaded as "stdin") and ' +
    "prints a row per file: its URL (link it in a message as [name](url)) and the attachment's ID (for " +
    "attachments delete). Every file is checked against the server's upload limit (max_file_upload_size_mib) " +
    'before anything is sent: a larger one is a usage error (exit 2). A 413 from the server or a proxy is ' +
    'reported as too large. The others go on when one fails: exit 3 when any failed, the only file given too.',
  examples: [
    'chatctl attachments upload report.pdf',
    'chatctl attachments upload *.png --json',
    'pg_dump mydb | gzip | chatctl attachments upload - --fields url',
  ],
  args: { files: arg.variadic('files to upload (- for stdin)', { required: true }) },
  output: UPLOAD_OUTPUT,
  mutating: true,
  run: upload,
});
