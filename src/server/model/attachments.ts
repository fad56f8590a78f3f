/** Uploaded files' records, the messages that link them, and their `attachment` events. */
import type { Attachment } from '../../api/operations/attachments.js';
import type { EventSink } from '../context.js';
import { emitEvent } from './event-queues.js';
import type { Db } from '../store/db.js';
import { uploadUrl } from './uploads.js';

export interface AttachmentRow {
  id: number;
  owner_id: number;
  name: string;
  path_id: string;
  /** Where its bytes are under uploads/ (see uploads.ts); null for an upload from before generated names. */
  stored_as: string | null;
  size: number;
  content_type: string;
  create_time_ms: number;
}

export const attachmentById = (db: Db, id: number): AttachmentRow | undefined =>
  db.prepare('SELECT * FROM attachments WHERE id = ?').get(id) as AttachmentRow | undefined;

/** Bytes of every upload of the organization (a Zulip server reports the realm's usage, not the user's). */
export const uploadSpaceUsed = (db: Db): number => (db.prepare('SELECT coalesce(sum(size), 0) AS n FROM attachments').get() as { n: number }).n;

export function attachmentView(db: Db, row: AttachmentRow): Attachment {
  const messages = db
    .prepare(`SELECT m.id AS id, m.date_sent * 1000 AS date_sent FROM attachment_messages am JOIN messages m ON m.id = am.message_id
       WHERE am.attachment_id = ? ORDER BY m.id`)
    .all(row.id) as { id: number; date_sent: number }[];
  return { id: row.id, name: row.name, path_id: row.path_id, size: row.size, create_time: row.create_time_ms, messages };
}

export function attachmentsOf(db: Db, ownerId: number): Attachment[] {
  const rows = db.prepare('SELECT * FROM attachments WHERE owner_id = ? ORDER BY id').all(ownerId) as AttachmentRow[];
  return rows.map((r) => attachmentView(db, r));
}

export function insertAttachment(db: Db, a: Omit<AttachmentRow, 'id'>): AttachmentRow {
  const info = db
    .prepare(`INSERT INTO attachments (owner_id, name, path_id, stored_as, size, content_type, create_time_ms)
       VALUES (@owner_id, @name, @path_id, @stored_as, @size, @content_type, @create_time_ms)`)
    .run(a);
  return attachmentById(db, Number(info.lastInsertRowid))!;
}

/** The `attachment` event of an added or changed upload, for its owner. */
export function emitAttachmentChange(db: Db, op: 'add' | 'update', row: AttachmentRow): void {
  emitEvent(db, { type: 'attachment', op, attachment: attachmentView(db, row), upload_space_used: uploadSpaceUsed(db) }, [row.owner_id]);
}

/** Deletes an upload's record and tells its owner; its bytes are the caller's to delete once this commits. */
export function deleteAttachment(db: Db, sink: EventSink, row: AttachmentRow): void {
  db.prepare('DELETE FROM attachments WHERE id = ?').run(row.id);
  sink.emit({ type: 'attachment', op: 'remove', attachment: { id: row.id }, upload_space_used: uploadSpaceUsed(db) }, [row.owner_id]);
}

/**
 * Records which of `ownerId`'s uploads the message content links to (`/user_uploads/<path_id>`, as a
 * relative or absolute URL, encoded or not), replacing earlier links of the message. Called by message
 * send and edit. Each newly linked upload gets an `attachment` update event, as a Zulip server sends when
 * a message claims an upload.
 */
export function linkAttachments(db: Db, messageId: number, ownerId: number, content: string): void {
  const linked = new Set(
    (db.prepare('SELECT attachment_id FROM attachment_messages WHERE message_id = ?').all(messageId) as { attachment_id: number }[]).map(
      (r) => r.attachment_id,
    ),
  );
  const candidates = content.includes('/user_uploads/') ? (db.prepare('SELECT * FROM attachments WHERE owner_id = ?').all(ownerId) as AttachmentRow[]) : [];
  // Path IDs carry a random 24-character segment, so finding one in the text cannot confuse two uploads.
  const wanted = candidates.filter((a) => content.includes(`/user_uploads/${a.path_id}`) || content.includes(uploadUrl(a.path_id)));
  const wantedIds = new Set(wanted.map((a) => a.id));
  const unlink = db.prepare('DELETE FROM attachment_messages WHERE message_id = ? AND attachment_id = ?');
  for (const id of linked) if (!wantedIds.has(id)) unlink.run(messageId, id);
  const link = db.prepare('INSERT INTO attachment_messages (attachment_id, message_id) VALUES (?, ?)');
  for (const a of wanted) {
    if (linked.has(a.id)) continue;
    link.run(a.id, messageId);
    emitAttachmentChange(db, 'update', a);
  }
}
