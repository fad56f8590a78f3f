/**
 * Changing who is in which channel, for `channels subscribe`, `channels unsubscribe` and `channels sync`:
 * one row per user and channel, and one request per channel for many users (`principals`), at most
 * MEMBERSHIP_CHUNK users a request. What is already so is found first (each channel's members, one
 * GET /streams/{id}/members), reported `unchanged` and not sent, so a run can be repeated.
 */
import { getSubscribers, subscribe, unsubscribe, type Channel } from '../../api/operations/channels.js';
import type { WireRequest } from '../../api/wire.js';
import type { ChatClient } from '../../client/client.js';
import { runPool } from '../../client/pool.js';
import { type BulkFlags, type Outcome, printPlan, runBulk, unchangedOutcome } from '../bulk/runner.js';
import type { Context } from '../command/context.js';
import { ChatctlError } from '../core/errors.js';
import type { Refusal } from '../core/refusal.js';

export type MemberAction = 'subscribe' | 'unsubscribe';

/** A user as rows name them: by the address (or the reference given), with the ID requests carry. */
export interface Person {
  id: number;
  label: string;
  /** The addresses the server may key its answer by, before feature level 207. */
  emails?: readonly string[];
}

/** One user's membership of one channel to change, as planned. */
export interface MemberChange {
  action: MemberAction;
  channel: Pick<Channel, 'stream_id' | 'name'>;
  user: Person;
  /** Why it cannot be sent (an unknown or deactivated user): the row fails without a request. */
  error?: Refusal;
  /** Already so: nothing is sent, and the row is reported unchanged. */
  inPlace?: boolean;
}

/**
 * Most users in one request. A server applies a request's principals in one transaction and answers when
 * all are done; 500 keeps one request to seconds on a large server, and subscribing 10,000 users to a
 * channel to 20 requests, well inside the 200 a minute a Zulip server allows one user.
 */
export const MEMBERSHIP_CHUNK = 500;

/** How a row names its change: `design: +ada@example.com`, `design: -bob@example.com`. */
export const changeTarget = (c: Pick<MemberChange, 'action' | 'channel' | 'user'>): string =>
  `${c.channel.name}: ${c.action === 'subscribe' ? '+' : '-'}${c.user.label}`;

interface Row {
  row: number;
  target: string;
  change: MemberChange;
}

/** One request's worth of rows, or one row that sends nothing (in place, or refused). */
type Unit = { rows: Row[]; send: true } | { rows: [Row]; send: false };

/**
 * The units of a plan: changes of the same action and channel together (in the order each first appears),
 * rows without a request first, then the rest in chunks. Rows are numbered in that order, which is the order
 * they are printed in.
 */
export function planUnits(changes: readonly MemberChange[]): Unit[] {
  const groups = new Map<string, MemberChange[]>();
  for (const c of changes) {
    const key = `${c.action} ${c.channel.stream_id}`;
    const group = groups.get(key);
    if (group) group.push(c);
    else groups.set(key, [c]);
  }
  const units: Unit[] = [];
  let n = 0;
  const row = (change: MemberChange): Row => ({ row: ++n, target: changeTarget(change), change });
  for (const group of groups.values()) {
    for (const c of group) if (c.error || c.inPlace) units.push({ rows: [row(c)], send: false });
    const sendable = group.filter((c) => !c.error && !c.inPlace);
    for (let i = 0; i < sendable.length; i += MEMBERSHIP_CHUNK) units.push({ rows: sendable.slice(i, i + MEMBERSHIP_CHUNK).map(row), send: true });
  }
  return units;
}

/** The changes of a plan in row order (what `channels sync --dry-run` lists). */
export const orderedChanges = (changes: readonly MemberChange[]): { row: number; change: MemberChange }[] =>
  planUnits(changes).flatMap((u) => u.rows.map((r) => ({ row: r.row, change: r.change })));

/** The request of a unit: its channel by name (the endpoints take names), its users by ID. */
function requestOf(rows: readonly Row[]) {
  const { action, channel } = rows[0]!.change;
  const principals = rows.map((r) => r.change.user.id);
  return action === 'subscribe'
    ? { action, op: subscribe, params: { subscriptions: [{ name: channel.name }], principals } }
    : { action, op: unsubscribe, params: { subscriptions: [channel.name], principals } };
}

function prepare(client: ChatClient, rows: readonly Row[]): Promise<WireRequest[]> {
  const r = requestOf(rows);
  return r.action === 'subscribe' ? client.prepare(r.op, r.params) : client.prepare(r.op, r.params);
}

/** Whether the server's answer lists the user as subscribed before: keyed by ID, or by address before 207. */
const listed = (answer: Record<string, string[]>, p: Person, channel: string): boolean =>
  [String(p.id), ...(p.emails ?? [])].some((key) => answer[key]?.includes(channel) === true);

async function send(client: ChatClient, rows: readonly Row[], signal: AbortSignal): Promise<Outcome[]> {
  const r = requestOf(rows);
  const done = (row: Row, status: string): Outcome => ({ row: row.row, target: row.target, ok: true, status, id: row.change.user.id });
  if (r.action === 'unsubscribe') {
    await client.call(r.op, r.params, { signal });
    return rows.map((row) => done(row, 'unsubscribed'));
  }
  const res = await client.call(r.op, r.params, { signal });
  const name = rows[0]!.change.channel.name;
  return rows.map((row) => done(row, listed(res.already_subscribed, row.change.user, name) ? 'unchanged' : 'subscribed'));
}

/** The summary's verb: what every sent row did, or "changed" for a plan that does both. */
function verbOf(changes: readonly MemberChange[]): string {
  const actions = new Set(changes.filter((c) => !c.error).map((c) => c.action));
  if (actions.size !== 1) return 'changed';
  return actions.has('subscribe') ? 'subscribed' : 'unsubscribed';
}

/**
 * Applies the changes (or, with --dry-run, prints the requests they would send): one outcome per change,
 * exit 3 when some failed. What the server cannot do is refused before anything is sent.
 */
export async function runMemberChanges(
  ctx: Context,
  flags: BulkFlags & { dryRun?: boolean },
  client: ChatClient,
  changes: readonly MemberChange[],
): Promise<void> {
  const units = planUnits(changes);
  const requests = (await Promise.all(units.filter((u) => u.send).map((u) => prepare(client, u.rows)))).flat();
  if (flags.dryRun) {
    const single = units.flatMap((u) => (u.send ? [] : u.rows));
    printPlan(
      ctx,
      requests,
      single.filter((r) => r.change.error).map((r) => ({ row: r.row, target: r.target, error: r.change.error!.msg })),
      changes.length,
      single.filter((r) => r.change.inPlace),
    );
    return;
  }
  await runBulk(ctx, flags, {
    units,
    verb: verbOf(changes),
    pacer: client.pacer,
    failFast: flags.failFast,
    rows: (u) => u.rows.map((r) => ({ row: r.row, target: r.target })),
    act: async (u) => {
      if (u.send) return send(client, u.rows, ctx.signal);
      const [r] = u.rows;
      if (r.change.error) throw r.change.error;
      return [unchangedOutcome(r, r.change.user.id)];
    },
  });
}

/** Each channel's subscribers (active users), one GET /streams/{id}/members each, paced; any failure ends it. */
export async function currentMembers(ctx: Context, client: ChatClient, channelIds: readonly number[]): Promise<Map<number, Set<number>>> {
  const ids = [...new Set(channelIds)];
  const results = await runPool(ids, (stream_id, _i, signal) => client.call(getSubscribers, { stream_id }, { signal }), {
    pacer: client.pacer,
    signal: ctx.signal,
    stopWhen: () => true,
  });
  if (ctx.signal.aborted) throw new ChatctlError('interrupted', 'interrupted');
  const out = new Map<number, Set<number>>();
  for (const r of results) {
    // Items start in order, so the first failure met is the one that stopped the rest.
    if (!r.ok) throw r.error;
    out.set(r.item, new Set(r.value.subscribers));
  }
  return out;
}
