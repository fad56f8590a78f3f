/**
 * Presence as a Zulip server keeps it: per user the last time a client was connected and the last time the
 * user was active, with a realm-wide increasing `last_update_id` so clients can fetch only what changed.
 */
import type { LegacyClientPresence, LegacyPresence, ModernPresence } from '../../api/operations/presence.js';
import type { EventSink } from '../context.js';
import { getSetting, nextSequence } from './realm.js';
import type { Db } from '../store/db.js';
import { apiEmail, apiEmailer } from './user-view.js';
import type { UserRow } from './users.js';

/** Writes closer together than this are skipped (Zulip's PRESENCE_UPDATE_MIN_FREQ_SECONDS). */
const MIN_UPDATE_SECS = 55;
/** Register values: clients ping at this interval and show users offline after the threshold. */
export const PRESENCE_PING_INTERVAL_SECS = 60;
export const PRESENCE_OFFLINE_THRESHOLD_SECS = 200;
/** Legacy format: `active` while the last activity is this close to the last connection. */
const LEGACY_ACTIVE_OFFSET_SECS = 70;
export const DEFAULT_HISTORY_LIMIT_DAYS = 14;

interface PresenceRow {
  user_id: number;
  last_active_time: number | null;
  last_connected_time: number | null;
  last_update_id: number;
}

/** A time never recorded reads as the user's joining time, in whole seconds (Zulip's date_joined default). */
const joined = (user: Pick<UserRow, 'date_joined'>): number => Math.floor(user.date_joined);

/** Legacy per-client entry: `active` with the activity time, else `idle` with the connection time. */
function legacyEntry(lastActive: number, lastConnected: number) {
  const active = lastActive + LEGACY_ACTIVE_OFFSET_SECS >= lastConnected;
  return { client: 'website', status: active ? ('active' as const) : ('idle' as const), timestamp: active ? lastActive : lastConnected, pushable: false };
}

export function legacyPresence(lastActive: number, lastConnected: number): { aggregated: LegacyClientPresence; website: LegacyClientPresence } {
  const website = legacyEntry(lastActive, lastConnected);
  return { aggregated: { client: website.client, status: website.status, timestamp: website.timestamp }, website };
}

/**
 * Records a presence report (nothing when the user shares no presence). A first report, or coming back
 * active after missing a couple of pings, is announced at once with a `presence` event.
 */
export function recordPresence(db: Db, sink: EventSink, user: UserRow, status: 'active' | 'idle', now: number, serverTimestamp: number): void {
  if (!user.presence_enabled) return;
  const row = db.prepare('SELECT * FROM presence WHERE user_id = ?').get(user.id) as PresenceRow | undefined;
  const active = status === 'active';
  const sinceActive = row?.last_active_time != null ? now - row.last_active_time : 86400;
  const sinceConnected = row?.last_connected_time != null ? now - row.last_connected_time : 86400;
  const becameOnline = active && sinceActive > PRESENCE_OFFLINE_THRESHOLD_SECS - PRESENCE_PING_INTERVAL_SECS - 10;
  let lastActive = row ? row.last_active_time : active ? now : null;
  let lastConnected = row ? row.last_connected_time : now;
  let changed = !row;
  if (row && sinceConnected > MIN_UPDATE_SECS) {
    lastConnected = now;
    changed = true;
  }
  if (row && active && sinceActive > MIN_UPDATE_SECS) {
    lastActive = now;
    if (lastConnected === null || now > lastConnected) lastConnected = now;
    changed = true;
  }
  if (!changed) return;
  const updateId = nextSequence(db, 'presence_sequence');
  db.prepare(
    `INSERT INTO presence (user_id, last_active_time, last_connected_time, last_update_id) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id) DO UPDATE SET last_active_time = excluded.last_active_time,
       last_connected_time = excluded.last_connected_time, last_update_id = excluded.last_update_id`,
  ).run(user.id, lastActive, lastConnected, updateId);
  if (getSetting(db, 'presence_disabled') || !(row === undefined || becameOnline)) return;
  const entry = legacyEntry(lastActive ?? joined(user), lastConnected ?? joined(user));
  const everyone = (db.prepare('SELECT id FROM users WHERE is_active = 1').all() as { id: number }[]).map((r) => r.id);
  sink.emit({ type: 'presence', email: apiEmail(db, user), user_id: user.id, server_timestamp: serverTimestamp, presence: { website: entry } }, everyone);
}

export interface PresenceQuery {
  slim: boolean;
  /** Only rows updated after this ID; the time window applies only when it is absent or ≤ 0. */
  lastUpdateId?: number;
  historyLimitDays?: number;
  now: number;
  realmUrl: string;
}

/** The realm's presence data and the newest `last_update_id` among it (else the client's, else -1). */
export function realmPresence(db: Db, q: PresenceQuery): { presences: Record<string, ModernPresence | LegacyPresence>; lastUpdateId: number } {
  if (getSetting(db, 'presence_disabled')) return { presences: {}, lastUpdateId: -1 };
  const days = q.historyLimitDays ?? DEFAULT_HISTORY_LIMIT_DAYS;
  const windowed = q.lastUpdateId === undefined || q.lastUpdateId <= 0;
  // Only the columns the answer is made of: the whole user rows of everyone were most of this request's time.
  const rows =
    days === 0
      ? []
      : db
          .prepare<[number, number, number], PresenceRow & Pick<UserRow, 'id' | 'email' | 'is_bot' | 'date_joined'>>(
            `SELECT p.user_id, p.last_active_time, p.last_connected_time, p.last_update_id, u.id, u.email, u.is_bot, u.date_joined
             FROM presence p JOIN users u ON u.id = p.user_id
             WHERE u.is_active = 1 AND u.is_bot = 0 AND p.last_update_id > ? AND (? = 0 OR p.last_connected_time >= ?)
             ORDER BY p.user_id`,
          )
          .all(q.lastUpdateId ?? Number.MIN_SAFE_INTEGER, windowed ? 1 : 0, q.now - days * 86400);
  const presences: Record<string, ModernPresence | LegacyPresence> = {};
  const emailOf = apiEmailer(db);
  for (const r of rows) {
    const lastActive = r.last_active_time ?? joined(r);
    const lastConnected = r.last_connected_time ?? joined(r);
    if (q.slim) presences[String(r.user_id)] = { active_timestamp: lastActive, idle_timestamp: lastConnected };
    else presences[emailOf(r)] = legacyPresence(lastActive, lastConnected);
  }
  // A fold, not Math.max(...rows): an organization's rows are more arguments than a call takes (about 125,000).
  const lastUpdateId = rows.length ? rows.reduce((most, r) => Math.max(most, r.last_update_id), Number.NEGATIVE_INFINITY) : (q.lastUpdateId ?? -1);
  return { presences, lastUpdateId };
}

/** One user's presence, or null when the user never reported any. */
export function userPresence(db: Db, user: UserRow): { lastActive: number; lastConnected: number } | null {
  const row = db.prepare('SELECT * FROM presence WHERE user_id = ?').get(user.id) as PresenceRow | undefined;
  if (!row) return null;
  return { lastActive: row.last_active_time ?? joined(user), lastConnected: row.last_connected_time ?? joined(user) };
}
