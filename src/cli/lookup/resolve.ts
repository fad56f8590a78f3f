/**
 * Naming things the way people do: a user by ID or e-mail address, a channel by ID or name. Many
 * references are resolved with one GET /users (or /streams) rather than a lookup each, so a bulk run of
 * 500 rows makes one extra request, not 500.
 */
import { getStreams } from '../../api/operations/channels.js';
import { getChannelFolders } from '../../api/operations/folders.js';
import { getUserGroups } from '../../api/operations/groups.js';
import { getUsers } from '../../api/operations/users.js';
import type { User } from '../../api/types.js';
import type { ChatClient } from '../../client/client.js';
import { unknownRef, type Refusal } from '../core/refusal.js';

export type Resolved = { ok: true; id: number; user?: User } | { ok: false; error: Refusal };

/** Whether a reference is an ID (digits) rather than a name or an address. */
export const isId = (ref: string): boolean => /^\d+$/.test(ref.trim());

/**
 * Resolves each reference (an ID, or an e-mail: real or API address, any case). With `users`, IDs come
 * with their user object too (when the server lists them), for commands that act on what a user is;
 * with `customFields`, the objects carry their profile_data.
 */
export async function resolveUsers(
  client: ChatClient,
  refs: readonly string[],
  o: { users?: boolean; customFields?: boolean } = {},
): Promise<Map<string, Resolved>> {
  const out = new Map<string, Resolved>();
  const index = o.users || refs.some((r) => !isId(r)) ? await userIndex(client, o) : null;
  for (const ref of refs) {
    const key = ref.trim();
    if (isId(key)) {
      // An ID the list does not hold is left for the server to answer about.
      const user = index?.byId.get(Number(key));
      out.set(ref, { ok: true, id: Number(key), ...(user ? { user } : {}) });
    } else {
      const user = index!.byEmail.get(key.toLowerCase());
      out.set(ref, user ? { ok: true, id: user.user_id, user } : { ok: false, error: unknownRef(`No such user: ${key}`) });
    }
  }
  return out;
}

/** Every user the caller can see (active or not) by ID and by e-mail (either address, lowercased), from one GET /users. */
export async function userIndex(client: ChatClient, o: { customFields?: boolean } = {}): Promise<{ byEmail: Map<string, User>; byId: Map<number, User> }> {
  const { members } = await client.call(getUsers, { include_custom_profile_fields: o.customFields || undefined });
  const byEmail = new Map<string, User>();
  for (const u of members) {
    byEmail.set(u.email.toLowerCase(), u);
    if (u.delivery_email) byEmail.set(u.delivery_email.toLowerCase(), u);
  }
  return { byEmail, byId: new Map(members.map((u) => [u.user_id, u])) };
}

/** A channel or group reference, resolved to its ID or to the reason it cannot be. */
export type ResolvedId = { ok: true; id: number } | { ok: false; error: Refusal };

/**
 * The IDs of `refs`, in order, or the error of the first that did not resolve: for commands that act on
 * all of them together (one request naming several users or channels), failing with the server's kind of
 * error (exit 6).
 */
export function requireResolved(resolved: ReadonlyMap<string, ResolvedId>, refs: readonly string[]): number[] {
  return refs.map((ref) => {
    const r = resolved.get(ref)!;
    if (!r.ok) throw r.error;
    return r.id;
  });
}

/** Users by ID or e-mail, all of them or an error. */
export async function resolveUserIds(client: ChatClient, refs: readonly string[]): Promise<number[]> {
  return requireResolved(await resolveUsers(client, refs), refs);
}

/** One user by ID or e-mail; throws "No such user" in the server's shape (exit 6) when unknown. */
export async function resolveUser(client: ChatClient, ref: string): Promise<number> {
  return (await resolveUserIds(client, [ref]))[0]!;
}

/**
 * Resolves references against named things: digits are taken as IDs as they are (the server checks them),
 * anything else as a name, matched exactly first and then ignoring case (names are unique ignoring case).
 */
export function matchIdsOrNames(
  refs: readonly string[],
  items: readonly { id: number; name: string }[],
  unknown: (name: string) => string,
): Map<string, ResolvedId> {
  const exact = new Map(items.map((i) => [i.name, i.id]));
  const folded = new Map(items.map((i) => [i.name.toLowerCase(), i.id]));
  const out = new Map<string, ResolvedId>();
  for (const ref of refs) {
    const key = ref.trim();
    const id = isId(key) ? Number(key) : (exact.get(key) ?? folded.get(key.toLowerCase()));
    out.set(ref, id === undefined ? { ok: false, error: unknownRef(unknown(key)) } : { ok: true, id });
  }
  return out;
}

/** A channel reference without the `#` people write channels with. */
const bare = (ref: string): string => ref.trim().replace(/^#/, '');

/** The message of a channel name that names nothing, as a Zulip server words it. */
export const unknownChannel = (name: string): string => `Channel '${name}' does not exist`;

/**
 * Channel references matched to `channels`: an ID, a name, or `#name` as people write channels. A name may
 * itself start with `#` (zerver/lib/streams.py check_stream_name refuses only blank, too long and
 * unprintable names), so a reference starting with `#` names the channel called that if there is one, and
 * otherwise the channel named without its `#`: `#x` and `##x` both name a channel called `#x`.
 */
export function matchChannels(refs: readonly string[], channels: readonly { stream_id: number; name: string }[]): Map<string, ResolvedId> {
  const items = channels.map((c) => ({ id: c.stream_id, name: c.name }));
  const hashed = refs.filter((r) => r.trim().startsWith('#'));
  const asWritten = matchIdsOrNames(hashed, items, unknownChannel);
  const withoutHash = matchIdsOrNames(refs.map(bare), items, unknownChannel);
  return new Map(
    refs.map((ref) => {
      const written = asWritten.get(ref);
      return [ref, written?.ok ? written : withoutHash.get(bare(ref))!];
    }),
  );
}

/**
 * Channels by ID or name (`#name` too, as people write channels), with one GET /streams, only when some
 * reference is a name. The channels looked at are the ones the caller can see: public ones and those it
 * is subscribed to.
 */
export async function resolveChannels(client: ChatClient, refs: readonly string[]): Promise<Map<string, ResolvedId>> {
  const streams = refs.some((r) => !isId(bare(r))) ? (await client.call(getStreams, {})).streams : [];
  return matchChannels(refs, streams);
}

export async function resolveChannelIds(client: ChatClient, refs: readonly string[]): Promise<number[]> {
  return requireResolved(await resolveChannels(client, refs), refs);
}

/** One channel by ID, name or #name. */
export async function resolveChannel(client: ChatClient, ref: string): Promise<number> {
  return (await resolveChannelIds(client, [ref]))[0]!;
}

/** User groups by ID or name (system groups have names such as role:administrators), with one GET /user_groups. */
export async function resolveGroups(client: ChatClient, refs: readonly string[]): Promise<Map<string, ResolvedId>> {
  const groups = refs.some((r) => !isId(r)) ? (await client.call(getUserGroups, { include_deactivated_groups: true })).user_groups : [];
  return matchIdsOrNames(refs, groups, (name) => `Invalid user group: ${name}`);
}

/** A channel folder by ID or name (with one GET /channel_folders, archived ones included, for a name). */
export async function resolveFolder(client: ChatClient, ref: string): Promise<number> {
  const folders = isId(ref) ? [] : (await client.call(getChannelFolders, { include_archived: true })).channel_folders;
  return requireResolved(
    matchIdsOrNames([ref], folders, (n) => `Invalid channel folder ID: no folder named "${n}"`),
    [ref],
  )[0]!;
}
