/**
 * Naming things the way people do: a user by ID or e-mail address. Many references are resolved with one
 * GET /users rather than a lookup each, so a bulk run of 500 rows makes one extra request, not 500.
 */
import { getUsers } from '../api/operations/users.js';
import type { User } from '../api/types.js';
import type { ChatClient } from '../client/client.js';

export type Resolved = { ok: true; id: number; user?: User } | { ok: false; error: string };

const isId = (ref: string): boolean => /^\d+$/.test(ref.trim());

/** Resolves each reference (an ID, or an e-mail: real or API address, any case). */
export async function resolveUsers(client: ChatClient, refs: readonly string[]): Promise<Map<string, Resolved>> {
  const out = new Map<string, Resolved>();
  const byEmail = refs.some((r) => !isId(r)) ? await emailIndex(client) : null;
  for (const ref of refs) {
    const key = ref.trim();
    if (isId(key)) out.set(ref, { ok: true, id: Number(key) });
    else {
      const user = byEmail!.get(key.toLowerCase());
      out.set(ref, user ? { ok: true, id: user.user_id, user } : { ok: false, error: `No such user: ${key}` });
    }
  }
  return out;
}

async function emailIndex(client: ChatClient): Promise<Map<string, User>> {
  const { members } = await client.call(getUsers, {});
  const index = new Map<string, User>();
  for (const u of members) {
    index.set(u.email.toLowerCase(), u);
    if (u.delivery_email) index.set(u.delivery_email.toLowerCase(), u);
  }
  return index;
}

/** One reference; throws the server's own "No such user" error when unknown. */
export async function resolveUser(client: ChatClient, ref: string): Promise<number> {
  const r = (await resolveUsers(client, [ref])).get(ref)!;
  if (!r.ok) {
    const { ApiError } = await import('../api/errors.js');
    throw new ApiError(r.error, 'BAD_REQUEST', 400);
  }
  return r.id;
}
