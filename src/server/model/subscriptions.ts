/** Subscriptions and per-topic visibility policies: rows, wire forms, and the changes that emit events. */
import type { Channel, Subscription, SubscriptionProperty, UserTopic, VisibilityPolicy } from '../../api/operations/channels.js';
import type { EventSink } from '../context.js';
import { getSetting } from './realm.js';
import type { Db } from '../store/db.js';
import { statement } from '../store/statements.js';
import { channelView, metadataUserIds, subscriberIds, type StreamRow } from './channels.js';
import { listeningUserIds } from './event-queues.js';
import type { UserRow } from './users.js';

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
  const rows = statement(db, 'SELECT user_id, color FROM subscriptions WHERE user_id IN (SELECT value FROM json_each(?))').all(JSON.stringify(userIds)) as {
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
    .prepare(
      `SELECT s.* FROM subscriptions s JOIN streams c ON c.id = s.stream_id
       WHERE s.user_id = ? AND s.active = 1 AND c.is_archived = 0 ORDER BY c.name COLLATE BINARY, c.id`,
    )
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
      statement(db, 'SELECT s.user_id, s.active FROM json_each(?) j CROSS JOIN subscriptions s ON s.user_id = j.value AND s.stream_id = ?').all(
        JSON.stringify(ids),
        stream.id,
      ) as { user_id: number; active: number }[]
    ).map((r) => [r.user_id, r.active]),
  );
  const added = ids.filter((id) => existing.get(id) !== 1);
  const reactivated = added.filter((id) => existing.has(id));
  const inserted = added.filter((id) => !existing.has(id));
  if (reactivated.length) {
    statement(db, 'UPDATE subscriptions SET active = 1 WHERE stream_id = ? AND user_id IN (SELECT value FROM json_each(?))').run(
      stream.id,
      JSON.stringify(reactivated),
    );
  }
  if (inserted.length) {
    const colors = pickColors(db, inserted);
    statement(
      db,
      `INSERT INTO subscriptions (user_id, stream_id, color)
       SELECT json_extract(j.value, '$[0]'), ?, json_extract(j.value, '$[1]') FROM json_each(?) j`,
    ).run(stream.id, JSON.stringify(inserted.map((id) => [id, colors.get(id)])));
  }
  return added;
}

/**
 * Subscribes `users` to `streams` (`created`: those this request made) with the colors asked for by channel
 * name, and sends a server's events: each channel to whoever could not see it before (a new one to all who
 * may), then each subscriber's own `add`, then the peers' `peer_add`. Returns the channel names per user ID,
 * newly subscribed or already.
 */
export function subscribeUsers(
  db: Db,
  sink: EventSink,
  streams: readonly StreamRow[],
  created: readonly StreamRow[],
  users: readonly Pick<UserRow, 'id'>[],
  colors: ReadonlyMap<string, string>,
): { subscribed: Record<string, string[]>; already: Record<string, string[]> } {
  const subscribed: Record<string, string[]> = {};
  const already: Record<string, string[]> = {};
  const newSubs = new Map<number, SubscriptionRow[]>();
  const peerAdds: { stream: StreamRow; added: number[] }[] = [];
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
      statement(db, 'UPDATE subscriptions SET color = ? WHERE stream_id = ? AND user_id IN (SELECT value FROM json_each(?))').run(
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
    for (const row of subscriptionRowsOf(db, stream.id, addedListening)) {
      const list = newSubs.get(row.user_id);
      if (list) list.push(row);
      else newSubs.set(row.user_id, [row]);
    }
    const announceTo = created.includes(stream) ? metadataUserIds(db, stream) : added.filter((id) => !before.has(id));
    sink.emit({ type: 'stream', op: 'create', streams: [view(stream)] }, announceTo);
    if (added.length) peerAdds.push({ stream, added });
  }
  const subscription = subscriptionViewer(db, true);
  for (const [userId, rows] of newSubs) {
    sink.emit({ type: 'subscription', op: 'add', subscriptions: rows.map(subscription) }, [userId]);
  }
  for (const { stream, added } of peerAdds) {
    const isNew = new Set(added);
    const peers = metadataUserIds(db, stream).filter((id) => !isNew.has(id));
    sink.emit({ type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: added }, peers);
  }
  return { subscribed, already };
}

/**
 * The subscription rows of `userIds` to one channel, in the order given (one query for all of them). CROSS
 * JOIN keeps the list outermost: SQLite would otherwise walk the channel's subscribers and scan the list for each.
 */
const subscriptionRowsOf = (db: Db, streamId: number, userIds: readonly number[]): SubscriptionRow[] =>
  statement(db, 'SELECT s.* FROM json_each(?) j CROSS JOIN subscriptions s ON s.user_id = j.value AND s.stream_id = ? ORDER BY j.key').all(
    JSON.stringify(userIds),
    streamId,
  ) as SubscriptionRow[];

/** Subscribes a new account to the organization's default channels (no events: nobody knows the account yet). */
export function subscribeToDefaultChannels(db: Db, userId: number): void {
  db.prepare('INSERT OR IGNORE INTO subscriptions (user_id, stream_id) SELECT ?, id FROM streams WHERE is_default = 1 AND is_archived = 0').run(userId);
}

/** Unsubscribes users from a channel; returns those who were subscribed. Emits remove and peer_remove. */
export function removeSubscribers(db: Db, sink: EventSink, stream: StreamRow, userIds: readonly number[]): number[] {
  const subscribed = new Set(
    subscriptionRowsOf(db, stream.id, userIds)
      .filter((r) => r.active === 1)
      .map((r) => r.user_id),
  );
  const removed = userIds.filter((id) => subscribed.has(id));
  if (removed.length === 0) return removed;
  statement(db, 'UPDATE subscriptions SET active = 0 WHERE stream_id = ? AND user_id IN (SELECT value FROM json_each(?))').run(
    stream.id,
    JSON.stringify(removed),
  );
  // Every removed user gets the same event: built and stored once for all of them.
  sink.emit({ type: 'subscription', op: 'remove', subscriptions: [{ stream_id: stream.id, name: stream.name }] }, removed);
  const peers = metadataUserIds(db, stream).filter((id) => !subscribed.has(id));
  sink.emit({ type: 'subscription', op: 'peer_remove', stream_ids: [stream.id], user_ids: removed }, peers);
  return removed;
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
