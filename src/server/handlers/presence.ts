/** Presence: a user reports theirs and reads everyone's. */
import { badRequest } from '../../api/errors.js';
import {
  getRealmPresence,
  getUserPresence,
  updatePresence,
  type LegacyPresence,
  type PresenceUpdateResult,
  type UserPresenceResult,
} from '../../api/operations/presence.js';
import { bind, callerOf, serverTimestamp, type Handlers } from '../context.js';
import { legacyPresence, PRESENCE_OFFLINE_THRESHOLD_SECS, realmPresence, recordPresence, userPresence } from '../model/presence.js';
import { userById, userByPathEmail } from '../model/users.js';

export const handlers: Handlers<'presence'> = {
  updatePresence: bind(updatePresence, (ctx, p): PresenceUpdateResult => {
    if (p.status !== 'active' && p.status !== 'idle') throw badRequest(`Invalid status: ${p.status}`);
    const timestamp = serverTimestamp(ctx.clock);
    // The answer is read before the caller's report is applied: a Zulip server hands the report to a queue
    // worker (zerver/actions/presence.py update_user_presence) and answers at once from what is stored
    // (zerver/views/presence.py), so the caller's own entry is the one of their previous report, or none.
    const answer = p.ping_only
      ? undefined
      : realmPresence(ctx.db, {
          // Sending last_update_id asks for the modern format.
          slim: p.slim_presence || p.last_update_id !== undefined,
          lastUpdateId: p.last_update_id,
          historyLimitDays: p.history_limit_days,
          now: ctx.nowSeconds(),
          realmUrl: ctx.realmUrl,
        });
    recordPresence(ctx.db, ctx, callerOf(ctx), p.status, ctx.nowSeconds(), timestamp);
    if (!answer) return {};
    return { presences: answer.presences, server_timestamp: timestamp, presence_last_update_id: answer.lastUpdateId };
  }),

  getRealmPresence: bind(getRealmPresence, (ctx) => {
    const { presences } = realmPresence(ctx.db, { slim: false, now: ctx.nowSeconds(), realmUrl: ctx.realmUrl });
    return { presences: presences as Record<string, LegacyPresence>, server_timestamp: serverTimestamp(ctx.clock) };
  }),

  getUserPresence: bind(getUserPresence, (ctx, p): UserPresenceResult => {
    const key = p.user_id_or_email;
    // An integer is a user ID; anything else an e-mail address (the real one or the `user{id}@host` form).
    const target = /^\d+$/.test(key) ? userById(ctx.db, Number(key)) : userByPathEmail(ctx.db, key);
    if (!target?.is_active) throw badRequest('No such user');
    if (target.is_bot) throw badRequest('Presence is not supported for bot users.');
    const data = userPresence(ctx.db, target);
    if (!data) throw badRequest(`No presence data for ${key}`);
    if (p.slim_presence) return { presence: { active_timestamp: data.lastActive, idle_timestamp: data.lastConnected } };
    const { aggregated, website } = legacyPresence(data.lastActive, data.lastConnected);
    const offline = ctx.nowSeconds() - aggregated.timestamp > PRESENCE_OFFLINE_THRESHOLD_SECS;
    return {
      presence: {
        aggregated: { status: offline ? 'offline' : aggregated.status, timestamp: aggregated.timestamp },
        website: { status: website.status, timestamp: website.timestamp },
      },
    };
  }),
};
