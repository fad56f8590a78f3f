/**
 * The plan of `channels sync`: what the map wants against what the server has. Each channel the map names
 * should hold every active user a rule maps to it; what it lacks is subscribed. With `remove`, the map owns
 * those channels' membership: anyone else subscribed is unsubscribed, you too, except bots (integrations
 * subscribe their own). Channels the map does not name are never touched, with or without `remove`.
 * Deactivated users are never subscribed (a channel cannot take them); a domain rule never maps bots.
 */
import type { Channel } from '../../api/operations/channels.js';
import type { User } from '../../api/types.js';
import type { MemberChange } from './membership.js';
import { namedUser, personOf, userOf, type Named, type UserIndex } from './people.js';
import type { Rule } from './sync-map.js';

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
    const now = state.current.get(channel.stream_id) ?? new Set<number>();
    for (const { user, rule } of users.values())
      if (!now.has(user.user_id)) changes.push({ change: { action: 'subscribe', channel: c, user: personOf(user) }, rule });
    if (!o.remove) continue;
    const extra = [...now].filter((id) => !users.has(id)).sort((a, b) => a - b);
    for (const id of extra) {
      const user = state.index.byId.get(id);
      // A subscriber the user list does not show is not one chatctl can judge: it stays.
      if (user && !user.is_bot) changes.push({ change: { action: 'unsubscribe', channel: c, user: personOf(user) }, rule: null });
    }
  }
  return [...changes, ...failed];
}
