/**
 * The plan of `channels sync --map`, as a view on the organization planner: the map's rules become the
 * subscribers wanted in the channels it names, compared with the live subscribers by the planner's own
 * membership comparison (what `org plan` does for a channel's `members`), and the result comes back as
 * the per-user changes `channels sync` reports, each with the rule that wants it.
 *
 * What the map means is unchanged: each channel it names should hold every active user a rule maps to it;
 * with `remove` it owns those channels' membership, so anyone else subscribed is unsubscribed, you too,
 * except bots (integrations subscribe their own) and subscribers the user list does not show. Channels the
 * map does not name are never touched. Deactivated users are never subscribed; a domain rule never maps bots.
 */
import type { Channel } from '../../api/operations/channels.js';
import type { User } from '../../api/types.js';
import type { MemberChange } from '../channels/membership.js';
import { namedUser, personOf, type Named, type UserIndex, userOf } from '../channels/people.js';
import type { Rule } from '../channels/sync-map.js';
import { membershipDiff } from './membership-diff.js';

/** What the plan is computed from, all read before it. */
export interface SyncState {
  /** The map's channels, by the reference the map uses. */
  channels: ReadonlyMap<string, Channel>;
  index: UserIndex;
  /** The members of each group the map names, by the map's reference. */
  groups: ReadonlyMap<string, readonly number[]>;
  /** Each mapped channel's subscribers. */
  current: ReadonlyMap<number, ReadonlySet<number>>;
}

/** A change and the rule that wants it (none for a removal: no rule maps the user there). */
export interface SyncChange {
  change: MemberChange;
  rule: string | null;
}

const domainOf = (u: User): string => (u.delivery_email ?? u.email).split('@').pop()!.toLowerCase();

/** The users a rule maps, and the references of a `users` rule that name no one (deactivated users are left out). */
function usersOf(rule: Rule, state: SyncState): { users: User[]; unknown: Extract<Named, { ok: false }>[] } {
  const { index } = state;
  const s = rule.source;
  const active = (u: User | undefined): u is User => u?.is_active === true;
  if (s.kind === 'domain') return { users: [...index.byId.values()].filter((u) => active(u) && !u.is_bot && domainOf(u) === s.domain), unknown: [] };
  if (s.kind === 'group') return { users: (state.groups.get(s.group) ?? []).map((id) => index.byId.get(id)).filter(active), unknown: [] };
  const unknown = s.users
    .filter((ref) => !userOf(index, ref))
    .map((ref) => namedUser(index, ref))
    .filter((n) => !n.ok);
  return { users: s.users.map((ref) => userOf(index, ref)).filter(active), unknown };
}

export function syncPlan(rules: readonly Rule[], state: SyncState, o: { remove: boolean }): SyncChange[] {
  // Per channel, in map order: the users wanted there and the first rule that wants each.
  const wanted = new Map<number, { channel: Channel; users: Map<number, { user: User; rule: string }> }>();
  const failed: SyncChange[] = [];
  for (const rule of rules) {
    const { users, unknown } = usersOf(rule, state);
    for (const ref of rule.channels) {
      const channel = state.channels.get(ref)!;
      const entry = wanted.get(channel.stream_id) ?? { channel, users: new Map() };
      wanted.set(channel.stream_id, entry);
      for (const user of users) if (!entry.users.has(user.user_id)) entry.users.set(user.user_id, { user, rule: rule.label });
      const c = { stream_id: channel.stream_id, name: channel.name };
      for (const u of unknown) failed.push({ change: { action: 'subscribe', channel: c, user: { id: 0, label: u.label }, error: u.error }, rule: rule.label });
    }
  }
  const changes: SyncChange[] = [];
  for (const { channel, users } of wanted.values()) {
    const c = { stream_id: channel.stream_id, name: channel.name };
    // The subscribers chatctl can judge: users the list shows, bots left out (integrations subscribe their own).
    const judged = [...(state.current.get(channel.stream_id) ?? [])]
      .filter((id) => {
        const user = state.index.byId.get(id);
        return user !== undefined && !user.is_bot;
      })
      .sort((a, b) => a - b);
    const { add, remove } = membershipDiff([...users.keys()], judged, (id) => id);
    for (const id of add) {
      const { user, rule } = users.get(id)!;
      changes.push({ change: { action: 'subscribe', channel: c, user: personOf(user) }, rule });
    }
    // Without `remove` the removals are kept back, as org apply keeps back a section --prune does not name.
    if (!o.remove) continue;
    for (const id of remove) changes.push({ change: { action: 'unsubscribe', channel: c, user: personOf(state.index.byId.get(id)!) }, rule: null });
  }
  return [...changes, ...failed];
}
