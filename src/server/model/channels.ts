/**
 * Channels (streams) in the store: lookup, the access rules of a Zulip server, the wire form, creation.
 *
 * Access, as on a Zulip server: a user has *content* access to a channel that is web-public, that they are
 * subscribed to, or (not being a guest) that is public. *Metadata* access (seeing the channel exists, its
 * subscribers) adds administrators and the channel's creator (the default of its
 * can_administer_channel_group) for private channels. Archived channels are invisible to most operations.
 */
import { badRequest, insufficientPermission } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { Channel } from '../../api/operations/channels.js';
import type { Db } from '../store/db.js';
import { renderHtml } from './render.js';
import { systemGroupId } from './system-groups.js';
import { isAdmin, isGuest, type UserRow, type Viewer } from './users.js';
import { listeningViewers } from './event-queues.js';

export interface StreamRow {
  id: number;
  name: string;
  description: string;
  rendered_description: string;
  invite_only: number;
  is_web_public: number;
  history_public_to_subscribers: number;
  date_created: number;
  creator_id: number | null;
  is_archived: number;
  is_default: number;
  folder_id: number | null;
  message_retention_days: number | null;
}

/** Zulip's STREAM_POST_POLICY_EVERYONE: anyone may post (this implementation has no posting restrictions). */
const STREAM_POST_POLICY_EVERYONE = 1;

export const streamById = (db: Db, id: number): StreamRow | undefined => db.prepare('SELECT * FROM streams WHERE id = ?').get(id) as StreamRow | undefined;

export const streamByName = (db: Db, name: string): StreamRow | undefined =>
  db.prepare('SELECT * FROM streams WHERE name = ? COLLATE NOCASE').get(name.trim()) as StreamRow | undefined;

/** Every channel, archived ones too, by name in code-point order as Zulip sorts them. */
export const allStreams = (db: Db): StreamRow[] => db.prepare('SELECT * FROM streams ORDER BY name COLLATE BINARY, id').all() as StreamRow[];

export const isSubscribed = (db: Db, userId: number, streamId: number): boolean =>
  db.prepare('SELECT 1 FROM subscriptions WHERE user_id = ? AND stream_id = ? AND active = 1').get(userId, streamId) !== undefined;

export function hasContentAccess(user: Viewer, stream: StreamRow, subscribed: boolean): boolean {
  if (stream.is_web_public || subscribed) return true;
  if (isGuest(user)) return false;
  return !stream.invite_only;
}

export function hasMetadataAccess(user: Viewer, stream: StreamRow, subscribed: boolean): boolean {
  if (hasContentAccess(user, stream, subscribed)) return true;
  if (isGuest(user)) return false;
  return isAdmin(user) || stream.creator_id === user.id;
}

export interface AccessOptions {
  /** false: metadata access is enough (administrators see private channels they are not in). */
  requireContent?: boolean;
  /** false: archived channels are found too. */
  requireActive?: boolean;
}

function checkAccess(db: Db, user: Viewer, stream: StreamRow | undefined, error: string, opts: AccessOptions): StreamRow {
  if (!stream) throw badRequest(error);
  if ((opts.requireActive ?? true) && stream.is_archived) throw badRequest(error);
  const subscribed = isSubscribed(db, user.id, stream.id);
  const ok = (opts.requireContent ?? true) ? hasContentAccess(user, stream, subscribed) : hasMetadataAccess(user, stream, subscribed);
  if (!ok) throw badRequest(error);
  return stream;
}

/** Zulip's CannotAdministerChannelError. */
const CANNOT_ADMINISTER_CHANNEL = 'You do not have permission to administer this channel.';

/**
 * Whether `user` administers an accessible channel: administrators do, and otherwise its
 * can_administer_channel_group, which is its creator (never a guest: the setting excludes them).
 */
export const administers = (user: Viewer, stream: StreamRow): boolean => isAdmin(user) || (!isGuest(user) && stream.creator_id === user.id);

/**
 * Zulip's access_stream_for_delete_or_update_requiring_metadata_access: archived channels too. Those who do
 * not administer it learn so only if they may read it; for the others it does not exist.
 */
export function accessForAdministration(db: Db, user: Viewer, streamId: number): StreamRow {
  const stream = streamById(db, streamId);
  if (!stream) throw badRequest('Invalid channel ID');
  if (administers(user, stream)) return stream;
  if (hasContentAccess(user, stream, isSubscribed(db, user.id, stream.id))) throw badRequest(CANNOT_ADMINISTER_CHANNEL);
  throw badRequest('Invalid channel ID');
}

/** Zulip's access_stream_by_id: the same `Invalid channel ID` for channels that do not exist and those one may not see. */
export const accessStream = (db: Db, user: Viewer, streamId: number, opts: AccessOptions = {}): StreamRow =>
  checkAccess(db, user, streamById(db, streamId), 'Invalid channel ID', opts);

export const accessStreamByName = (db: Db, user: Viewer, name: string, opts: AccessOptions = {}): StreamRow =>
  checkAccess(db, user, streamByName(db, name), `Invalid channel name '${name}'`, opts);

/**
 * The organization's default channels, by ID: what `default_streams` events and `realm_default_streams`
 * carry since feature level 330 (lib/default_streams.py get_default_stream_ids_for_realm).
 */
export const defaultChannelIds = (db: Db): number[] =>
  db.prepare('SELECT id FROM streams WHERE is_default = 1 AND is_archived = 0 ORDER BY id').pluck().all() as number[];

/** Active subscribers who are active users, ascending. */
export const subscriberIds = (db: Db, streamId: number): number[] =>
  (
    db
      .prepare(
        `SELECT s.user_id AS id FROM subscriptions s JOIN users u ON u.id = s.user_id
         WHERE s.stream_id = ? AND s.active = 1 AND u.is_active = 1 ORDER BY s.user_id`,
      )
      .all(streamId) as { id: number }[]
  ).map((r) => r.id);

/**
 * Which of `userIds` (active users) are subscribed to a channel, each looked up by key: the work is the
 * list's, not the channel's (a bulk subscribe asks once per request while the channel grows to 100,000).
 */
function subscribedAmong(db: Db, streamId: number, userIds: readonly number[]): Set<number> {
  const rows = db
    .prepare('SELECT s.user_id FROM json_each(?) j CROSS JOIN subscriptions s ON s.user_id = j.value AND s.stream_id = ? WHERE s.active = 1')
    .all(JSON.stringify(userIds), streamId) as { user_id: number }[];
  return new Set(rows.map((r) => r.user_id));
}

/**
 * Who may see a channel's metadata, for its events: for a public channel every active non-guest plus
 * guests subscribed to it; for a private one its subscribers, the administrators and its creator. Only
 * those with a queue: nobody else can receive the events, and the organization may be 100,000 users.
 */
export function metadataUserIds(db: Db, stream: StreamRow): number[] {
  const users = listeningViewers(db);
  const ids = users.map((u) => u.id);
  const subs = subscribedAmong(db, stream.id, ids);
  return users
    .filter((u) => (stream.invite_only ? subs.has(u.id) || (!isGuest(u) && (isAdmin(u) || u.id === stream.creator_id)) : !isGuest(u) || subs.has(u.id)))
    .map((u) => u.id);
}

/** The wire form of channels, for one request (the system group IDs are read once). */
export function channelView(db: Db): (stream: StreamRow) => Channel {
  // One indexed row, not the whole group graph: this runs for every subscription event of a bulk subscribe.
  const administrators = systemGroupId(db, 'role:administrators');
  if (administrators === undefined) throw new Error('system group role:administrators is missing');
  const firstMessage = db.prepare('SELECT min(id) AS id FROM messages WHERE stream_id = ?');
  const subscriberCount = db
    .prepare('SELECT count(*) FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE s.stream_id = ? AND s.active = 1 AND u.is_active = 1')
    .pluck();
  return (stream) => ({
    stream_id: stream.id,
    name: stream.name,
    description: stream.description,
    rendered_description: stream.rendered_description,
    date_created: stream.date_created,
    creator_id: stream.creator_id,
    invite_only: stream.invite_only === 1,
    is_web_public: stream.is_web_public === 1,
    history_public_to_subscribers: stream.history_public_to_subscribers === 1,
    first_message_id: (firstMessage.get(stream.id) as { id: number | null }).id,
    message_retention_days: stream.message_retention_days,
    stream_post_policy: STREAM_POST_POLICY_EVERYONE,
    is_announcement_only: false,
    can_remove_subscribers_group: administrators,
    // Zulip sends null when it has too little history to estimate; this implementation keeps none.
    stream_weekly_traffic: null,
    is_archived: stream.is_archived === 1,
    folder_id: stream.folder_id,
    subscriber_count: subscriberCount.get(stream.id) as number,
  });
}

/** Zulip's check_string_is_printable: the 1-based position of the first control, surrogate or non-character. */
export function firstUnprintable(text: string): number | null {
  let position = 0;
  for (const ch of text) {
    position++;
    const cp = ch.codePointAt(0)!;
    const control = cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
    const surrogate = cp >= 0xd800 && cp <= 0xdfff;
    const nonCharacter = (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
    if (control || surrogate || nonCharacter) return position;
  }
  return null;
}

export function checkChannelName(name: string): void {
  if (name.trim() === '') throw badRequest("Channel name can't be empty.");
  if ([...name].length > LIMITS.channelName) {
    throw badRequest(`Channel name too long (limit: ${LIMITS.channelName} characters).`);
  }
  const bad = firstUnprintable(name);
  if (bad !== null) throw badRequest(`Invalid character in channel name, at position ${bad}.`);
}

export interface NewChannel {
  name: string;
  description: string;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers?: boolean;
  folder_id: number | null;
  is_default: boolean;
  creator_id: number;
}

/** Inserts a channel and its recipient row. Public channels always have public history. */
export function insertChannel(db: Db, c: NewChannel, now: number): StreamRow {
  const historyPublic = c.invite_only ? (c.history_public_to_subscribers ?? false) : true;
  const info = db
    .prepare(
      `INSERT INTO streams (name, description, rendered_description, invite_only, is_web_public, history_public_to_subscribers,
         date_created, creator_id, is_default, folder_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      c.name,
      c.description,
      renderHtml(db, c.description),
      c.invite_only ? 1 : 0,
      c.is_web_public ? 1 : 0,
      historyPublic ? 1 : 0,
      now,
      c.creator_id,
      c.is_default ? 1 : 0,
      c.folder_id,
    );
  db.prepare('INSERT INTO recipients (stream_id) VALUES (?)').run(info.lastInsertRowid);
  return streamById(db, Number(info.lastInsertRowid))!;
}

/** How a request would create the channels it names that do not exist yet. */
export interface ChannelCreation {
  creator: UserRow;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers?: boolean;
  is_default: boolean;
  folder_id: number | null;
}

/**
 * Zulip's list_to_streams: the names are checked first, then the channels that exist are found (each once,
 * whatever the case of its name), then the others are created, with a server's checks on creating them.
 */
export function listToStreams(
  db: Db,
  requested: readonly { name: string; description: string }[],
  c: ChannelCreation,
  now: number,
): { existing: StreamRow[]; created: StreamRow[] } {
  for (const name of new Set(requested.map((r) => r.name))) checkChannelName(name);
  const existing: StreamRow[] = [];
  const missing: { name: string; description: string }[] = [];
  for (const r of requested) {
    const stream = streamByName(db, r.name);
    if (stream) {
      if (!existing.some((e) => e.id === stream.id)) existing.push(stream);
    } else if (!missing.some((m) => m.name.toLowerCase() === r.name.toLowerCase())) {
      missing.push(r);
    }
  }
  const created: StreamRow[] = [];
  for (const r of missing) {
    checkCreation(c);
    created.push(createChannelRow(db, r, c, now));
  }
  return { existing, created };
}

/**
 * Zulip's check_channel_creation_permissions: members may create public and private channels (the
 * organization defaults); default channels need an administrator and cannot be private; this server has
 * no web-public channels.
 */
export function checkCreation(c: ChannelCreation): void {
  if (c.is_default && !isAdmin(c.creator)) throw insufficientPermission();
  if (c.invite_only && c.is_default) throw badRequest('A default channel cannot be private.');
  if (c.is_web_public) throw badRequest('Web-public channels are not enabled.');
}

/** A new channel's row; it becomes a default channel through setDefaultChannel, which tells everyone. */
export const createChannelRow = (db: Db, r: { name: string; description: string }, c: ChannelCreation, now: number): StreamRow =>
  insertChannel(
    db,
    {
      name: r.name,
      description: r.description,
      invite_only: c.invite_only,
      is_web_public: false,
      history_public_to_subscribers: c.history_public_to_subscribers,
      folder_id: c.folder_id,
      is_default: false,
      creator_id: c.creator.id,
    },
    now,
  );
