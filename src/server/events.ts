/**
 * Event queues in the store. Emitting appends a row per interested queue inside the emitting request's
 * transaction, so an event exists exactly when the change it reports does. Waiters in this process are
 * woken at once; waiters in other processes see the row on their next poll.
 */
import { EventEmitter } from 'node:events';
import type { Db } from './store/db.js';

export interface QueueRow {
  id: string;
  user_id: number;
  event_types: string | null;
  options: string;
  lifespan_secs: number;
  last_access: number;
  last_event_id: number;
  pruned_through: number;
}

/** Idle lifetime of a queue with no client polling it, as on a Zulip server (10 minutes). */
export const DEFAULT_QUEUE_LIFESPAN_SECS = 600;
export const MAX_QUEUE_LIFESPAN_SECS = 7 * 24 * 3600;

const wakeups = new EventEmitter();
wakeups.setMaxListeners(0);

export function onQueueEvent(queueId: string, listener: () => void): () => void {
  wakeups.on(queueId, listener);
  return () => wakeups.off(queueId, listener);
}

export function emitEvent(db: Db, event: Record<string, unknown> & { type: string }, userIds: Iterable<number>): void {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return;
  const queues = db
    .prepare('SELECT id, event_types, last_event_id FROM event_queues WHERE user_id IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(ids)) as Pick<QueueRow, 'id' | 'event_types' | 'last_event_id'>[];
  const insert = db.prepare('INSERT INTO events (queue_id, id, event) VALUES (?, ?, ?)');
  const advance = db.prepare('UPDATE event_queues SET last_event_id = ? WHERE id = ?');
  const json = JSON.stringify(event);
  const woken: string[] = [];
  for (const q of queues) {
    if (q.event_types !== null && !(JSON.parse(q.event_types) as string[]).includes(event.type)) continue;
    const id = q.last_event_id + 1;
    insert.run(q.id, id, json);
    advance.run(id, q.id);
    woken.push(q.id);
  }
  // Wake after the caller's transaction has had its chance to commit.
  if (woken.length) setImmediate(() => woken.forEach((id) => wakeups.emit(id)));
}

/** Deletes queues idle past their lifespan (their events go with them). */
export function expireQueues(db: Db, now: number): void {
  db.prepare('DELETE FROM event_queues WHERE last_access + lifespan_secs < ?').run(Math.floor(now));
}
