/**
 * `chatctl api --paginate`: GET /messages walked by anchor, as `flags --all` walks its narrow (lookup/anchor-walk.ts):
 * each batch starts just after the last message of the one before, until the server says it reached the
 * newest. The messages come out one by one, whatever the batches.
 */
import { getMessages } from '../../api/operations/messages.js';
import type { WireRequest } from '../../api/wire.js';
import { type ChatClient, unwrap } from '../../client/client.js';
import { walkForward } from '../lookup/anchor-walk.js';
import { usageError } from '../core/errors.js';

/** Messages per request when --paginate is not given num_after (Zulip's clients fetch 1000 at most). */
export const DEFAULT_BATCH = 1000;

/** Parameters the walk sets itself on each request. */
const WALK_PARAMS = new Set(['anchor', 'include_anchor']);

/** Refuses, before anything is sent, a request --paginate cannot walk. */
export function checkPaginate(req: WireRequest): void {
  if (req.method !== getMessages.method || req.path !== getMessages.path) {
    throw usageError(`--paginate walks ${getMessages.method} ${getMessages.path} by anchor, not ${req.method} ${req.path}`);
  }
  const param = (name: string) => req.query.find(([k]) => k === name)?.[1];
  if (param('message_ids') !== undefined) throw usageError('--paginate walks a range by anchor: leave out message_ids');
  if (Number(param('num_before') ?? '0') !== 0) throw usageError('--paginate walks forward from the anchor: num_before must be 0');
  if (param('num_after') === '0') throw usageError('--paginate needs num_after > 0 (the batch size)');
}

const isMessage = (m: unknown): m is { id: number } => typeof m === 'object' && m !== null && 'id' in m && typeof m.id === 'number';

/** Every message from the request's anchor (default oldest) to the newest of its narrow. */
export async function* messagePages(client: ChatClient, req: WireRequest, signal: AbortSignal): AsyncGenerator<object[]> {
  const rest = req.query.filter(([k]) => !WALK_PARAMS.has(k));
  if (!rest.some(([k]) => k === 'num_after')) rest.push(['num_after', String(DEFAULT_BATCH)]);
  const anchor = req.query.find(([k]) => k === 'anchor')?.[1] ?? 'oldest';
  const send = async (at: string, includeAnchor: boolean) => {
    const query: [string, string][] = [...rest, ['anchor', at], ...(includeAnchor ? [] : [['include_anchor', 'false'] as [string, string]])];
    const body = unwrap(await client.send({ ...req, query }, signal));
    return { messages: Array.isArray(body.messages) ? body.messages.filter(isMessage) : [], foundNewest: body.found_newest !== false };
  };
  // A server that does not say it reached the newest is taken at its word that it did: no endless walk.
  for await (const page of walkForward(anchor, send, (p) => ({ lastId: p.messages.at(-1)?.id ?? null, foundNewest: p.foundNewest }))) {
    yield page.messages;
  }
}
