/**
 * The users a membership command names: by ID or e-mail (`--user`), every member of a user group through
 * its subgroups (`--group`, as GET /user_groups/{id}/members counts them), or a file's `user` column.
 */
import { getUserGroupMembers } from '../../api/operations/groups.js';
import type { User } from '../../api/types.js';
import type { ChatClient } from '../../client/client.js';
import { Refusal, unknownRef } from '../core/refusal.js';
import { isId, requireResolved, resolveGroups, type userIndex } from '../lookup/resolve.js';
import type { Person } from './membership.js';

export type UserIndex = Awaited<ReturnType<typeof userIndex>>;

/** A named user, found, or the reason a row for them cannot be sent. */
export type Named = { ok: true; person: Person; user: User } | { ok: false; label: string; error: Refusal };

/** How rows show a user: the address people know them by. */
export const personOf = (u: User): Person => ({
  id: u.user_id,
  label: u.delivery_email ?? u.email,
  emails: [u.email, ...(u.delivery_email && u.delivery_email !== u.email ? [u.delivery_email] : [])],
});

/** The user a reference (an ID, or either address in any case) names, active or not. */
export const userOf = (index: UserIndex, ref: string): User | undefined => {
  const key = ref.trim();
  return isId(key) ? index.byId.get(Number(key)) : index.byEmail.get(key.toLowerCase());
};

/**
 * One user by reference. A server refuses a whole request for one unknown or deactivated user among its
 * principals, so such a user is refused here, failing that row alone.
 */
export function namedUser(index: UserIndex, ref: string): Named {
  const user = userOf(index, ref);
  if (!user) return { ok: false, label: ref.trim(), error: unknownRef(`No such user: ${ref.trim()}`) };
  if (!user.is_active) return { ok: false, label: personOf(user).label, error: new Refusal('User is deactivated') };
  return { ok: true, person: personOf(user), user };
}

/** Each group's members through subgroups (one request a group), by group reference; unknown groups end the run (exit 6). */
export async function groupMembers(client: ChatClient, refs: readonly string[]): Promise<Map<string, number[]>> {
  const ids = requireResolved(await resolveGroups(client, refs), refs);
  const out = new Map<string, number[]>();
  for (const [i, ref] of refs.entries()) out.set(ref, (await client.call(getUserGroupMembers, { user_group_id: ids[i]! })).members);
  return out;
}

/**
 * The users of --user and --group, in order, each once. Deactivated members of a group are left out (the
 * group still lists them; a channel cannot take them), and so are members the user list does not show.
 */
export async function namedPeople(client: ChatClient, index: UserIndex, o: { users: readonly string[]; groups: readonly string[] }): Promise<Named[]> {
  const out: Named[] = o.users.map((ref) => namedUser(index, ref));
  const members = o.groups.length ? await groupMembers(client, o.groups) : new Map<string, number[]>();
  for (const ids of members.values()) {
    for (const id of ids) {
      const user = index.byId.get(id);
      if (user?.is_active) out.push({ ok: true, person: personOf(user), user });
    }
  }
  const seen = new Set<number>();
  return out.filter((n) => !n.ok || (!seen.has(n.person.id) && seen.add(n.person.id)));
}
