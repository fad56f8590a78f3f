/**
 * Event queues in the store. Emitting stores the event's body once per form and appends a reference per
 * interested queue inside the emitting request's transaction, so an event exists exactly when the change
 * it reports does. Waiters in this process are woken at once; waiters in other processes see the row on
 * their next poll.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { ApiError, badRequest } from '../../api/errors.js';
import { ROLE } from '../../api/roles.js';
import type { Db } from '../store/db.js';
import { statement } from '../store/statements.js';
import { matchesEventNarrow, type EventNarrow, type NarrowedMessage } from './event-narrow.js';
import type { Viewer } from './users.js';

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
  /** 1: dropped (over its bound, or pushed out by newer queues); polls are refused until cleanup deletes it. */
  dead: number;
  /** 1: takes public channels' messages without a subscription (`all_public_streams`, or a narrow). */
  watches_public: number;
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

/**
 * The active users with a queue, as viewers: the only users an event for everyone can reach. Events to the
 * whole organization are addressed to them, so their cost follows the clients connected, not the accounts
 * (reading every active user made creating one account cost the size of the organization).
 */
export const listeningViewers = (db: Db): Viewer[] =>
  statement(db, 'SELECT id, role FROM users WHERE id IN (SELECT user_id FROM event_queues WHERE dead = 0) AND is_active = 1').all() as Viewer[];

export const listeningUserIds = (db: Db): number[] => listeningViewers(db).map((v) => v.id);

/**
 * The users, other than `recipients`, with a queue that takes every public channel's messages: Tornado's
 * realm_clients_all_streams, which holds the queues registered with `all_public_streams` **or with any
 * narrow** (zerver/tornado/event_queue.py add_to_client_dicts). Guests are left out, unlike on a Zulip
 * server: there a guest's narrowed queue gets messages of public channels the guest may not read. Found by
 * a partial index, so the cost follows those queues, not the organization.
 */
export function publicChannelWatcherIds(db: Db, recipients: readonly number[]): number[] {
  const watchers = statement(
    db,
    `SELECT DISTINCT q.user_id FROM event_queues q JOIN users u ON u.id = q.user_id
     WHERE q.watches_public = 1 AND q.dead = 0 AND u.is_active = 1 AND u.role != ?`,
  )
    .pluck()
    .all(ROLE.guest) as number[];
  // Usually none: then the recipients, perhaps a whole organization, are not looked at.
  if (watchers.length === 0) return [];
  const received = new Set(recipients);
  return watchers.filter((id) => !received.has(id));
}

/** Queue options that decide whether a queue receives an event, and in which form. */
interface DeliveryOptions {
  client_capabilities?: Record<string, boolean>;
  apply_markdown?: boolean;
  client_gravatar?: boolean;
  narrow?: EventNarrow;
}

/**
 * Fields a model sets on an event only to choose its audience here; no client gets them (Zulip's
 * InternalStreamDeleteEvent and InternalStreamCreateEvent carry them to Tornado, which drops them).
 * `for_public_watchers` marks a public channel's message sent to users who are not its recipients: only
 * their queues that watch public channels take it.
 */
const INTERNAL_FIELDS = ['for_archiving', 'for_unarchiving', 'for_public_watchers'] as const;

/**
 * Events some clients must not get: linkifier lists only go to clients that understand URL templates, and
 * channel typing only to clients that declared `stream_typing_notifications` (older ones take every typing
 * event for a direct message). Archiving or unarchiving a channel sends both forms and each client takes
 * one (API changelog, feature level 378): an `is_archived` update for clients that declared
 * `archived_channels`, the `delete` or `create` for the others.
 */
function wants(q: Pick<QueueRow, 'event_types' | 'watches_public'>, o: DeliveryOptions, event: Record<string, unknown> & { type: string }): boolean {
  if (q.event_types !== null && !(JSON.parse(q.event_types) as string[]).includes(event.type)) return false;
  if (event.for_public_watchers === true && q.watches_public !== 1) return false;
  if (event.type === 'realm_linkifiers') return o.client_capabilities?.linkifier_url_template === true;
  if (event.type === 'typing' && 'stream_id' in event) return o.client_capabilities?.stream_typing_notifications === true;
  if (event.type === 'stream') {
    const keepsArchived = o.client_capabilities?.archived_channels === true;
    if (event.op === 'update' && event.property === 'is_archived') return keepsArchived;
    if (INTERNAL_FIELDS.some((f) => event[f] === true)) return !keepsArchived;
  }
  return true;
}

/** The event as clients see it: without the fields that only chose its audience. */
function withoutInternalFields(event: Record<string, unknown>): Record<string, unknown> {
  if (!INTERNAL_FIELDS.some((f) => f in event)) return event;
  const body = { ...event };
  for (const f of INTERNAL_FIELDS) delete body[f];
  return body;
}

/**
 * Bounds of a user's queues. A Zulip server has neither (zerver/tornado/event_queue.py keeps every queue
 * until it is idle for its lifespan, and a queue's deque has no length limit): it relies on Tornado's memory
 * and on the 10-minute default lifespan. Here queues live in the store, a lifespan can be a week, and a
 * guest can register queues in a loop, so both are bounded: a user's oldest idle queues make room for new
 * ones, and a queue nobody drains is dropped (its next poll gets BAD_EVENT_QUEUE_ID, and a client
 * registers again, as it does after a server restart).
 */
export const MAX_QUEUES_PER_USER = 50;
export const MAX_PENDING_EVENTS = 10_000;
/** Dead or expired queues deleted per request: bounded work in one user's request (serve sweeps the rest). */
const EXPIRE_PER_REQUEST = 4;

/** The variant of an event a queue gets: message events are rendered for the queue's options. */
function formOf(o: DeliveryOptions, event: { type: string }): string {
  if (event.type !== 'message') return '';
  return [o.apply_markdown === false, o.client_gravatar === true, o.client_capabilities?.empty_topic_name === true].map(Number).join('');
}

/**
 * Queues `event` for the users' queues that want it: its body is stored once per form, each queue gets a
 * reference. Given the time, queues idle past their lifespan are skipped: they are dead, only not yet
 * deleted, and would otherwise keep growing as long as nobody registers. A queue with a narrow takes only
 * the message events that match it, read in the form the queue gets (zerver/tornado/event_queue.py
 * ClientDescriptor.accepts_event); every other event type reaches it unfiltered, as on a Zulip server.
 */
export function emitEvent(db: Db, event: Record<string, unknown> & { type: string }, userIds: Iterable<number>, now?: number): void {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return;
  const queues = statement(
    db,
    `SELECT id, event_types, options, last_event_id, pruned_through, watches_public FROM event_queues
     WHERE user_id IN (SELECT value FROM json_each(?)) AND dead = 0 AND (? IS NULL OR last_access + lifespan_secs >= ?)`,
  ).all(JSON.stringify(ids), now ?? null, now === undefined ? null : Math.floor(now)) as Pick<
    QueueRow,
    'id' | 'event_types' | 'options' | 'last_event_id' | 'pruned_through' | 'watches_public'
  >[];
  // Queues of one kind of client share their options text: each distinct one is parsed once per event.
  const parsed = new Map<string, DeliveryOptions>();
  const optionsOf = (q: Pick<QueueRow, 'options'>): DeliveryOptions => {
    let o = parsed.get(q.options);
    if (!o) {
      o = JSON.parse(q.options) as DeliveryOptions;
      parsed.set(q.options, o);
    }
    return o;
  };
  const bodies = new Map<string, { body: Record<string, unknown>; payloadId?: number }>();
  const formFor = (o: DeliveryOptions) => {
    const form = formOf(o, event);
    let f = bodies.get(form);
    if (!f) {
      f = { body: withoutInternalFields(event.type === 'message' ? messageEventFor(db, event, o) : event) };
      bodies.set(form, f);
    }
    return f;
  };
  const payloadFor = (o: DeliveryOptions): number => {
    const f = formFor(o);
    f.payloadId ??= storePayload(db, JSON.stringify(f.body));
    return f.payloadId;
  };
  const passesNarrow = (o: DeliveryOptions): boolean => {
    if (event.type !== 'message' || !o.narrow?.length) return true;
    const body = formFor(o).body;
    return matchesEventNarrow(o.narrow, body.message as NarrowedMessage, body.flags as string[]);
  };
  const woken: string[] = [];
  const appended: [queueId: string, eventId: number, payloadId: number][] = [];
  const kill = statement(db, 'UPDATE event_queues SET dead = 1 WHERE id = ?');
  for (const q of queues) {
    const options = optionsOf(q);
    if (!wants(q, options, event) || !passesNarrow(options)) continue;
    woken.push(q.id);
    // A queue nobody drains would hold its events for as long as it lives: past its bound it is dropped.
    if (q.last_event_id - q.pruned_through >= MAX_PENDING_EVENTS) kill.run(q.id);
    else appended.push([q.id, q.last_event_id + 1, payloadFor(options)]);
  }
  if (appended.length) appendEvents(db, appended);
  // Wake after the caller's transaction has had its chance to commit.
  if (woken.length)
    setImmediate(() => {
      for (const id of woken) wakeups.emit(id);
    });
}

const storePayload = (db: Db, json: string): number => Number(statement(db, 'INSERT INTO event_payloads (event) VALUES (?)').run(json).lastInsertRowid);

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

/**
 * Appends one event to many queues in two statements, whatever their number: an event for a channel of
 * 10,000 subscribers ran two statements per queue. Each entry names a different queue.
 */
function appendEvents(db: Db, entries: readonly [queueId: string, eventId: number, payloadId: number][]): void {
  const list = JSON.stringify(entries);
  statement(
    db,
    `INSERT INTO queue_events (queue_id, id, payload_id)
     SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?)`,
  ).run(list);
  statement(
    db,
    `UPDATE event_queues SET last_event_id = e.id
     FROM (SELECT json_extract(value, '$[0]') AS queue_id, json_extract(value, '$[1]') AS id FROM json_each(?)) e
     WHERE event_queues.id = e.queue_id`,
  ).run(list);
}

/** Drops a queue's references up to `throughId` and the bodies nobody else references. */
function dropReferences(db: Db, queueId: string, throughId: number): void {
  const payloadIds = db.prepare('SELECT DISTINCT payload_id FROM queue_events WHERE queue_id = ? AND id <= ?').pluck().all(queueId, throughId);
  if (payloadIds.length === 0) return;
  db.prepare('DELETE FROM queue_events WHERE queue_id = ? AND id <= ?').run(queueId, throughId);
  db.prepare(
    `DELETE FROM event_payloads WHERE id IN (SELECT value FROM json_each(?))
     AND NOT EXISTS (SELECT 1 FROM queue_events WHERE payload_id = event_payloads.id)`,
  ).run(JSON.stringify(payloadIds));
}

function removeQueue(db: Db, queueId: string): void {
  dropReferences(db, queueId, Number.MAX_SAFE_INTEGER);
  db.prepare('DELETE FROM event_queues WHERE id = ?').run(queueId);
}

/**
 * Deletes up to `limit` queues that are dead or idle past their lifespan, with their events; returns how
 * many. Requests call it with a small limit; serve's sweep calls it until nothing is left.
 */
export function expireQueues(db: Db, now: number, limit = EXPIRE_PER_REQUEST): number {
  const ids = db
    .prepare('SELECT id FROM event_queues WHERE last_access + lifespan_secs < ? UNION SELECT id FROM event_queues WHERE dead = 1 LIMIT ?')
    .pluck()
    .all(Math.floor(now), limit) as string[];
  for (const id of ids) removeQueue(db, id);
  return ids.length;
}

export interface NewQueue {
  userId: number;
  /** null: every type. */
  eventTypes: string[] | null;
  options: Record<string, unknown>;
  /** Takes public channels' messages without a subscription (publicChannelWatcherIds). */
  watchesPublicChannels?: boolean;
  /** 0: the default. */
  lifespanSecs: number;
  now: number;
}

/** Creates a queue; a user at the bound loses their least recently used queues first. */
export function createQueue(db: Db, q: NewQueue): string {
  const id = randomUUID();
  const now = Math.floor(q.now);
  const live = db
    .prepare('SELECT count(*) FROM event_queues WHERE user_id = ? AND dead = 0 AND last_access + lifespan_secs >= ?')
    .pluck()
    .get(q.userId, now) as number;
  if (live >= MAX_QUEUES_PER_USER) {
    const evicted = db
      .prepare(
        `SELECT id FROM event_queues WHERE user_id = ? AND dead = 0 AND last_access + lifespan_secs >= ?
         ORDER BY last_access, rowid LIMIT ?`,
      )
      .pluck()
      .all(q.userId, now, live - MAX_QUEUES_PER_USER + 1) as string[];
    const kill = db.prepare('UPDATE event_queues SET dead = 1 WHERE id = ?');
    for (const e of evicted) kill.run(e);
    setImmediate(() => {
      for (const e of evicted) wakeups.emit(e);
    });
  }
  const lifespan = Math.min(q.lifespanSecs > 0 ? q.lifespanSecs : DEFAULT_QUEUE_LIFESPAN_SECS, MAX_QUEUE_LIFESPAN_SECS);
  db.prepare('INSERT INTO event_queues (id, user_id, event_types, options, lifespan_secs, last_access, watches_public) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    id,
    q.userId,
    q.eventTypes === null ? null : JSON.stringify(q.eventTypes),
    JSON.stringify(q.options),
    lifespan,
    now,
    q.watchesPublicChannels ? 1 : 0,
  );
  return id;
}

export const badQueue = (queueId: string): ApiError => new ApiError(`Bad event queue ID: ${queueId}`, 'BAD_EVENT_QUEUE_ID', 400, { queue_id: queueId });

/** A queue that polls may still use: not dropped, not idle past its lifespan (deleted or not yet). */
function liveQueue(db: Db, queueId: string, now: number): QueueRow | undefined {
  const q = statement(db, 'SELECT * FROM event_queues WHERE id = ?').get(queueId) as QueueRow | undefined;
  return q && q.dead === 0 && q.last_access + q.lifespan_secs >= Math.floor(now) ? q : undefined;
}

/** The caller's queue; another user's queue, or a dropped or expired one, is as unknown as a missing one. */
export function ownQueue(db: Db, queueId: string, userId: number, now: number): QueueRow {
  const q = liveQueue(db, queueId, now);
  if (!q || q.user_id !== userId) throw badQueue(queueId);
  return q;
}

/**
 * Acknowledges every event up to `lastEventId`, as Tornado's queue does: asking for an ID older than one
 * already pruned, or one that was never in the queue, is an error.
 */
export function acknowledge(db: Db, q: QueueRow, lastEventId: number): void {
  if (lastEventId < q.pruned_through) throw badRequest(`An event newer than ${lastEventId} has already been pruned!`);
  const newest = db.prepare('SELECT max(id) AS id FROM queue_events WHERE queue_id = ? AND id <= ?').get(q.id, lastEventId) as { id: number | null };
  const prunedThrough = newest.id ?? q.pruned_through;
  if (newest.id !== null) {
    dropReferences(db, q.id, lastEventId);
    db.prepare('UPDATE event_queues SET pruned_through = ? WHERE id = ?').run(prunedThrough, q.id);
  }
  if (lastEventId !== prunedThrough) throw badRequest(`Event ${lastEventId} was not in this queue`);
}

/** A queue's idle lifetime in seconds; 0 for a queue that is gone. */
export const queueLifespanSecs = (db: Db, queueId: string): number =>
  (db.prepare('SELECT lifespan_secs FROM event_queues WHERE id = ?').pluck().get(queueId) as number | undefined) ?? 0;

export function touchQueue(db: Db, queueId: string, now: number): void {
  statement(db, 'UPDATE event_queues SET last_access = ? WHERE id = ?').run(Math.floor(now), queueId);
}

/** Whether the queue holds an event, without reading any (a waiting poll asks on every wake-up). */
export const hasPendingEvents = (db: Db, queueId: string): boolean =>
  statement(db, 'SELECT 1 FROM queue_events WHERE queue_id = ? LIMIT 1').get(queueId) !== undefined;

export function pendingEvents(db: Db, queueId: string): StoredEvent[] {
  const rows = db
    .prepare('SELECT q.id, p.event FROM queue_events q JOIN event_payloads p ON p.id = q.payload_id WHERE q.queue_id = ? ORDER BY q.id')
    .all(queueId) as { id: number; event: string }[];
  return rows.map((r) => ({ ...(JSON.parse(r.event) as { type: string }), id: r.id }));
}

/** Adds a heartbeat to one queue, so an idle long poll answers with it. */
export function pushHeartbeat(db: Db, queueId: string): void {
  const q = db.prepare('SELECT id, last_event_id FROM event_queues WHERE id = ?').get(queueId) as Pick<QueueRow, 'id' | 'last_event_id'> | undefined;
  if (q) appendEvents(db, [[q.id, q.last_event_id + 1, storePayload(db, JSON.stringify({ type: 'heartbeat' }))]]);
}

/** Deletes a queue and wakes whoever waits on it in this process, so the wait ends. */
export function deleteQueue(db: Db, queueId: string): void {
  removeQueue(db, queueId);
  setImmediate(() => wakeups.emit(queueId));
}

/** Deletes all of a user's queues (a deactivated account's), as deleteQueue does each. */
export function deleteQueuesOf(db: Db, userId: number): void {
  const ids = db.prepare('SELECT id FROM event_queues WHERE user_id = ?').pluck().all(userId) as string[];
  for (const id of ids) deleteQueue(db, id);
}

export const queueExists = (db: Db, queueId: string, now: number): boolean => liveQueue(db, queueId, now) !== undefined;
