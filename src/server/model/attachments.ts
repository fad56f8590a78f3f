/** Attachments referenced by messages. */
import type { Db } from '../store/db.js';

/**
 * Records which of `ownerId`'s uploads the message content links to (`/user_uploads/<path_id>`), replacing
 * earlier links of the message. Called by message send and edit.
 */
export function linkAttachments(_db: Db, _messageId: number, _ownerId: number, _content: string): void {}
