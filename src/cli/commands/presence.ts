import { updatePresence, type LegacyPresence, type ModernPresence } from '../../api/operations/presence.js';
import type { User } from '../../api/types.js';
import { defineCommand } from '../command/command.js';
import { printDryRun } from '../bulk/dry-run.js';
import { usageError } from '../core/errors.js';
import { arg, flag } from '../core/flags.js';
import { fetchState } from '../lookup/state.js';

const PRESENCE_FIELDS = ['user_id', 'email', 'full_name', 'status', 'active_timestamp', 'idle_timestamp'] as const;
const OUTPUT = { fields: PRESENCE_FIELDS, times: { active_timestamp: 's', idle_timestamp: 's' }, key: ['user_id', 'email', 'full_name'] } as const;

/**
 * The threshold of servers that do not report server_presence_offline_threshold_seconds (below feature
 * level 164): what Zulip clients hard-coded before. Current servers report 200 s by default.
 */
export const LEGACY_OFFLINE_THRESHOLD = 140;

export type PresenceStatus = 'active' | 'idle' | 'offline';

/**
 * What a Zulip client shows: active when the user was active within the threshold; else idle when a
 * client of theirs was connected (idle_timestamp) within it; else offline. `now` is the server's clock.
 */
export function presenceStatus(p: ModernPresence, now: number, threshold: number): PresenceStatus {
  if (now - p.active_timestamp < threshold) return 'active';
  if (now - p.idle_timestamp < threshold) return 'idle';
  return 'offline';
}

/** How the person asked for what older servers lack. */
const LABELS = { history_limit_days: '--days' };

/** What a client reports: `presence set` takes these. */
function parseStatus(value: string): 'active' | 'idle' {
  if (value !== 'active' && value !== 'idle') throw usageError(`presence is active or idle, not "${value}"`);
  return value;
}

/** Entries in the modern format (asked for; a legacy entry, keyed by e-mail, has no place in the rows). */
const isModern = (p: ModernPresence | LegacyPresence): p is ModernPresence => typeof p.active_timestamp === 'number';

interface Snapshot {
  presences: Record<string, ModernPresence | LegacyPresence>;
  serverTimestamp: number;
  threshold: number;
  users: readonly Pick<User, 'user_id' | 'email' | 'full_name'>[];
}

/** One row per user with presence data, by user ID. */
function rowsOf(s: Snapshot) {
  const users = new Map(s.users.map((u) => [u.user_id, u]));
  return Object.entries(s.presences)
    .flatMap(([id, p]) => (isModern(p) ? [{ id: Number(id), p }] : []))
    .sort((a, b) => a.id - b.id)
    .map(({ id, p }) => ({
      user_id: id,
      email: users.get(id)?.email ?? null,
      full_name: users.get(id)?.full_name ?? null,
      status: presenceStatus(p, s.serverTimestamp, s.threshold),
      active_timestamp: p.active_timestamp,
      idle_timestamp: p.idle_timestamp,
    }));
}

const THRESHOLD_HELP =
  'Status per user, as Zulip clients show it: active when the user was active (active_timestamp) less than the ' +
  'offline threshold ago; otherwise idle when one of their clients was connected (idle_timestamp) less than the ' +
  "threshold ago; otherwise offline. The threshold is the server's server_presence_offline_threshold_seconds " +
  `(200 s by default; ${LEGACY_OFFLINE_THRESHOLD} s for servers below feature level 164, which do not report it) ` +
  'unless --offline-after says otherwise, and "now" is the server\'s clock. Users sharing no presence, and those ' +
  'with no data in the history window, are not listed.';

const LIST_FLAGS = {
  days: flag.int('--days <n>', 'history window: users seen within this many days (server default 14)', { min: 0, what: 'a number of days' }),
  offlineAfter: flag.int('--offline-after <seconds>', "offline threshold (default: the server's)", { min: 1, what: 'a number of seconds' }),
};

export const commands = [
  defineCommand({
    path: ['presence', 'list'],
    aliases: ['ls'],
    summary: 'list who is active, idle or offline',
    description:
      'Lists the presence of every user with presence data, in the modern format (user ID, last active and ' +
      'last connected times), from the initial state of an event queue (POST /register with presence and ' +
      'slim_presence; the queue is deleted at once), so your own presence is not changed and bots may use it.\n\n' +
      THRESHOLD_HELP,
    examples: [
      'chatctl presence list',
      'chatctl presence list --json | jq -r \'.[] | select(.status == "active") | .email\'',
      'chatctl presence list --days 1 --offline-after 600 --fields email,status',
    ],
    options: LIST_FLAGS,
    output: OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const { offlineAfter: override, days } = opts;
      const client = await ctx.client();
      const types = ['presence', 'realm_user', ...(override === undefined ? ['realm'] : [])];
      const state = await fetchState(client, types, { slim_presence: true, presence_history_limit_days: days }, { presence_history_limit_days: '--days' });
      await out.list(
        rowsOf({
          presences: state.presences ?? {},
          serverTimestamp: Math.floor(state.server_timestamp ?? ctx.nowMs() / 1000),
          threshold: override ?? state.server_presence_offline_threshold_seconds ?? LEGACY_OFFLINE_THRESHOLD,
          users: state.realm_users ?? [],
        }),
      );
    },
  }),

  defineCommand({
    path: ['presence', 'set'],
    summary: 'report your presence: active or idle',
    description:
      'Reports your presence (POST /users/me/presence), as a client does every minute. "active": you are using ' +
      'the device; "idle": a client is open but you are not using it. The server answers with everyone\'s ' +
      'presence as it stood before this report, printed as presence list does (a Zulip server applies the ' +
      'report after answering, so your own row is your previous report, or absent); --ping-only records ' +
      'yours and asks for nothing back (for keep-alive scripts). Bots have no presence.\n\n' +
      THRESHOLD_HELP,
    examples: ['chatctl presence set active --ping-only', 'chatctl presence set idle --json'],
    args: { status: arg.custom('active or idle', parseStatus, { suggestions: ['active', 'idle'] }) },
    options: { pingOnly: flag.bool('--ping-only', 'record your presence only; print nothing'), ...LIST_FLAGS },
    output: OUTPUT,
    mutating: true,
    async run(opts, ctx) {
      const { status, pingOnly, offlineAfter: override, days } = opts;
      const out = ctx.output(opts);
      const client = await ctx.client();
      // The modern format, keyed by user ID: `last_update_id`, which older servers take as `slim_presence`.
      const params = {
        status,
        ping_only: pingOnly || undefined,
        last_update_id: pingOnly ? undefined : -1,
        history_limit_days: pingOnly ? undefined : days,
      };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(updatePresence, params, { labels: LABELS }));
        return;
      }
      const res = await client.call(updatePresence, params, { signal: ctx.signal, labels: LABELS });
      ctx.info(`chatctl: presence reported: ${status}`);
      if (pingOnly) return;
      const extra = await fetchState(client, override === undefined ? ['realm_user', 'realm'] : ['realm_user']);
      await out.list(
        rowsOf({
          presences: res.presences ?? {},
          serverTimestamp: Math.floor(res.server_timestamp ?? ctx.nowMs() / 1000),
          threshold: override ?? extra.server_presence_offline_threshold_seconds ?? LEGACY_OFFLINE_THRESHOLD,
          users: extra.realm_users ?? [],
        }),
      );
    },
  }),
];
