/**
 * Who went stale: `users list --inactive-since`. Presence is read once, for the whole organization, from the
 * initial state of an event queue (POST /register with presence, user_status and slim_presence), so the
 * caller's own presence is not touched and a bot may run the report. Each human's last active time is set
 * against the cutoff; a user the presence cannot speak for is `unknown`, never `inactive`.
 */
import type { ModernPresence, LegacyPresence } from '../../api/operations/presence.js';
import { isPlainObject } from '../../api/schema.js';
import type { User } from '../../api/types.js';
import type { ChatClient } from '../../client/client.js';
import { FeatureLevelError } from '../../client/features.js';
import { fetchState } from '../lookup/state.js';

export type Inactivity = 'inactive' | 'unknown';

/** A row of the report: what `users deactivate --from-file -` reads (user_id, else email) and why it is listed. */
export interface InactiveRow {
  user_id: number;
  email: string;
  full_name: string;
  /** UNIX seconds of the last activity presence knows of; null when it knows none. */
  last_active: number | null;
  status: Inactivity;
}

export const INACTIVE_FIELDS = ['user_id', 'email', 'full_name', 'last_active', 'status'] as const;

/**
 * The history asked for: all of it. A Zulip server returns only users connected within the window, so a
 * window as short as the cutoff would leave out exactly the users the report looks for.
 */
const ALL_HISTORY_DAYS = 36500;

/** What servers before feature level 288 (no presence_history_limit_days) return: users connected in the last 14 days. */
export const FIXED_WINDOW_DAYS = 14;

/** The organization's presence, as the report needs it. */
export interface PresenceFacts {
  /** Last active time (UNIX seconds) by user ID, for users with presence data. */
  lastActive: Map<number, number>;
  /** Users who turned presence off: their data stopped when they did (user status `away`). */
  hidden: Set<number>;
  /** The server's clock, UNIX seconds. */
  now: number;
  /** The history window in days when the server could not be asked for all of it. */
  windowDays?: number;
}

const isModern = (p: ModernPresence | LegacyPresence): p is ModernPresence => typeof p.active_timestamp === 'number';

/** The users whose status carries the legacy `away`: presence_enabled off. */
function hiddenUsers(status: unknown): Set<number> {
  if (!isPlainObject(status)) return new Set();
  return new Set(
    Object.entries(status)
      .filter(([, s]) => isPlainObject(s) && s.away === true)
      .map(([id]) => Number(id)),
  );
}

export async function readPresence(client: ChatClient, fallbackNow: number): Promise<PresenceFacts> {
  const types = ['presence', 'user_status'];
  let windowDays: number | undefined;
  let state: Awaited<ReturnType<typeof fetchState>>;
  try {
    state = await fetchState(client, types, { slim_presence: true, presence_history_limit_days: ALL_HISTORY_DAYS });
  } catch (e) {
    // Refused before anything was sent: an older server, which answers with its fixed window.
    if (!(e instanceof FeatureLevelError)) throw e;
    windowDays = FIXED_WINDOW_DAYS;
    state = await fetchState(client, types, { slim_presence: true });
  }
  const lastActive = new Map(Object.entries(state.presences ?? {}).flatMap(([id, p]) => (isModern(p) ? [[Number(id), p.active_timestamp] as const] : [])));
  return { lastActive, hidden: hiddenUsers(state.user_status), now: Math.floor(state.server_timestamp ?? fallbackNow), windowDays };
}

/**
 * The report's row for a user, or undefined when the user is not stale: active since the cutoff, joined
 * after it, a bot (no presence) or deactivated (nothing left to do).
 */
export function inactivityOf(user: User, presence: PresenceFacts, cutoff: number): InactiveRow | undefined {
  if (user.is_bot || !user.is_active) return undefined;
  if (Date.parse(user.date_joined) / 1000 >= cutoff) return undefined;
  const known = presence.hidden.has(user.user_id) ? undefined : presence.lastActive.get(user.user_id);
  if (known !== undefined && known >= cutoff) return undefined;
  return {
    user_id: user.user_id,
    email: user.email,
    full_name: user.full_name,
    last_active: known ?? null,
    status: known === undefined ? 'unknown' : 'inactive',
  };
}

/** The report's rows, chunk by chunk as the users arrive; `counts` tallies every row, printed or not. */
export async function* inactiveRows(
  users: AsyncIterable<readonly User[]>,
  presence: PresenceFacts,
  cutoff: number,
  o: { includeUnknown: boolean; counts: Record<Inactivity, number> },
): AsyncGenerator<readonly InactiveRow[]> {
  for await (const chunk of users) {
    const rows = chunk.flatMap((u) => {
      const row = inactivityOf(u, presence, cutoff);
      if (row) o.counts[row.status]++;
      return row && (row.status === 'inactive' || o.includeUnknown) ? [row] : [];
    });
    if (rows.length) yield rows;
  }
}
