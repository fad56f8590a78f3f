/**
 * Local files as uploads (`attachments upload`, `messages send --file`): read, typed by their extension,
 * checked against the server's upload limit before anything is sent, and sent to POST /user_uploads.
 */
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { ApiError } from '../../api/errors.js';
import { uploadFile, type UploadResult } from '../../api/operations/attachments.js';
import type { UploadedFile } from '../../api/wire.js';
import { BadResponseError, type ChatClient } from '../../client/client.js';
import { readInput } from './input.js';
import type { Context } from '../command/context.js';
import { ChatctlError, usageError } from '../core/errors.js';
import { fetchState } from '../lookup/state.js';
import { formatSize } from '../core/units.js';

/**
 * Content types of the files people attach most, by extension. A Zulip server serves an upload with the
 * type it guesses from the name anyway; this is what a browser would have said.
 */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.mp4': 'video/mp4',
  '.mp3': 'audio/mpeg',
};

export const contentTypeOf = (name: string): string => CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';

/** What stdin is called when it is uploaded (`-F file=@-`). */
export const STDIN_NAME = 'stdin';

/** A local file (or stdin, `-`) as the multipart part `field` carries. */
export async function readUpload(ctx: Pick<Context, 'io' | 'signal'>, path: string, field = 'file'): Promise<UploadedFile> {
  const filename = path === '-' ? STDIN_NAME : basename(path);
  const data = await readInput(ctx, path, 'a file to upload');
  return { field, filename, contentType: contentTypeOf(filename), data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/** The server's upload limit in bytes (`max_file_upload_size_mib` of the realm state), or null when it does not say. */
export async function uploadLimit(client: ChatClient): Promise<number | null> {
  const mib = (await fetchState(client, ['realm'])).max_file_upload_size_mib;
  return typeof mib === 'number' ? mib * 1024 * 1024 : null;
}

const tooLarge = (name: string, bytes: number, limit: number): ChatctlError =>
  usageError(
    `${name} is ${formatSize(bytes)} (${bytes} bytes), more than the server's upload limit of ${limit / 1024 / 1024} MiB; nothing was sent`,
    "the limit is the server's max_file_upload_size_mib: share a link to the file instead, or ask the server's administrator",
  );

/**
 * Reads the files to upload, refusing them all, before anything is read whole or sent, when one is larger
 * than the server takes: a file on disk by its size, stdin once read. `limit` null: the server did not say.
 */
export async function readUploads(ctx: Pick<Context, 'io' | 'signal'>, paths: readonly string[], limit: number | null): Promise<UploadedFile[]> {
  if (paths.filter((p) => p === '-').length > 1) throw usageError('stdin (-) can be uploaded once per run');
  if (limit !== null) {
    for (const path of paths) {
      const size = path === '-' ? undefined : (await stat(path).catch(() => undefined))?.size;
      if (size !== undefined && size > limit) throw tooLarge(path, size, limit);
    }
  }
  const files: UploadedFile[] = [];
  for (const path of paths) {
    const file = await readUpload(ctx, path);
    if (limit !== null && file.data.length > limit) throw tooLarge(path, file.data.length, limit);
    files.push(file);
  }
  return files;
}

/** A 413: the server (or a proxy in front of it) took the body for too large, whatever its limit says. */
const isTooLargeAnswer = (e: unknown): boolean => (e instanceof ApiError || e instanceof BadResponseError) && e.status === 413;

/** Uploads one file; a 413 is said as what it means. */
export async function sendUpload(client: ChatClient, file: UploadedFile, signal?: AbortSignal): Promise<UploadResult> {
  try {
    return await client.call(uploadFile, {}, { files: [file], signal });
  } catch (e) {
    if (!isTooLargeAnswer(e)) throw e;
    throw new ChatctlError(
      `the server refused ${file.filename} (${formatSize(file.data.length)}) as too large (HTTP 413)`,
      'failure',
      'a proxy in front of the server may take smaller bodies than its upload limit (nginx: client_max_body_size)',
    );
  }
}

/** The path ID of an upload's URL (`/user_uploads/2/ab/x/name.txt` is `2/ab/x/name.txt`): how GET /attachments names it. */
export const pathIdOf = (url: string): string =>
  url
    .replace(/^.*?\/user_uploads\//, '')
    .split('/')
    .map(decodeURIComponent)
    .join('/');

/** A link to an upload as Zulip's clients write it into a message: `[name](url)`. */
export const uploadLink = (file: UploadedFile, url: string): string => `[${file.filename.replace(/([[\]\\])/g, '\\$1')}](${url})`;
