/**
 * Bulk inserts for building large organizations fast (the scale benchmark, `npm run bench:scale`): users,
 * subscriptions and channel messages written with one prepared statement per table, row after row, inside the
 * caller's transaction, with no events and no per-row checks. The rows are those the API's own paths write,
 * so what is seeded reads back through the API like anything else; checking what goes in is the caller's job.
 */
import type { Role } from '../../api/roles.js';
import { newApiKey } from '../secrets.js';
import type { Db } from '../store/db.js';
import { nameKey } from '../store/name-key.js';
import { FLAG_BITS } from './flags.js';
import { channelRecipientId } from './messages.js';

export interface SeedUser {
  email: string;
  full_name: string;
  role: Role;
}

/** Inserts users (no password: they sign in by API key); returns their IDs in order. */
export function seedUsers(db: Db, users: Iterable<SeedUser>, now: number): number[] {
  const insert = db.prepare('INSERT INTO users (email, full_name, name_key, role, api_key, date_joined) VALUES (?, ?, ?, ?, ?, ?)');
  const ids: number[] = [];
  for (const u of users) ids.push(Number(insert.run(u.email, u.full_name, nameKey(u.full_name), u.role, newApiKey(), now).lastInsertRowid));
  return ids;
}

/** Subscribes users to a channel, with the default color, skipping those already subscribed. */
export function seedSubscriptions(db: Db, channelId: number, userIds: Iterable<number>): void {
  const insert = db.prepare('INSERT OR IGNORE INTO subscriptions (user_id, stream_id) VALUES (?, ?)');
  for (const id of userIds) insert.run(id, channelId);
}

/**
 * Copies a group (settings, creator, description) under a new name with these members; returns its ID. A group
 * made through createGroup is the template, so the copies hold exactly what the API writes.
 */
export function seedGroupLike(db: Db, templateId: number, name: string, memberIds: Iterable<number>): number {
  const id = Number(
    db
      .prepare(
        `INSERT INTO user_groups (name, description, date_created, creator_id, settings)
         SELECT ?, description, date_created, creator_id, settings FROM user_groups WHERE id = ?`,
      )
      .run(name, templateId).lastInsertRowid,
  );
  const insert = db.prepare('INSERT INTO group_members (group_id, user_id) VALUES (?, ?)');
  for (const userId of memberIds) insert.run(id, userId);
  return id;
}

export interface SeedMessage {
  senderId: number;
  channelId: number;
  topic: string;
  /** Plain text: its rendering is one paragraph, so it must need no Markdown or escaping. */
  text: string;
  dateSent: number;
  /**
   * Who gets a copy (a user_messages row, unread but for the sender's): on a Zulip server every active
   * subscriber, except the long-term idle, who get theirs when they come back. The sender is added.
   */
  recipientIds: readonly number[];
}

/** Inserts channel messages and their per-user copies; returns the last message ID (0 when none). */
export function seedMessages(db: Db, messages: Iterable<SeedMessage>): number {
  const insert = db.prepare(
    `INSERT INTO messages (sender_id, recipient_id, type, stream_id, topic, content, rendered_content, date_sent)
     VALUES (?, ?, 'stream', ?, ?, ?, ?, ?)`,
  );
  // One statement per message for all its copies: the sender's (read), then the others' (unread).
  const copy = db.prepare(
    `INSERT OR IGNORE INTO user_messages (user_id, message_id, flags)
     SELECT @sender, @message, @read UNION ALL SELECT value, @message, 0 FROM json_each(@others)`,
  );
  const recipients = new Map<number, number>();
  let last = 0;
  for (const m of messages) {
    let recipientId = recipients.get(m.channelId);
    if (recipientId === undefined) {
      recipientId = channelRecipientId(db, m.channelId);
      recipients.set(m.channelId, recipientId);
    }
    last = Number(insert.run(m.senderId, recipientId, m.channelId, m.topic, m.text, `<p>${m.text}</p>`, m.dateSent).lastInsertRowid);
    copy.run({ sender: m.senderId, message: last, read: FLAG_BITS.read, others: JSON.stringify(m.recipientIds) });
  }
  return last;
}
