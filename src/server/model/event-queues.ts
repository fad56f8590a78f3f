/**
 * Event queues in the store. Each user has one log of events, shared by the user's queues: emitting appends
 * a row to each recipient's log (and stores the body once per form) inside the emitting request's
 * transaction, so an event exists exactly when the change it reports does, and costs the same however many
 * queues a user has. A queue keeps how far into the log it has read and the last ID it acknowledged; it picks
 * its events when it reads. Waiters in this process are woken at once; waiters in other processes see the
 * row on their next poll.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { ApiError, badRequest } from '../../api/errors.js';
import { ROLE } from '../../api/roles.js';
import type { Db } from '../store/db.js';
import { matchesEventNarrow, type EventNarrow, type NarrowedMessage } from './event-narrow.js';
import { userById, type Viewer } from './users.js';
import { getSetting } from './realm.js';
import { leavesGravatarToClient } from './user-view.js';
import { limitClause } from '../store/limit-clause.js';

export interface QueueRow {
  id: string;
  user_id: number;
  event_types: string | null;
  options: string;
  lifespan_secs: number;
  last_access: number;
  /** The newest event ID acknowledged so far; -1 before the first. The queue's next event gets the next ID. */
  pruned_through: number;
  /** The position in its user's log up to which the queue has nothing left to hand out. */
  read_through: number;
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
  db.prepare('SELECT id, role FROM users WHERE id IN (SELECT user_id FROM event_queues WHERE dead = 0) AND is_active = 1').all() as Viewer[];

export const listeningUserIds = (db: Db): number[] => listeningViewers(db).map((v) => v.id);

/**
 * The users, other than `recipients`, with a queue that takes every public channel's messages: Tornado's
 * realm_clients_all_streams, which holds the queues registered with `all_public_streams` **or with any
 * narrow** (zerver/tornado/event_queue.py add_to_client_dicts). Guests are left out, unlike on a Zulip
 * server: there a guest's narrowed queue gets messages of public channels the guest may not read. Found by
 * a partial index, so the cost follows those queues, not the organization.
 */
export function publicChannelWatcherIds(db: Db, recipients: readonly number[]): number[] {
  const watchers = db
    .prepare(`SELECT DISTINCT q.user_id FROM event_queues q JOIN users u ON u.id = q.user_id
     WHERE q.watches_public = 1 AND q.dead = 0 AND u.is_active = 1 AND u.role != ?`)
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
 * their queues that watch public channels take it. `keeps_deactivated_groups` sends a user group event only
 * to queues whose `include_deactivated_groups` capability is the same.
 */
const INTERNAL_FIELDS = ['for_archiving', 'for_unarchiving', 'for_public_watchers', 'keeps_deactivated_groups'] as const;

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
  // A user group event marked for one kind of client (model/group-edits.ts): deactivated groups kept or not.
  if (event.type === 'user_group' && typeof event.keeps_deactivated_groups === 'boolean') {
    return (o.client_capabilities?.include_deactivated_groups === true) === event.keeps_deactivated_groups;
  }
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
 * ones, and a queue nobody drains is dropped once it holds MAX_PENDING_EVENTS of its user's log unread (its
 * next poll gets BAD_EVENT_QUEUE_ID, and a client registers again, as it does after a server restart).
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

/** What emitting reads of each recipient's queues: enough to choose, bound and wake them. */
type LogQueue = Pick<QueueRow, 'id' | 'user_id' | 'event_types' | 'options' | 'read_through' | 'watches_public'>;

/** Whether a queue takes an event of its user's log, in the form the queue reads it. */
function takes(q: LogQueue, o: DeliveryOptions, body: Record<string, unknown> & { type: string }): boolean {
  if (!wants(q, o, body)) return false;
  if (body.type !== 'message' || !o.narrow?.length) return true;
  return matchesEventNarrow(o.narrow, body.message as NarrowedMessage, body.flags as string[]);
}

/**
 * Appends `event` to the log of each user with a queue that takes it: one row per such user, however many
 * queues the user has, and its body once per form those queues read. Queues pick their events when they read
 * (takes), as Tornado's ClientDescriptor.accepts_event decides per queue (zerver/tornado/event_queue.py); a
 * queue with a narrow takes only the message events that match it, every other event type unfiltered. Given
 * the time, queues idle past their lifespan take nothing.
 */
export function emitEvent(db: Db, event: Record<string, unknown> & { type: string }, userIds: Iterable<number>, now?: number): void {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return;
  const queues = db
    .prepare(`SELECT id, user_id, event_types, options, read_through, watches_public FROM event_queues
     WHERE user_id IN (SELECT value FROM json_each(?)) AND dead = 0 AND (? IS NULL OR last_access + lifespan_secs >= ?)
     ORDER BY user_id`)
    .all(JSON.stringify(ids), now ?? null, now === undefined ? null : Math.floor(now)) as LogQueue[];
  if (queues.length === 0) return;
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
  let eventId: number | undefined;
  const bodies = new Map<string, { json: string; body: Record<string, unknown> & { type: string }; stored: boolean }>();
  const formFor = (o: DeliveryOptions) => {
    const form = formOf(o, event);
    let f = bodies.get(form);
    if (!f) {
      // Chosen on the body as readers will parse it, so that emitting and reading never disagree.
      const json = JSON.stringify(event.type === 'message' ? messageEventFor(db, event, o) : event);
      f = { json, body: JSON.parse(json) as Record<string, unknown> & { type: string }, stored: false };
      bodies.set(form, f);
    }
    return { form, f };
  };
  const woken: string[] = [];
  const rows: [userId: number, n: number, eventId: number][] = [];
  for (let i = 0; i < queues.length; ) {
    const userId = queues[i]!.user_id;
    const mine: LogQueue[] = [];
    for (; i < queues.length && queues[i]!.user_id === userId; i++) mine.push(queues[i]!);
    const taking = mine.filter((q) => takes(q, optionsOf(q), formFor(optionsOf(q)).f.body));
    if (taking.length === 0) continue;
    const n = newestInLog(db, userId) + 1;
    const dropped = boundQueues(db, mine, n - 1);
    eventId ??= nextEventId(db);
    for (const q of taking) {
      if (dropped.has(q.id)) continue;
      const { form, f } = formFor(optionsOf(q));
      if (!f.stored) {
        // Stored with the fields that chose its audience: readers decide with them, and drop them (withoutInternalFields).
        db.prepare('INSERT INTO event_bodies (event_id, form, body) VALUES (?, ?, ?)').run(eventId, form, f.json);
        f.stored = true;
      }
    }
    rows.push([userId, n, eventId]);
    woken.push(...taking.map((q) => q.id), ...dropped);
  }
  if (rows.length)
    db.prepare(`INSERT INTO user_events (user_id, n, event_id)
       SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?)`).run(JSON.stringify(rows));
  // Wake after the caller's transaction has had its chance to commit.
  if (woken.length)
    setImmediate(() => {
      for (const id of woken) wakeups.emit(id);
    });
}

/**
 * The newest position in a user's log: its last row's, or, once every queue has read and pruned everything,
 * the furthest a queue has read (the next row must come after every queue's position). 0 for a user with
 * neither.
 */
const newestInLog = (db: Db, userId: number): number =>
  db
    .prepare(`SELECT max(coalesce((SELECT max(n) FROM user_events WHERE user_id = ?), 0),
                coalesce((SELECT max(read_through) FROM event_queues WHERE user_id = ?), 0))`)
    .pluck()
    .get(userId, userId) as number;

/** A new event's ID: its bodies are deleted only once nothing refers to it, so reusing a gone one is safe. */
const nextEventId = (db: Db): number => db.prepare('SELECT coalesce(max(event_id), 0) + 1 FROM event_bodies').pluck().get() as number;

/**
 * Drops the queues that hold MAX_PENDING_EVENTS of their user's log unread, once a queue has been moved past
 * what it would never take (a queue that takes few kinds of events is behind only on paper); returns the
 * dropped ones. A queue nobody drains would otherwise hold its user's events for as long as it lives.
 */
function boundQueues(db: Db, queues: readonly LogQueue[], newest: number): Set<string> {
  const dropped = new Set<string>();
  for (const q of queues) {
    if (newest - q.read_through < MAX_PENDING_EVENTS) continue;
    // The queue was read in this transaction: it is there.
    const row = queueRow(db, q.id)!;
    const { readThrough } = readPosition(db, row, row.pruned_through);
    if (newest - readThrough < MAX_PENDING_EVENTS) {
      db.prepare('UPDATE event_queues SET read_through = ? WHERE id = ?').run(readThrough, q.id);
      q.read_through = readThrough;
    } else {
      db.prepare('UPDATE event_queues SET dead = 1 WHERE id = ?').run(q.id);
      dropped.add(q.id);
    }
  }
  return dropped;
}

/** The form of a message event a queue reads: ''-keyed bodies are every other event's. */
const messageForm = (o: DeliveryOptions): string => formOf(o, { type: 'message' });

interface LogEntry {
  n: number;
  /** The ID the queue gives it. */
  id: number;
  event: Record<string, unknown> & { type: string };
}

/**
 * The events a queue takes from its user's log, oldest first, numbered after the last one it acknowledged.
 * `stopAfter`: stop at the first entry with a higher ID (what hasPendingEvents and acknowledge need).
 */
function* readLog(db: Db, q: QueueRow, stopAfter = Number.POSITIVE_INFINITY): Generator<LogEntry | { n: number; skipped: true }> {
  const o = JSON.parse(q.options) as DeliveryOptions;
  const rows = db
    .prepare(`SELECT u.n, u.queue_id, b.body FROM user_events u JOIN event_bodies b ON b.event_id = u.event_id AND b.form IN ('', ?)
     WHERE u.user_id = ? AND u.n > ? AND (u.queue_id IS NULL OR u.queue_id = ?) ORDER BY u.n`)
    .iterate(messageForm(o), q.user_id, q.read_through, q.id) as IterableIterator<{ n: number; queue_id: string | null; body: string }>;
  let id = q.pruned_through;
  for (const row of rows) {
    const event = JSON.parse(row.body) as Record<string, unknown> & { type: string };
    // A queue's own row (a heartbeat, or an event kept from before the shared log) was chosen for it already.
    if (row.queue_id === null && !takes(q, o, event)) {
      yield { n: row.n, skipped: true };
      continue;
    }
    id++;
    yield { n: row.n, id, event: withoutInternalFields(event) as LogEntry['event'] };
    if (id > stopAfter) return;
  }
}

/**
 * How far into its log a queue has read once it acknowledged `lastEventId`: past that event and past every
 * later one it would never take, up to its next pending one. `newest`: the ID of the last event acknowledged.
 */
function readPosition(db: Db, q: QueueRow, lastEventId: number): { readThrough: number; newest: number } {
  let readThrough = q.read_through;
  let newest = q.pruned_through;
  for (const entry of readLog(db, q, lastEventId)) {
    if ('skipped' in entry) {
      readThrough = entry.n;
      continue;
    }
    if (entry.id > lastEventId) break;
    readThrough = entry.n;
    newest = entry.id;
  }
  return { readThrough, newest };
}

/**
 * Deletes what no queue of the user's will read any more: the log up to the least read live queue (all of it
 * once the user has none), and the bodies that only those rows used.
 */
function pruneLog(db: Db, userId: number): void {
  const least = db.prepare('SELECT min(read_through) FROM event_queues WHERE user_id = ? AND dead = 0').pluck().get(userId) as number | null;
  const through = least ?? Number.MAX_SAFE_INTEGER;
  const eventIds = db.prepare('SELECT event_id FROM user_events WHERE user_id = ? AND n <= ?').pluck().all(userId, through) as number[];
  if (eventIds.length === 0) return;
  db.prepare('DELETE FROM user_events WHERE user_id = ? AND n <= ?').run(userId, through);
  db.prepare(`DELETE FROM event_bodies WHERE event_id IN (SELECT value FROM json_each(?))
     AND NOT EXISTS (SELECT 1 FROM user_events WHERE event_id = event_bodies.event_id)`).run(JSON.stringify(eventIds));
}

/**
 * A message event as the queue registered for it: rendered HTML or the raw Markdown (apply_markdown, false
 * by default at registration), Gravatar URLs left to the client where it may compute them (client_gravatar), and the empty topic as
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
  // zerver/lib/message_cache.py finalize_payload, as for GET /messages: the client computes a Gravatar only
  // for a sender whose address everyone may see.
  if (o.client_gravatar === true && typeof message.avatar_url === 'string') {
    const sender = userById(db, Number(message.sender_id));
    if (sender && leavesGravatarToClient(getSetting(db, 'email_address_visibility'), sender)) message.avatar_url = null;
  }
  return { ...event, message };
}

function removeQueue(db: Db, queueId: string): void {
  const userId = db.prepare('SELECT user_id FROM event_queues WHERE id = ?').pluck().get(queueId) as number | undefined;
  if (userId === undefined) return;
  db.prepare('DELETE FROM event_queues WHERE id = ?').run(queueId);
  pruneLog(db, userId);
}

/**
 * Deletes up to `limit` queues that are dead or idle past their lifespan, with the events only they held;
 * returns how many. Requests call it with a small limit; serve's sweep calls it until nothing is left.
 */
export function expireQueues(db: Db, now: number, limit = EXPIRE_PER_REQUEST): number {
  const ids = db
    .prepare(`SELECT id FROM event_queues WHERE last_access + lifespan_secs < ? UNION SELECT id FROM event_queues WHERE dead = 1 ${limitClause(limit)}`)
    .pluck()
    .all(Math.floor(now)) as string[];
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
         ORDER BY last_access, rowid ${limitClause(live - MAX_QUEUES_PER_USER + 1)}`,
      )
      .pluck()
      .all(q.userId, now) as string[];
    const kill = db.prepare('UPDATE event_queues SET dead = 1 WHERE id = ?');
    for (const e of evicted) kill.run(e);
    setImmediate(() => {
      for (const e of evicted) wakeups.emit(e);
    });
  }
  const lifespan = Math.min(q.lifespanSecs > 0 ? q.lifespanSecs : DEFAULT_QUEUE_LIFESPAN_SECS, MAX_QUEUE_LIFESPAN_SECS);
  db.prepare(`INSERT INTO event_queues (id, user_id, event_types, options, lifespan_secs, last_access, watches_public, read_through)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(
    id,
    q.userId,
    q.eventTypes === null ? null : JSON.stringify(q.eventTypes),
    JSON.stringify(q.options),
    lifespan,
    now,
    q.watchesPublicChannels ? 1 : 0,
    // Starts at the end of its user's log: what was emitted before is not its own.
    newestInLog(db, q.userId),
  );
  return id;
}

export const badQueue = (queueId: string): ApiError => new ApiError(`Bad event queue ID: ${queueId}`, 'BAD_EVENT_QUEUE_ID', 400, { queue_id: queueId });

const queueRow = (db: Db, queueId: string): QueueRow | undefined => db.prepare('SELECT * FROM event_queues WHERE id = ?').get(queueId) as QueueRow | undefined;

/** A queue that polls may still use: not dropped, not idle past its lifespan (deleted or not yet). */
function liveQueue(db: Db, queueId: string, now: number): QueueRow | undefined {
  const q = queueRow(db, queueId);
  return q && q.dead === 0 && q.last_access + q.lifespan_secs >= Math.floor(now) ? q : undefined;
}

/** The caller's queue; another user's queue, or a dropped or expired one, is as unknown as a missing one. */
export function ownQueue(db: Db, queueId: string, userId: number, now: number): QueueRow {
  const q = liveQueue(db, queueId, now);
  if (!q || q.user_id !== userId) throw badQueue(queueId);
  return q;
}

/** Moves a queue's read position on, and deletes what its user's queues have all read. */
function advance(db: Db, q: QueueRow, readThrough: number, prunedThrough: number): void {
  if (readThrough === q.read_through && prunedThrough === q.pruned_through) return;
  db.prepare('UPDATE event_queues SET read_through = ?, pruned_through = ? WHERE id = ?').run(readThrough, prunedThrough, q.id);
  if (readThrough !== q.read_through) pruneLog(db, q.user_id);
}

/**
 * Acknowledges every event up to `lastEventId`, as Tornado's queue does (zerver/tornado/event_queue.py
 * EventQueue.prune, checked in fetch_events): asking for an ID older than one already pruned, or one that was
 * never in the queue, is an error.
 */
export function acknowledge(db: Db, q: QueueRow, lastEventId: number): void {
  if (lastEventId < q.pruned_through) throw badRequest(`An event newer than ${lastEventId} has already been pruned!`);
  const { readThrough, newest } = readPosition(db, q, lastEventId);
  advance(db, q, readThrough, newest);
  if (lastEventId !== newest) throw badRequest(`Event ${lastEventId} was not in this queue`);
}

/** A queue's idle lifetime in seconds; 0 for a queue that is gone. */
export const queueLifespanSecs = (db: Db, queueId: string): number =>
  (db.prepare('SELECT lifespan_secs FROM event_queues WHERE id = ?').pluck().get(queueId) as number | undefined) ?? 0;

/**
 * Marks a queue accessed. A waiting poll does so every few seconds, and its queue then moves past the events
 * it does not take, so they are not read again at every wake-up and its user's log can be pruned.
 */
export function touchQueue(db: Db, queueId: string, now: number): void {
  db.prepare('UPDATE event_queues SET last_access = ? WHERE id = ?').run(Math.floor(now), queueId);
  const q = queueRow(db, queueId);
  if (q) advance(db, q, readPosition(db, q, q.pruned_through).readThrough, q.pruned_through);
}

/** Whether the queue holds an event, reading no further than its first (a waiting poll asks on every wake-up). */
export function hasPendingEvents(db: Db, queueId: string): boolean {
  const q = queueRow(db, queueId);
  if (!q) return false;
  for (const entry of readLog(db, q, q.pruned_through)) if (!('skipped' in entry)) return true;
  return false;
}

export function pendingEvents(db: Db, queueId: string): StoredEvent[] {
  const q = queueRow(db, queueId);
  if (!q) return [];
  const events: StoredEvent[] = [];
  for (const entry of readLog(db, q)) if (!('skipped' in entry)) events.push({ ...entry.event, id: entry.id });
  return events;
}

/** Adds a heartbeat to one queue, so an idle long poll answers with it: a row of its user's log for that queue only. */
export function pushHeartbeat(db: Db, queueId: string): void {
  const q = queueRow(db, queueId);
  if (!q) return;
  const eventId = nextEventId(db);
  db.prepare('INSERT INTO event_bodies (event_id, form, body) VALUES (?, ?, ?)').run(eventId, '', JSON.stringify({ type: 'heartbeat' }));
  db.prepare('INSERT INTO user_events (user_id, n, event_id, queue_id) VALUES (?, ?, ?, ?)').run(q.user_id, newestInLog(db, q.user_id) + 1, eventId, q.id);
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
