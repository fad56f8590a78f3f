/** Presence: reporting one's own, reading everyone's. */
import { operation, p } from '../operation.js';
import { s } from '../schema.js';

/** Modern entry, keyed by user ID. */
export interface ModernPresence {
  active_timestamp: number;
  idle_timestamp: number;
}

export interface LegacyClientPresence {
  client: string;
  status: 'active' | 'idle';
  timestamp: number;
  pushable?: boolean;
}

/** Legacy entry, keyed by e-mail: `aggregated` plus one object per client (`website`). */
export type LegacyPresence = Record<string, LegacyClientPresence>;

export interface PresenceUpdateResult {
  presence_last_update_id?: number;
  server_timestamp?: number;
  presences?: Record<string, ModernPresence | LegacyPresence>;
}

export const updatePresence = operation<PresenceUpdateResult>()({
  name: 'update-presence',
  method: 'POST',
  path: '/users/me/presence',
  summary: "Report the caller's presence; returns everyone's",
  access: 'user',
  bots: false,
  params: {
    status: p.req(s.string(), { doc: 'active or idle' }),
    last_update_id: p.opt(s.int(), {
      doc: '-1 at first, then the last presence_last_update_id (modern format)',
      // Before 263 the modern format is asked for with `slim_presence`, without incremental updates.
      older: [{ before: 263, name: 'slim_presence', value: () => true }],
    }),
    history_limit_days: p.opt(s.int(), { doc: 'oldest data to return, in days (default 14; 0: none)', minFeatureLevel: 288 }),
    ping_only: p.def(s.bool(), false, { doc: 'only record; return no data' }),
    slim_presence: p.def(s.bool(), false, { doc: 'deprecated: modern format keyed by user ID' }),
    new_user_input: p.def(s.bool(), false),
  },
  openapiPath: '/users/me/presence',
});

export const getRealmPresence = operation<{ presences: Record<string, LegacyPresence>; server_timestamp: number }>()({
  name: 'get-realm-presence',
  method: 'GET',
  path: '/realm/presence',
  summary: 'Presence of every user, keyed by e-mail (legacy format)',
  access: 'user',
  params: {},
  openapiPath: '/realm/presence',
});

/** One client's entry of GET /users/{user}/presence; `aggregated` turns `offline` after the threshold. */
export interface UserPresenceEntry {
  status: 'active' | 'idle' | 'offline';
  timestamp: number;
}

export type UserPresenceResult = { presence: ModernPresence | { aggregated: UserPresenceEntry; website: UserPresenceEntry } };

export const getUserPresence = operation<UserPresenceResult>()({
  name: 'get-user-presence',
  method: 'GET',
  path: '/users/{user_id_or_email}/presence',
  summary: 'Presence of one user, by ID or e-mail',
  access: 'user',
  params: {
    user_id_or_email: p.path(s.string()),
    slim_presence: p.def(s.bool(), false),
  },
  openapiPath: '/users/{user_id_or_email}/presence',
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const presenceOps = {
  updatePresence,
  getRealmPresence,
  getUserPresence,
} as const;
