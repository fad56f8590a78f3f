/**
 * Event queues in the store. Emitting appends a row per interested queue inside the emitting request's
 * transaction, so an event exists exactly when the change it reports does. Waiters in this process are
 * woken at once; waiters in other processes see the row on their next poll.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { ApiError, badRequest } from '../api/errors.js';
import type { Db } from './store/db.js';

export interface QueueRow {
  id: string;
  user_id: number;
  event_types: string | null;
  options: string;
  lifespan_secs: number;
  last_access: number;
  last_event_id: number;
  /** The newest event ID acknowledged (and deleted) so far; -1 before the first. */
  pruned_through: number;
}

/** An event as a queue hands it out. */
export type StoredEvent = Record<string, unknown> & { type: string; id: number };

/** Idle lifetime of a queue with no client polling it, as on a Zulip server (10 minutes). */
export const DEFAULT_QUEUE_LIFESPAN_SECS = 600;
export const MAX_QUEUE_LIFESPAN_SECS = 7 * 24 * 3600;

const wakeups = new EventEmitter();
wakeups.setMaxListeners(0);

export function onQueueEvent(queueId: string, listener: () => void): () => void {
  wakeups.on(queueId, listener);
  return () => wakeups.off(queueId, listener);
}

/** Queue options that decide whether a queue receives an event, and in which form. */
interface DeliveryOptions {
  client_capabilities?: Record<string, boolean>;
  apply_markdown?: boolean;
  client_gravatar?: boolean;
}

/**
 * Events some clients must not get: linkifier lists only go to clients that understand URL templates, and
 * channel typing only to clients that declared `stream_typing_notifications` (older ones take every typing
 * event for a direct message).
 */
function wants(q: Pick<QueueRow, 'event_types' | 'options'>, event: Record<string, unknown> & { type: string }): boolean {
  if (q.event_types !== null && !(JSON.parse(q.event_types) as string[]).includes(event.type)) return false;
  if (event.type === 'realm_linkifiers') return capabilities(q).linkifier_url_template === true;
  if (event.type === 'typing' && 'stream_id' in event) return capabilities(q).stream_typing_notifications === true;
  return true;
}

const capabilities = (q: Pick<QueueRow, 'options'>): Record<string, boolean> =>
  (JSON.parse(q.options) as DeliveryOptions).client_capabilities ?? {};

/**
 * Queues `event` for the users' queues that want it. Given the time, queues idle past their lifespan are
 * skipped: they are dead, only not yet deleted (that happens on the next register, poll or delete), and
 * would otherwise keep growing as long as nobody registers.
 */
export function emitEvent(db: Db, event: Record<string, unknown> & { type: string }, userIds: Iterable<number>, now?: number): void {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return;
  const queues = db
    .prepare(
      `SELECT id, event_types, options, last_event_id FROM event_queues WHERE user_id IN (SELECT value FROM json_each(?))
       AND (? IS NULL OR last_access + lifespan_secs >= ?)`,
    )
    .all(JSON.stringify(ids), now ?? null, now === undefined ? null : Math.floor(now)) as Pick<QueueRow, 'id' | 'event_types' | 'options' | 'last_event_id'>[];
  const plain = JSON.stringify(event);
  const woken: string[] = [];
  for (const q of queues) {
    if (!wants(q, event)) continue;
    appendEvent(db, q, event.type === 'message' ? JSON.stringify(messageEventFor(db, event, JSON.parse(q.options) as DeliveryOptions)) : plain);
    woken.push(q.id);
  }
  // Wake after the caller's transaction has had its chance to commit.
  if (woken.length) setImmediate(() => woken.forEach((id) => wakeups.emit(id)));
}

/**
 * A message event as the queue registered for it: rendered HTML or the raw Markdown (apply_markdown, false
 * by default at registration), Gravatar URLs left to the client (client_gravatar), and the empty topic as
 * `""` for clients that declared `empty_topic_name` (others get its display name).
 */
function messageEventFor(db: Db, event: Record<string, unknown>, o: DeliveryOptions): Record<string, unknown> {
  const message = { ...(event.message as Record<string, unknown>) };
  if (o.client_capabilities?.empty_topic_name === true && message.type === 'stream') {
    message.subject = db.prepare('SELECT topic FROM messages WHERE id = ?').pluck().get(message.id) ?? message.subject;
  }
  if (o.apply_markdown === false) {
    message.content = db.prepare('SELECT content FROM messages WHERE id = ?').pluck().get(message.id) ?? message.content;
    message.content_type = 'text/x-markdown';
  }
  if (o.client_gravatar === true && typeof message.avatar_url === 'string' && message.avatar_url.startsWith('https://secure.gravatar.com/')) {
    message.avatar_url = null;
  }
  return { ...event, message };
}

function appendEvent(db: Db, q: Pick<QueueRow, 'id' | 'last_event_id'>, json: string): number {
  const id = q.last_event_id + 1;
  db.prepare('INSERT INTO events (queue_id, id, event) VALUES (?, ?, ?)').run(q.id, id, json);
  db.prepare('UPDATE event_queues SET last_event_id = ? WHERE id = ?').run(id, q.id);
  return id;
}

/** Deletes queues idle past their lifespan (their events go with them). */
export function expireQueues(db: Db, now: number): void {
  db.prepare('DELETE FROM event_queues WHERE last_access + lifespan_secs < ?').run(Math.floor(now));
}

export interface NewQueue {
  userId: number;
  /** null: every type. */
  eventTypes: string[] | null;
  options: Record<string, unknown>;
  /** 0: the default. */
  lifespanSecs: number;
  now: number;
}

export function createQueue(db: Db, q: NewQueue): string {
  const id = randomUUID();
  const lifespan = Math.min(q.lifespanSecs > 0 ? q.lifespanSecs : DEFAULT_QUEUE_LIFESPAN_SECS, MAX_QUEUE_LIFESPAN_SECS);
  db.prepare('INSERT INTO event_queues (id, user_id, event_types, options, lifespan_secs, last_access) VALUES (?, ?, ?, ?, ?, ?)').run(
    id,
    q.userId,
    q.eventTypes === null ? null : JSON.stringify(q.eventTypes),
    JSON.stringify(q.options),
    lifespan,
    Math.floor(q.now),
  );
  return id;
}

export const badQueue = (queueId: string): ApiError =>
  new ApiError(`Bad event queue ID: ${queueId}`, 'BAD_EVENT_QUEUE_ID', 400, { queue_id: queueId });

/** The caller's queue; another user's queue is as unknown as a missing one. */
export function ownQueue(db: Db, queueId: string, userId: number): QueueRow {
  const q = db.prepare('SELECT * FROM event_queues WHERE id = ?').get(queueId) as QueueRow | undefined;
  if (!q || q.user_id !== userId) throw badQueue(queueId);
  return q;
}

/**
 * Acknowledges every event up to `lastEventId`, as Tornado's queue does: asking for an ID older than one
 * already pruned, or one that was never in the queue, is an error.
 */
export function acknowledge(db: Db, q: QueueRow, lastEventId: number): void {
  if (lastEventId < q.pruned_through) throw badRequest(`An event newer than ${lastEventId} has already been pruned!`);
  const newest = db.prepare('SELECT max(id) AS id FROM events WHERE queue_id = ? AND id <= ?').get(q.id, lastEventId) as { id: number | null };
  const prunedThrough = newest.id ?? q.pruned_through;
  if (newest.id !== null) {
    db.prepare('DELETE FROM events WHERE queue_id = ? AND id <= ?').run(q.id, lastEventId);
    db.prepare('UPDATE event_queues SET pruned_through = ? WHERE id = ?').run(prunedThrough, q.id);
  }
  if (lastEventId !== prunedThrough) throw badRequest(`Event ${lastEventId} was not in this queue`);
}

export function touchQueue(db: Db, queueId: string, now: number): void {
  db.prepare('UPDATE event_queues SET last_access = ? WHERE id = ?').run(Math.floor(now), queueId);
}

export function pendingEvents(db: Db, queueId: string): StoredEvent[] {
  const rows = db.prepare('SELECT id, event FROM events WHERE queue_id = ? ORDER BY id').all(queueId) as { id: number; event: string }[];
  return rows.map((r) => ({ ...(JSON.parse(r.event) as { type: string }), id: r.id }));
}

/** Adds a heartbeat to one queue, so an idle long poll answers with it. */
export function pushHeartbeat(db: Db, queueId: string): void {
  const q = db.prepare('SELECT id, last_event_id FROM event_queues WHERE id = ?').get(queueId) as Pick<QueueRow, 'id' | 'last_event_id'> | undefined;
  if (q) appendEvent(db, q, JSON.stringify({ type: 'heartbeat' }));
}

/** Deletes a queue and wakes whoever waits on it in this process, so the wait ends. */
export function deleteQueue(db: Db, queueId: string): void {
  db.prepare('DELETE FROM event_queues WHERE id = ?').run(queueId);
  setImmediate(() => wakeups.emit(queueId));
}

export const queueExists = (db: Db, queueId: string): boolean => db.prepare('SELECT 1 FROM event_queues WHERE id = ?').get(queueId) !== undefined;
