/**
 * Emoji reactions on messages, with a Zulip server's resolution order and messages, and custom emoji
 * uploads. Events: `reaction` to everyone who received the message (plus, with shared history, the
 * channel's subscribers); `realm_emoji` with the whole custom emoji set to every active user.
 */
import { writeFileSync } from 'node:fs';
import { makeDirs } from '../../make-dirs.js';
import { extname, join } from 'node:path';
import { ApiError, badRequest } from '../../api/errors.js';
import type { UploadedFile } from '../../api/wire.js';
import type { HandlerContext } from '../context.js';
import type { Db } from '../store/db.js';
import { checkEmojiRequest, emojiDataFor, realmEmojiDict, unicodeEmojiCode, type RealmEmojiRow } from './emoji.js';
import { FLAG_BITS } from './flags.js';
import { accessMessage, userMessageFlags, type MessageRow } from './message-access.js';
import { apiEmail } from './user-view.js';
import { isAdmin, type UserRow } from './users.js';

interface ReactionIdentity {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

/**
 * Who hears about reactions to a message: of the users with a queue (nobody else can receive the event),
 * those who received the message and, with shared history, the channel's active subscribers. Starting from
 * the queues keeps a reaction in a channel of 100,000 subscribers as cheap as in a small one.
 */
const REACTION_AUDIENCE = `SELECT q.user_id FROM (SELECT DISTINCT user_id FROM event_queues WHERE dead = 0) q
  WHERE EXISTS (SELECT 1 FROM user_messages m WHERE m.user_id = q.user_id AND m.message_id = ?)
    OR EXISTS (SELECT 1 FROM streams c JOIN subscriptions s ON s.stream_id = c.id JOIN users u ON u.id = s.user_id
               WHERE c.id = ? AND c.history_public_to_subscribers = 1 AND s.user_id = q.user_id AND s.active = 1 AND u.is_active = 1)`;

const reactionAudience = (db: Db, message: MessageRow): number[] => {
  const rows = db.prepare(REACTION_AUDIENCE).all(message.id, message.type === 'stream' ? message.stream_id : null) as { user_id: number }[];
  return rows.map((r) => r.user_id);
};

function emitReaction(ctx: HandlerContext, user: UserRow, message: MessageRow, op: 'add' | 'remove', r: ReactionIdentity): void {
  ctx.emit(
    {
      type: 'reaction',
      op,
      user_id: user.id,
      user: { user_id: user.id, email: apiEmail(ctx.db, user), full_name: user.full_name },
      message_id: message.id,
      emoji_name: r.emoji_name,
      emoji_code: r.emoji_code,
      reaction_type: r.reaction_type,
    },
    reactionAudience(ctx.db, message),
  );
}

export interface AddReaction {
  emoji_name: string;
  emoji_code?: string;
  reaction_type?: string;
}

export function addReaction(ctx: HandlerContext, user: UserRow, messageId: number, req: AddReaction): void {
  const db = ctx.db;
  const message = accessMessage(db, user, messageId);
  let code = req.emoji_code;
  let type = req.reaction_type;
  if (code === undefined || type === undefined) {
    const data = emojiDataFor(db, req.emoji_name);
    code ??= data.emoji_code;
    type ??= data.reaction_type;
  }
  const same = db.prepare('SELECT emoji_name, user_id FROM reactions WHERE message_id = ? AND emoji_code = ? AND reaction_type = ? ORDER BY rowid');
  const existing = same.all(message.id, code, type) as { emoji_name: string; user_id: number }[];
  if (existing.some((r) => r.user_id === user.id)) throw new ApiError('Reaction already exists.', 'REACTION_ALREADY_EXISTS');
  // Joining someone's reaction takes its name as it is, even if that emoji would not validate today.
  const name = existing[0]?.emoji_name ?? req.emoji_name;
  if (!existing.length) checkEmojiRequest(db, name, code, type);
  if (userMessageFlags(db, user.id, message.id) === undefined) {
    // Reacting to a message one can read but never received gives a historical copy, for live updates.
    db.prepare('INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, ?)').run(user.id, message.id, FLAG_BITS.read | FLAG_BITS.historical);
  }
  db.prepare('INSERT INTO reactions (message_id, user_id, emoji_name, emoji_code, reaction_type, created) VALUES (?, ?, ?, ?, ?, ?)').run(
    message.id,
    user.id,
    name,
    code,
    type,
    ctx.nowSeconds(),
  );
  emitReaction(ctx, user, message, 'add', { emoji_name: name, emoji_code: code, reaction_type: type });
}

export interface RemoveReaction {
  emoji_name?: string;
  emoji_code?: string;
  reaction_type: string;
}

export function removeReaction(ctx: HandlerContext, user: UserRow, messageId: number, req: RemoveReaction): void {
  const db = ctx.db;
  const message = accessMessage(db, user, messageId);
  if (req.emoji_code === undefined && req.emoji_name === undefined) {
    throw badRequest('At least one of the following arguments must be present: emoji_name, emoji_code');
  }
  // The code wins over the name; a removed reaction needs no validation: it was valid when added.
  const code = req.emoji_code ?? emojiDataFor(db, req.emoji_name!).emoji_code;
  const row = db
    .prepare('SELECT emoji_name, emoji_code, reaction_type FROM reactions WHERE message_id = ? AND user_id = ? AND emoji_code = ? AND reaction_type = ?')
    .get(message.id, user.id, code, req.reaction_type) as ReactionIdentity | undefined;
  if (!row) throw new ApiError("Reaction doesn't exist.", 'REACTION_DOES_NOT_EXIST');
  db.prepare('DELETE FROM reactions WHERE message_id = ? AND user_id = ? AND emoji_code = ? AND reaction_type = ?').run(
    message.id,
    user.id,
    code,
    req.reaction_type,
  );
  emitReaction(ctx, user, message, 'remove', row);
}

// ---------------------------------------------------------------------------------------------------
// Custom emoji

export const MAX_EMOJI_FILE_SIZE_MIB = 5;

/** The name a custom emoji gets from the path: spaces as underscores, then Zulip's name rules. */
export function checkEmojiName(raw: string): string {
  const name = raw.trim().replace(/ /g, '_');
  if (name === '') throw badRequest('Emoji name is missing');
  if (/^[0-9a-z\-_]+$/.test(name)) {
    if (/[-_]$/.test(name)) throw badRequest('Emoji names must end with either a letter or digit.');
    return name;
  }
  throw badRequest('Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.');
}

/** The image kinds a custom emoji may be, by their first bytes. */
function imageExtension(data: Uint8Array): string | undefined {
  const starts = (...bytes: number[]) => bytes.every((b, i) => data[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47)) return '.png';
  if (starts(0x47, 0x49, 0x46, 0x38)) return '.gif';
  if (starts(0xff, 0xd8, 0xff)) return '.jpg';
  if (starts(0x52, 0x49, 0x46, 0x46) && String.fromCharCode(...data.slice(8, 12)) === 'WEBP') return '.webp';
  return undefined;
}

const emitRealmEmoji = (ctx: HandlerContext): void =>
  ctx.emit(
    { type: 'realm_emoji', op: 'update', realm_emoji: realmEmojiDict(ctx.db) },
    (ctx.db.prepare('SELECT id FROM users WHERE is_active = 1').all() as { id: number }[]).map((r) => r.id),
  );

/** Adds a custom emoji from the one uploaded file; its image goes to `<dataDir>/emoji/<id><ext>`. */
export function uploadRealmEmoji(ctx: HandlerContext, user: UserRow, rawName: string, files: readonly UploadedFile[]): void {
  const db = ctx.db;
  const name = checkEmojiName(rawName);
  if (db.prepare('SELECT 1 FROM realm_emoji WHERE name = ? AND deactivated = 0').get(name)) throw badRequest('A custom emoji with this name already exists.');
  if (files.length !== 1) throw badRequest('You must upload exactly one file.');
  if (unicodeEmojiCode(name) !== undefined && !isAdmin(user)) throw badRequest('Only administrators can override default emoji.');
  const file = files[0]!;
  if (file.data.length > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024) {
    throw badRequest(`Uploaded file is larger than the allowed limit of ${MAX_EMOJI_FILE_SIZE_MIB} MiB`);
  }
  const detected = imageExtension(file.data);
  if (!detected) throw new ApiError('Invalid image format', 'BAD_IMAGE');
  const given = extname(file.filename).toLowerCase();
  const ext = ['.png', '.gif', '.jpg', '.jpeg', '.webp'].includes(given) ? given : detected;
  const id = Number(db.prepare("INSERT INTO realm_emoji (name, file_name, author_id) VALUES (?, '', ?)").run(name, user.id).lastInsertRowid);
  const fileName = `${id}${ext}`;
  db.prepare('UPDATE realm_emoji SET file_name = ? WHERE id = ?').run(fileName, id);
  const dir = join(ctx.dataDir, 'emoji');
  makeDirs(dir);
  writeFileSync(join(dir, fileName), file.data);
  emitRealmEmoji(ctx);
}

/** Deactivates a custom emoji (its author or an administrator); old messages and reactions keep it. */
export function deactivateRealmEmoji(ctx: HandlerContext, user: UserRow, name: string): void {
  const db = ctx.db;
  const row = db.prepare('SELECT * FROM realm_emoji WHERE name = ? AND deactivated = 0').get(name) as RealmEmojiRow | undefined;
  if (!row) throw new ApiError(`Emoji '${name}' does not exist`, 'BAD_REQUEST', 404);
  if (!isAdmin(user) && row.author_id !== user.id) throw badRequest('Must be an organization administrator or emoji author');
  db.prepare('UPDATE realm_emoji SET deactivated = 1 WHERE id = ?').run(row.id);
  emitRealmEmoji(ctx);
}
