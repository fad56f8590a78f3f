/** Subscriptions and per-topic visibility policies: rows, wire forms, and the changes that emit events. */
import type { Channel, Subscription, SubscriptionProperty, UserTopic, VisibilityPolicy } from '../../api/operations/channels.js';
import type { EventSink } from '../context.js';
import { getSetting } from './realm.js';
import type { Db } from '../store/db.js';
import { ROLE } from '../../api/roles.js';
import { streamDeletion } from './channel-changes.js';
import { channelView, metadataUserIds, subscriberIds, type StreamRow } from './channels.js';
import { listeningUserIds, listeningViewers } from './event-queues.js';
import { isGuest, type UserRow } from './users.js';

export interface SubscriptionRow {
  user_id: number;
  stream_id: number;
  active: number;
  color: string;
  is_muted: number;
  pin_to_top: number;
  desktop_notifications: number | null;
  audible_notifications: number | null;
  push_notifications: number | null;
  email_notifications: number | null;
  wildcard_mentions_notify: number | null;
}

/** Zulip's STREAM_ASSIGNMENT_COLORS: a new subscription takes the first one the user does not use yet. */
const STREAM_COLORS = [
  '#76ce90',
  '#fae589',
  '#a6c7e5',
  '#e79ab5',
  '#bfd56f',
  '#f4ae55',
  '#b0a5fd',
  '#addfe5',
  '#f5ce6e',
  '#c2726a',
  '#94c849',
  '#bd86e5',
  '#ee7e4a',
  '#a6dcbf',
  '#95a5fd',
  '#53a063',
  '#9987e1',
  '#e4523d',
  '#c2c2c2',
  '#4f8de4',
  '#c6a8ad',
  '#e7cc4d',
  '#c8bebf',
  '#a47462',
];

export const COLOR_PATTERN = /^#([a-fA-F0-9]{3,6})$/;

/** A new subscription's color for each user: the first one the user does not use yet, all users in one query. */
function pickColors(db: Db, userIds: readonly number[]): Map<number, string> {
  const used = new Map<number, Set<string>>(userIds.map((id) => [id, new Set<string>()]));
  const rows = db.prepare('SELECT user_id, color FROM subscriptions WHERE user_id IN (SELECT value FROM json_each(?))').all(JSON.stringify(userIds)) as {
    user_id: number;
    color: string;
  }[];
  for (const r of rows) used.get(r.user_id)?.add(r.color);
  return new Map([...used].map(([id, colors]) => [id, STREAM_COLORS.find((c) => !colors.has(c)) ?? STREAM_COLORS[colors.size % STREAM_COLORS.length]!]));
}

const nullableBool = (v: number | null): boolean | null => (v === null ? null : v === 1);

/** The subscription objects of one user's rows, in the order given. */
export const subscriptionViews = (db: Db, rows: readonly SubscriptionRow[], includeSubscribers: boolean): Subscription[] =>
  rows.map(subscriptionViewer(db, includeSubscribers));

/**
 * A function giving the subscription object of any row. Each channel's wire form and subscriber list are
 * built once and shared: a bulk subscribe sends one `add` per user, all of them naming the same channels.
 */
function subscriptionViewer(db: Db, includeSubscribers: boolean): (row: SubscriptionRow) => Subscription {
  const view = channelView(db);
  const streams = db.prepare('SELECT * FROM streams WHERE id = ?');
  const channels = new Map<number, { channel: Channel; subscribers: number[] | undefined }>();
  const channelOf = (streamId: number) => {
    let c = channels.get(streamId);
    if (!c) {
      c = { channel: view(streams.get(streamId) as StreamRow), subscribers: includeSubscribers ? subscriberIds(db, streamId) : undefined };
      channels.set(streamId, c);
    }
    return c;
  };
  return (row) => {
    const { channel, subscribers } = channelOf(row.stream_id);
    const sub: Subscription = {
      ...channel,
      color: row.color,
      is_muted: row.is_muted === 1,
      in_home_view: row.is_muted !== 1,
      pin_to_top: row.pin_to_top === 1,
      desktop_notifications: nullableBool(row.desktop_notifications),
      audible_notifications: nullableBool(row.audible_notifications),
      push_notifications: nullableBool(row.push_notifications),
      email_notifications: nullableBool(row.email_notifications),
      wildcard_mentions_notify: nullableBool(row.wildcard_mentions_notify),
    };
    if (subscribers) sub.subscribers = subscribers;
    return sub;
  };
}

/** A user's active subscriptions (to channels that are not archived), by name in code-point order as Zulip sorts. */
export function activeSubscriptionRows(db: Db, userId: number): SubscriptionRow[] {
  return db
    .prepare(`SELECT s.* FROM subscriptions s JOIN streams c ON c.id = s.stream_id
       WHERE s.user_id = ? AND s.active = 1 AND c.is_archived = 0 ORDER BY c.name COLLATE BINARY, c.id`)
    .all(userId) as SubscriptionRow[];
}

/**
 * Subscribes users to a channel (reactivating an old subscription keeps its settings). Returns the users
 * newly subscribed, in the order given; the caller emits the events, which it batches per user. A few
 * statements whatever the number of users: subscribing thousands took one round of queries each.
 */
export function addSubscribers(db: Db, stream: StreamRow, userIds: readonly number[]): number[] {
  const ids = [...new Set(userIds)];
  const existing = new Map(
    (
      db
        .prepare('SELECT s.user_id, s.active FROM json_each(?) j CROSS JOIN subscriptions s ON s.user_id = j.value AND s.stream_id = ?')
        .all(JSON.stringify(ids), stream.id) as { user_id: number; active: number }[]
    ).map((r) => [r.user_id, r.active]),
  );
  const added = ids.filter((id) => existing.get(id) !== 1);
  const reactivated = added.filter((id) => existing.has(id));
  const inserted = added.filter((id) => !existing.has(id));
  if (reactivated.length) {
    db.prepare('UPDATE subscriptions SET active = 1 WHERE stream_id = ? AND user_id IN (SELECT value FROM json_each(?))').run(
      stream.id,
      JSON.stringify(reactivated),
    );
  }
  if (inserted.length) {
    const colors = pickColors(db, inserted);
    db.prepare(
      `INSERT INTO subscriptions (user_id, stream_id, color)
       SELECT json_extract(j.value, '$[0]'), ?, json_extract(j.value, '$[1]') FROM json_each(?) j`,
    ).run(stream.id, JSON.stringify(inserted.map((id) => [id, colors.get(id)])));
  }
  return added;
}

/**
 * Subscribes `users` to `streams` with the colors asked for by channel name, and sends a server's events
 * (actions/streams.py bulk_add_subscriptions): each channel to whoever could not see it before, then each
 * subscriber's own `add`, then the peers' `peer_add`. New channels were announced when they were created
 * (channel-changes.ts announceCreated). Returns the channel names per user ID, newly subscribed or already.
 */
export function subscribeUsers(
  db: Db,
  sink: EventSink,
  streams: readonly StreamRow[],
  users: readonly Pick<UserRow, 'id'>[],
  colors: ReadonlyMap<string, string>,
): { subscribed: Record<string, string[]>; already: Record<string, string[]> } {
  const subscribed: Record<string, string[]> = {};
  const already: Record<string, string[]> = {};
  const newSubs = new Map<number, SubscriptionRow[]>();
  const peerAdds: Membership[] = [];
  const view = channelView(db);
  const userIds = users.map((u) => u.id);
  // A subscriber's own `add` reaches only a queue: its rows and wire forms (each with the channel's whole
  // subscriber list) are built for the users who have one, not for the thousands a bulk subscribe adds.
  const listening = new Set(listeningUserIds(db));
  for (const stream of streams) {
    const before = new Set(metadataUserIds(db, stream));
    const added = addSubscribers(db, stream, userIds);
    const isNew = new Set(added);
    const color = colors.get(stream.name.toLowerCase());
    if (color && added.length) {
      db.prepare('UPDATE subscriptions SET color = ? WHERE stream_id = ? AND user_id IN (SELECT value FROM json_each(?))').run(
        color,
        stream.id,
        JSON.stringify(added),
      );
    }
    for (const u of users) {
      const names = isNew.has(u.id) ? subscribed : already;
      const list = names[String(u.id)] ?? [];
      list.push(stream.name);
      names[String(u.id)] = list;
    }
    const addedListening = added.filter((id) => listening.has(id));
    for (const row of subscriptionRowsOf(db, stream.id, addedListening)) pushTo(newSubs, row.user_id, row);
    // send_stream_creation_events_for_previously_inaccessible_streams: the new subscribers of a private
    // channel who could not see it, and guests new to a public one.
    sink.emit(
      { type: 'stream', op: 'create', streams: [view(stream)] },
      added.filter((id) => !before.has(id)),
    );
    if (added.length) peerAdds.push({ stream, userIds: added });
  }
  const subscription = subscriptionViewer(db, true);
  for (const [userId, rows] of newSubs) {
    sink.emit({ type: 'subscription', op: 'add', subscriptions: rows.map(subscription) }, [userId]);
  }
  sendPeerEvents(db, sink, 'peer_add', peerAdds);
  return { subscribed, already };
}

/** The users one request added to or removed from one channel. */
export interface Membership {
  stream: StreamRow;
  userIds: readonly number[];
}

const ascending = (ids: Iterable<number>): number[] => [...ids].sort((a, b) => a - b);

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Whether an active guest is subscribed to the channel: then its peers are not simply every member. */
const hasGuestSubscriber = (db: Db, streamId: number): boolean =>
  db
    .prepare('SELECT 1 FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE s.stream_id = ? AND s.active = 1 AND u.is_active = 1 AND u.role = ? LIMIT 1')
    .get(streamId, ROLE.guest) !== undefined;

/**
 * Zulip's send_peer_subscriber_events (actions/streams.py): a private channel's peers (its subscribers,
 * the administrators, its creator) get one event per channel. Public channels are grouped by the exact
 * set of users that changed in them: each channel a guest is subscribed to gets its own event, to the
 * members and its subscribers; the others of the group share one event, to every member. Users and
 * channels are listed in ascending order.
 */
function sendPeerEvents(db: Db, sink: EventSink, op: 'peer_add' | 'peer_remove', changes: readonly Membership[]): void {
  const emit = (streamIds: readonly number[], userIds: readonly number[], audience: readonly number[]): void => {
    const changed = new Set(userIds);
    sink.emit(
      { type: 'subscription', op, stream_ids: ascending(streamIds), user_ids: ascending(userIds) },
      audience.filter((id) => !changed.has(id)),
    );
  };
  const bySameUsers = new Map<string, Membership[]>();
  for (const change of changes) {
    if (change.userIds.length === 0) continue;
    if (change.stream.invite_only) emit([change.stream.id], change.userIds, metadataUserIds(db, change.stream));
    else pushTo(bySameUsers, ascending(change.userIds).join(','), change);
  }
  let members: number[] | undefined;
  for (const group of bySameUsers.values()) {
    const withoutGuests: number[] = [];
    for (const { stream, userIds } of group) {
      if (hasGuestSubscriber(db, stream.id)) emit([stream.id], userIds, metadataUserIds(db, stream));
      else withoutGuests.push(stream.id);
    }
    if (withoutGuests.length === 0) continue;
    members ??= listeningViewers(db)
      .filter((u) => !isGuest(u))
      .map((u) => u.id);
    emit(withoutGuests, group[0]!.userIds, members);
  }
}

/**
 * The subscription rows of `userIds` to one channel, in the order given (one query for all of them). CROSS
 * JOIN keeps the list outermost: SQLite would otherwise walk the channel's subscribers and scan the list for each.
 */
const subscriptionRowsOf = (db: Db, streamId: number, userIds: readonly number[]): SubscriptionRow[] =>
  db
    .prepare('SELECT s.* FROM json_each(?) j CROSS JOIN subscriptions s ON s.user_id = j.value AND s.stream_id = ? ORDER BY j.key')
    .all(JSON.stringify(userIds), streamId) as SubscriptionRow[];

/** Subscribes a new account to the organization's default channels (no events: nobody knows the account yet). */
export function subscribeToDefaultChannels(db: Db, userId: number): void {
  db.prepare('INSERT OR IGNORE INTO subscriptions (user_id, stream_id) SELECT ?, id FROM streams WHERE is_default = 1 AND is_archived = 0').run(userId);
}

/** One event about the same channels for several users: stored once, whoever receives it. */
interface SharedEvent<C> {
  channels: C;
  users: number[];
}

function addToShared<C extends readonly (number | { id: number })[]>(events: Map<string, SharedEvent<C>>, channels: C, userId: number): void {
  const key = channels.map((c) => (typeof c === 'number' ? c : c.id)).join(',');
  const event = events.get(key);
  if (event) event.users.push(userId);
  else events.set(key, { channels, users: [userId] });
}

/**
 * Zulip's bulk_remove_subscriptions and send_subscription_remove_events (actions/streams.py): unsubscribes
 * users from channels and returns who left each. Each user gets one `remove` naming the channels they left,
 * then, unless an administrator, one `delete` naming those of them they may no longer see (a private
 * channel, or a public one for a guest); peers get `peer_remove`. Users who left the same channels share
 * one stored event. A channel left empty stays as it is: a private one is no longer archived
 * (zulip/zulip#33696, Zulip 10.0).
 */
export function removeSubscriptions(db: Db, sink: EventSink, streams: readonly StreamRow[], userIds: readonly number[]): Membership[] {
  const changes: Membership[] = [];
  const left = new Map<number, StreamRow[]>();
  for (const stream of streams) {
    const subscribed = new Set(
      subscriptionRowsOf(db, stream.id, userIds)
        .filter((r) => r.active === 1)
        .map((r) => r.user_id),
    );
    const removed = userIds.filter((id) => subscribed.has(id));
    changes.push({ stream, userIds: removed });
    if (removed.length === 0) continue;
    db.prepare('UPDATE subscriptions SET active = 0 WHERE stream_id = ? AND user_id IN (SELECT value FROM json_each(?))').run(
      stream.id,
      JSON.stringify(removed),
    );
    for (const id of removed) pushTo(left, id, stream);
  }
  const seeing = new Map<number, Set<number>>();
  const stillSees = (stream: StreamRow, userId: number): boolean => {
    let ids = seeing.get(stream.id);
    if (!ids) {
      ids = new Set(metadataUserIds(db, stream));
      seeing.set(stream.id, ids);
    }
    return ids.has(userId);
  };
  const removals = new Map<string, SharedEvent<StreamRow[]>>();
  const deletions = new Map<string, SharedEvent<number[]>>();
  for (const [userId, list] of left) {
    addToShared(removals, list, userId);
    const lost = list.filter((s) => !stillSees(s, userId));
    if (lost.length)
      addToShared(
        deletions,
        lost.map((s) => s.id),
        userId,
      );
  }
  for (const { channels, users } of removals.values()) {
    sink.emit({ type: 'subscription', op: 'remove', subscriptions: channels.map((s) => ({ name: s.name, stream_id: s.id })) }, users);
  }
  for (const { channels, users } of deletions.values()) sink.emit(streamDeletion(channels), users);
  sendPeerEvents(db, sink, 'peer_remove', changes);
  return changes;
}

/** Column for each property; `in_home_view` is stored as its inverse, `is_muted`. */
const PROPERTY_COLUMN: Record<Exclude<SubscriptionProperty, 'in_home_view'>, string> = {
  color: 'color',
  is_muted: 'is_muted',
  pin_to_top: 'pin_to_top',
  desktop_notifications: 'desktop_notifications',
  audible_notifications: 'audible_notifications',
  push_notifications: 'push_notifications',
  email_notifications: 'email_notifications',
  wildcard_mentions_notify: 'wildcard_mentions_notify',
};

/**
 * Sets one property of a subscription and tells the user's clients. Muting sends two update events,
 * `in_home_view` first and then `is_muted` (feature level 139), whichever name was used.
 */
export function setSubscriptionProperty(
  db: Db,
  sink: EventSink,
  userId: number,
  streamId: number,
  property: SubscriptionProperty,
  value: boolean | string,
): void {
  if (property === 'in_home_view' || property === 'is_muted') {
    const muted = property === 'is_muted' ? value === true : value !== true;
    db.prepare('UPDATE subscriptions SET is_muted = ? WHERE user_id = ? AND stream_id = ?').run(muted ? 1 : 0, userId, streamId);
    sink.emit({ type: 'subscription', op: 'update', stream_id: streamId, property: 'in_home_view', value: !muted }, [userId]);
    sink.emit({ type: 'subscription', op: 'update', stream_id: streamId, property: 'is_muted', value: muted }, [userId]);
    return;
  }
  const stored = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  db.prepare(`UPDATE subscriptions SET ${PROPERTY_COLUMN[property]} = ? WHERE user_id = ? AND stream_id = ?`).run(stored, userId, streamId);
  sink.emit({ type: 'subscription', op: 'update', stream_id: streamId, property, value }, [userId]);
}

/**
 * A topic name as given by a client, with the aliases of the empty topic (`(no topic)` and the
 * organization's `realm_empty_topic_display_name`) read as the empty topic.
 */
export function normalizeTopic(db: Db, topic: string): string {
  return topic === '(no topic)' || topic === getSetting(db, 'empty_topic_display_name') ? '' : topic;
}

/**
 * Sets (or with 0, removes) a user's policy for a topic and emits `user_topic` to the user. Asking for the
 * policy the topic already has changes nothing and sends no event, as on a Zulip server.
 */
export function setVisibilityPolicy(db: Db, sink: EventSink, userId: number, streamId: number, topic: string, policy: VisibilityPolicy, now: number): void {
  if (policy === 0) {
    const removed = db.prepare('DELETE FROM user_topics WHERE user_id = ? AND stream_id = ? AND topic = ?').run(userId, streamId, topic);
    if (removed.changes === 0) return;
  } else {
    const current = db
      .prepare('SELECT visibility_policy FROM user_topics WHERE user_id = ? AND stream_id = ? AND topic = ?')
      .pluck()
      .get(userId, streamId, topic);
    if (current === policy) return;
    db.prepare(
      `INSERT INTO user_topics (user_id, stream_id, topic, visibility_policy, last_updated) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (user_id, stream_id, topic) DO UPDATE SET visibility_policy = excluded.visibility_policy, last_updated = excluded.last_updated`,
    ).run(userId, streamId, topic, policy, now);
  }
  sink.emit({ type: 'user_topic', stream_id: streamId, topic_name: topic, last_updated: now, visibility_policy: policy }, [userId]);
}

/** A user's topic policies, as register's `user_topics` lists them. */
export const userTopics = (db: Db, userId: number): UserTopic[] =>
  db
    .prepare(
      'SELECT stream_id, topic AS topic_name, last_updated, visibility_policy FROM user_topics WHERE user_id = ? ORDER BY last_updated, stream_id, topic',
    )
    .all(userId) as UserTopic[];
