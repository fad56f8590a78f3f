/**
 * A real organization's configuration as its server answers it (api/org-snapshot.ts), read in a bounded
 * number of requests: one POST /register (its queue deleted at once), GET /users/me, GET /users with profile
 * fields, GET /user_groups with deactivated groups, and one GET /streams/{id}/members per channel; never a
 * request per user. It is what `org mirror` builds a copy from and saves as the copy's base, and what the
 * three-way plan reads that base back from, with read.ts's reading, so the base, the copy now and production
 * now are one shape.
 */
import { getUserGroups } from '../../api/operations/groups.js';
import type { OrganizationSnapshot } from '../../api/org-snapshot.js';
import type { ChatClient } from '../../client/client.js';
import { currentMembers } from '../channels/membership.js';
import type { Context } from '../command/context.js';
import { type Answers, liveFromAnswers, readBaseState } from './read.js';
import { isObj, type LiveOrg } from './model.js';

/** What register must give for a copy (api/org-snapshot.ts); `realm_user` for the system bots' IDs. */
const FETCH = ['realm', 'realm_user', 'realm_domains', 'realm_linkifiers', 'custom_profile_fields', 'realm_user_groups', 'default_streams', 'stream'];

/**
 * Keys whose values are secrets or lead to one, dropped wherever they occur: keys, bot tokens and outgoing
 * webhook services, invitation and upload links. A copy needs none (it makes its own keys), and a saved base
 * must hold none.
 */
const SECRET_KEYS = new Set(['api_key', 'token', 'services', 'link_url', 'bot_token', 'url_template_with_token']);

/** Accounts the register answer lists again (GET /users has them): dropped, so a base holds each account once. */
const REPEATED = new Set(['realm_users', 'realm_non_active_users', 'realm_bots']);

function withoutSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutSecrets);
  if (!isObj(v)) return v;
  return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (SECRET_KEYS.has(k) ? [] : [[k, withoutSecrets(x)]])));
}

export interface ReadSnapshot {
  snapshot: OrganizationSnapshot;
  /** The caller's account: the person mirroring. */
  caller: { id: number; email: string };
  requests: number;
}

/** Reads the organization `client` reaches, as an administrator sees it; no secret is kept. */
export async function readSnapshot(ctx: Context, client: ChatClient): Promise<ReadSnapshot> {
  const level = await client.featureLevel();
  const { state, me, users, requests: read } = await readBaseState(client, level, FETCH, { linkifier_url_template: true, include_deactivated_groups: true });
  let requests = read;
  const { user_groups: groups } = await client.call(getUserGroups, { include_deactivated_groups: true });
  requests++;
  const channels = Array.isArray(state.streams) ? state.streams.filter(isObj) : [];
  const ids = channels.flatMap((c) => (typeof c.stream_id === 'number' ? [c.stream_id] : []));
  const members = await currentMembers(ctx, client, ids);
  requests += ids.length;
  const kept = Object.fromEntries(Object.entries(state).filter(([k]) => !REPEATED.has(k) && k !== 'queue_id'));
  const snapshot = withoutSecrets({
    register: { ...kept, cross_realm_bots: state.cross_realm_bots ?? [] },
    users,
    groups,
    members: Object.fromEntries([...members].map(([id, set]) => [String(id), [...set].sort((a, b) => a - b)])),
  }) as OrganizationSnapshot;
  const own = users.find((u) => u.user_id === me.user_id);
  const email = own && typeof own.delivery_email === 'string' && own.delivery_email ? own.delivery_email : me.email;
  return { snapshot, caller: { id: me.user_id, email }, requests };
}

/** A saved snapshot as read.ts reads a live organization: the base of a three-way plan. */
export function liveFromSnapshot(snapshot: OrganizationSnapshot, callerId: number): LiveOrg {
  const members = new Map(Object.entries(snapshot.members).map(([id, list]) => [Number(id), new Set(list)]));
  const answers: Answers = {
    level: snapshot.register.zulip_feature_level,
    version: snapshot.register.zulip_version,
    state: snapshot.register,
    callerId,
    users: snapshot.users.map((u) => ({ ...u })),
    members,
    requests: 0,
  };
  return liveFromAnswers(answers);
}
