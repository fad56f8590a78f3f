/** `--dry-run`: the requests a command would send, printed as JSON lines on stdout, secrets masked. */
import type { WireRequest } from '../../api/wire.js';
import { isSecretParam } from '../../client/redact.js';
import type { Context } from '../command/context.js';

/** A request a dry run prints, with what it acts on for a person (`user 62 (alice@example.com, Alice)`) when known. */
export type PlannedRequest = WireRequest & { target?: string };

export function describeRequest(req: PlannedRequest): Record<string, unknown> {
  // The same rule as --verbose, so no parameter is a secret in one and shown in the other.
  const mask = (pairs: [string, string][]) => Object.fromEntries(pairs.map(([k, v]) => [k, isSecretParam(k) ? '********' : v]));
  const out: Record<string, unknown> = { method: req.method, path: `/api/v1${req.path}` };
  if (req.query.length) out.query = mask(req.query);
  if (req.body.length) out.body = mask(req.body);
  if (req.files?.length) out.files = req.files.map((f) => ({ field: f.field, filename: f.filename, bytes: f.data.length }));
  if (req.target !== undefined) out.target = req.target;
  return out;
}

export function printDryRun(ctx: Pick<Context, 'io' | 'info'>, requests: readonly PlannedRequest[]): void {
  for (const req of requests) ctx.io.stdout.write(`${JSON.stringify(describeRequest(req))}\n`);
  ctx.info(`chatctl: dry run: ${requests.length} request${requests.length === 1 ? '' : 's'} not sent`);
}
