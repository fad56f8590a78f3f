/** The request `chatctl api` sends: method and path, the parameters of --input, -f and -F, files, headers. */
import { basicAuthHeader, type UploadedFile, type WireRequest } from '../../api/wire.js';
import type { Credentials } from '../../client/client.js';
import { readInput } from '../bulk/input.js';
import type { Context } from '../command/context.js';
import { readUpload } from '../bulk/uploads.js';
import { type Field, parseInputBody, wireText } from './fields.js';

export interface ApiCall {
  method: string;
  /** As typed: with or without /api/v1, maybe with a query string. */
  path: string;
  fields: readonly Field[];
  /** --input: a file, or - for stdin. */
  input?: string;
  headers: readonly [string, string][];
}

/** The path below /api/v1 and the parameters of its query string. */
export function splitPath(path: string): { path: string; query: [string, string][] } {
  const [pathPart = '', queryPart] = path.replace(/^\/?(api\/v1)?/, '/').split('?', 2);
  return { path: pathPart.replace(/^\/+/, '/'), query: [...new URLSearchParams(queryPart ?? '')] };
}

/**
 * The wire request: --input's parameters, then -f and -F (a key given on the command line replaces the
 * body's), in the query string for GET and the form body otherwise; files make the body multipart. The
 * profile's credentials go in Authorization unless a -H gives one.
 */
export async function buildRequest(ctx: Pick<Context, 'io' | 'signal'>, call: ApiCall, credentials: Credentials | null): Promise<WireRequest> {
  const { path, query } = splitPath(call.path);
  const input = call.input === undefined ? [] : parseInputBody((await readInput(ctx, call.input, 'a request body')).toString('utf8'), call.input);
  const given = new Set(call.fields.map((f) => f.key));
  const pairs: [string, string][] = [];
  const files: UploadedFile[] = [];
  for (const f of [...input.filter((f) => !given.has(f.key)), ...call.fields]) {
    if (f.value.kind === 'file') files.push(await readUpload(ctx, f.value.path, f.key));
    else pairs.push([f.key, wireText(f.value.value)]);
  }
  const inQuery = call.method === 'GET';
  return {
    method: call.method,
    path,
    query: [...query, ...(inQuery ? pairs : [])],
    body: inQuery ? [] : pairs,
    ...(files.length ? { files } : {}),
    headers: {
      ...(credentials ? { authorization: basicAuthHeader(credentials.email, credentials.apiKey) } : {}),
      ...Object.fromEntries(call.headers),
    },
  };
}
