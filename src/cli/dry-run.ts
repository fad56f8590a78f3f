/** `--dry-run`: the requests a command would send, printed as JSON lines on stdout, secrets masked. */
import type { WireRequest } from '../api/wire.js';
import type { Context } from './context.js';

/** Parameters whose values are never shown. */
const SECRET_PARAMS = new Set(['password', 'api_key', 'key', 'token', 'new_password', 'old_password']);

export function describeRequest(req: WireRequest): Record<string, unknown> {
  const mask = (pairs: [string, string][]) => Object.fromEntries(pairs.map(([k, v]) => [k, SECRET_PARAMS.has(k) ? '********' : v]));
  const out: Record<string, unknown> = { method: req.method, path: `/api/v1${req.path}` };
  if (req.query.length) out.query = mask(req.query);
  if (req.body.length) out.body = mask(req.body);
  if (req.files?.length) out.files = req.files.map((f) => ({ field: f.field, filename: f.filename, bytes: f.data.length }));
  return out;
}

export function printDryRun(ctx: Context, requests: readonly WireRequest[]): void {
  for (const req of requests) ctx.io.stdout.write(`${JSON.stringify(describeRequest(req))}\n`);
  ctx.info(`chatctl: dry run: ${requests.length} request${requests.length === 1 ? '' : 's'} not sent`);
}
