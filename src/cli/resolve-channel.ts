/**
 * References that must all resolve, for commands that act on them together (one request naming several
 * users or channels): the first unknown one fails the command with the server's kind of error (exit 6).
 */
import { ApiError } from '../api/errors.js';
import type { ChatClient } from '../client/client.js';
import { resolveChannels, resolveUsers } from './resolve.js';

type Resolution = { ok: true; id: number } | { ok: false; error: string };

/** The IDs of `refs`, in order, or the error of the first that did not resolve. */
export function requireResolved(resolved: ReadonlyMap<string, Resolution>, refs: readonly string[]): number[] {
  return refs.map((ref) => {
    const r = resolved.get(ref)!;
    if (!r.ok) throw new ApiError(r.error, 'BAD_REQUEST', 400);
    return r.id;
  });
}

/** One channel by ID, name or #name. */
export async function resolveChannel(client: ChatClient, ref: string): Promise<number> {
  return (await resolveChannelIds(client, [ref]))[0]!;
}

export async function resolveChannelIds(client: ChatClient, refs: readonly string[]): Promise<number[]> {
  return requireResolved(await resolveChannels(client, refs), refs);
}

/** Users by ID or e-mail, all of them or an error. */
export async function resolveUserIds(client: ChatClient, refs: readonly string[]): Promise<number[]> {
  return requireResolved(await resolveUsers(client, refs), refs);
}
