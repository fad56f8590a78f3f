/**
 * Events as tests watch them: queues made straight in the store (so a test sees exactly what was emitted
 * to one user, whatever the transport), queues registered through the API, and the OpenAPI check of an event.
 */
import { getEvents, register, type QueueEvent } from '../../src/api/operations/events.js';
import type { CallParamsOf } from '../../src/api/operation.js';
import type { ChatClient } from '../../src/client/client.js';
import { acknowledge, createQueue, pendingEvents, type QueueRow } from '../../src/server/model/event-queues.js';
import { openapiErrors } from './openapi.js';
import type { TestOrg, TestUser } from './org.js';

/** An event as the store keeps it: without its ID. */
export type StoredEvent = Record<string, unknown> & { type: string };

export interface QueueOptions {
  /** The event types it receives (default: all). */
  eventTypes?: string[];
  /** What the client registered with: client_capabilities, apply_markdown ... */
  options?: Record<string, unknown>;
  /** Its last access, in seconds (default: the organization's clock). The CLI runs on the real clock. */
  lastAccess?: number;
}

/** A queue of `user`'s made in the store; returns its ID. */
export function openQueue(org: TestOrg, user: TestUser, o: QueueOptions = {}): string {
  return createQueue(org.db, {
    userId: user.id,
    eventTypes: o.eventTypes ?? null,
    options: o.options ?? {},
    lifespanSecs: 600,
    now: o.lastAccess ?? org.clock.now(),
  });
}

/** Reads the queue's pending events and acknowledges them, as a client's next poll would. */
function takeRows(org: TestOrg, queueId: string): { id: number; event: StoredEvent }[] {
  const rows = pendingEvents(org.db, queueId);
  const queue = org.db.prepare('SELECT * FROM event_queues WHERE id = ?').get(queueId) as QueueRow;
  if (rows.length) acknowledge(org.db, queue, rows[rows.length - 1]!.id);
  return rows.map(({ id, ...event }) => ({ id, event }));
}

/** The events the queue has received since the last take, oldest first; they are removed from it. */
export const takeEvents = (org: TestOrg, queueId: string): StoredEvent[] => takeRows(org, queueId).map((r) => r.event);

/** As `takeEvents`, each with its event ID, as GET /events would give it. */
export const takeNumberedEvents = (org: TestOrg, queueId: string): QueueEvent[] => takeRows(org, queueId).map((r) => ({ ...r.event, id: r.id }));

/** Errors of one event against the GET /events description (an event from the store gets ID 0). */
export const eventErrors = (event: StoredEvent) =>
  openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: [{ id: 0, ...event }], queue_id: 'q' });

/**
 * Registers a queue of `client`'s user for these event types, with no initial state fetched, and returns
 * a reader of everything it has received so far.
 */
export async function listen(
  client: ChatClient,
  eventTypes: string[],
  params: Omit<CallParamsOf<typeof register>, 'event_types'> = {},
): Promise<() => Promise<QueueEvent[]>> {
  const { queue_id } = await client.call(register, { event_types: eventTypes, fetch_event_types: [], ...params });
  return async () => (await client.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true })).events;
}
