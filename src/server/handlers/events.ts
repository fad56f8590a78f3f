/**
 * Event queues: POST /register creates one with the initial state, GET /events reads (long-polling) and
 * acknowledges, DELETE /events removes. Queues are rows, so another process's events arrive: a waiting
 * poll is woken at once by events emitted in this process and finds others' by polling the store.
 */
import { badRequest } from '../../api/errors.js';
import { deleteQueue as deleteQueueOp, getEvents, register, type QueueEvent } from '../../api/operations/events.js';
import { bind, bindAsync, callerOf, serverTimestamp, type Handlers, type HandlerContext } from '../context.js';
import {
  acknowledge,
  badQueue,
  createQueue,
  deleteQueue,
  expireQueues,
  hasPendingEvents,
  onQueueEvent,
  ownQueue,
  pendingEvents,
  pushHeartbeat,
  queueExists,
  queueLifespanSecs,
  touchQueue,
} from '../model/event-queues.js';
import { eventNarrow } from '../model/event-narrow.js';
import { initialState } from '../model/register.js';
import { isGuest } from '../model/users.js';
import { featureLevel } from '../feature-level.js';
import { versionFields } from '../model/realm.js';

/** How often a waiting poll looks at the store for events written by other processes. */
const STORE_POLL_MS = 250;
/** An idle poll answers with a heartbeat after 45 s plus up to 10 s, as a Zulip server. */
const HEARTBEAT_BASE_MS = 45_000;
const HEARTBEAT_JITTER_MS = 10_000;
/** How often, at most, a waiting poll marks its queue accessed. */
const KEEPALIVE_MAX_MS = 10_000;

/**
 * Waits until the queue has events, a heartbeat is due (by the context's clock, so tests can move time),
 * the queue is deleted, or the client goes away (then nothing is sent, and an empty list is as good as any).
 */
function waitForEvents(ctx: HandlerContext, queueId: string, sinceMs: number): Promise<QueueEvent[]> {
  const heartbeatAfterMs = HEARTBEAT_BASE_MS + Math.random() * HEARTBEAT_JITTER_MS;
  // A queue with a poll waiting on it is not idle (a server never expires one with a connected client):
  // its last access moves on while the poll waits, often enough for the shortest lifespan.
  const touchEveryMs = Math.max(1000, Math.min(KEEPALIVE_MAX_MS, (queueLifespanSecs(ctx.db, queueId) * 1000) / 3));
  let touchedAtMs = sinceMs;
  const keepAlive = () => {
    if (ctx.clock.nowMs() - touchedAtMs < touchEveryMs) return;
    touchedAtMs = ctx.clock.nowMs();
    ctx.tx(() => touchQueue(ctx.db, queueId, ctx.nowSeconds()));
  };
  const deliver = (): QueueEvent[] =>
    ctx.tx(() => {
      touchQueue(ctx.db, queueId, ctx.nowSeconds());
      return pendingEvents(ctx.db, queueId);
    });
  /** What the poll answers now, or null to keep waiting. */
  const outcome = (): QueueEvent[] | null => {
    if (ctx.signal.aborted) return [];
    if (!queueExists(ctx.db, queueId, ctx.nowSeconds())) throw badQueue(queueId);
    if (hasPendingEvents(ctx.db, queueId)) return deliver();
    keepAlive();
    if (ctx.clock.nowMs() - sinceMs < heartbeatAfterMs) return null;
    ctx.tx(() => pushHeartbeat(ctx.db, queueId));
    return deliver();
  };
  return new Promise((resolve, reject) => {
    let done = false;
    const check = () => {
      if (done) return;
      try {
        const events = outcome();
        if (events === null) return;
        stop();
        resolve(events);
      } catch (e) {
        stop();
        reject(e);
      }
    };
    const stopListening = onQueueEvent(queueId, check);
    const timer = setInterval(check, STORE_POLL_MS);
    ctx.signal.addEventListener('abort', check, { once: true });
    const stop = () => {
      done = true;
      stopListening();
      clearInterval(timer);
      ctx.signal.removeEventListener('abort', check);
    };
    check();
  });
}

export const handlers: Handlers<'events'> = {
  register: bind(register, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    const now = ctx.nowSeconds();
    if (p.all_public_streams && isGuest(me)) throw badRequest('User not authorized for this query');
    const narrow = eventNarrow(p.narrow);
    expireQueues(db, now);
    const queueId = createQueue(db, {
      userId: me.id,
      eventTypes: p.event_types ?? null,
      options: {
        apply_markdown: p.apply_markdown,
        client_gravatar: p.client_gravatar,
        slim_presence: p.slim_presence,
        all_public_streams: p.all_public_streams,
        include_subscribers: p.include_subscribers,
        client_capabilities: p.client_capabilities,
        narrow,
      },
      watchesPublicChannels: p.all_public_streams || narrow.length > 0,
      lifespanSecs: p.idle_queue_timeout ?? p.queue_lifespan_secs,
      now,
    });
    const fetch = p.fetch_event_types ?? p.event_types;
    const level = featureLevel(db);
    const state = initialState(db, {
      level,
      user: me,
      fetch: fetch ? new Set(fetch) : null,
      clientGravatar: p.client_gravatar,
      slimPresence: p.slim_presence,
      presenceHistoryLimitDays: p.presence_history_limit_days,
      includeSubscribers: p.include_subscribers,
      capabilities: p.client_capabilities,
      realmUrl: ctx.realmUrl,
      now,
      serverTimestamp: serverTimestamp(ctx.clock),
    });
    return { queue_id: queueId, last_event_id: -1, ...versionFields(level), ...state };
  }),

  getEvents: bindAsync(getEvents, async (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    if (p.queue_id === undefined) {
      if (!p.dont_block) throw badRequest("Missing 'queue_id' argument");
      const queueId = ctx.tx(() => {
        expireQueues(db, ctx.nowSeconds());
        // GET /events's own defaults (apply_markdown and client_gravatar false), as a server makes such a queue.
        const options = { apply_markdown: false, client_gravatar: false };
        return createQueue(db, { userId: me.id, eventTypes: p.event_types ?? null, options, lifespanSecs: 0, now: ctx.nowSeconds() });
      });
      return { events: [], queue_id: queueId };
    }
    const lastEventId = p.last_event_id;
    if (lastEventId === undefined) throw badRequest("Missing 'last_event_id' argument");
    const queueId = p.queue_id;
    const sinceMs = ctx.clock.nowMs();
    const events = ctx.tx(() => {
      expireQueues(db, ctx.nowSeconds());
      acknowledge(db, ownQueue(db, queueId, me.id, ctx.nowSeconds()), lastEventId);
      touchQueue(db, queueId, ctx.nowSeconds());
      return pendingEvents(db, queueId);
    });
    if (events.length || p.dont_block) return { events };
    return { events: await waitForEvents(ctx, queueId, sinceMs) };
  }),

  deleteQueue: bind(deleteQueueOp, (ctx, p) => {
    const db = ctx.db;
    expireQueues(db, ctx.nowSeconds());
    deleteQueue(db, ownQueue(db, p.queue_id, callerOf(ctx).id, ctx.nowSeconds()).id);
    return {};
  }),
};
