/**
 * Emoji: the Unicode names as a Zulip server names them (api/emoji-names.ts), the special `zulip` emoji, the
 * organization's custom emoji, and resolving and checking an emoji the way reactions and statuses need.
 */
import { unicodeEmojiCode, unicodeEmojiName } from '../../api/emoji-names.js';
import { badRequest } from '../../api/errors.js';
import type { ReactionType } from '../../api/operations/messages.js';
import type { CustomEmoji } from '../../api/operations/reactions.js';
import type { Db } from '../store/db.js';

// Rendering and reactions find the Unicode names here, with the rest of the server's emoji.
export { unicodeEmojiCode };

/** Zulip's own extra emoji namespace: one emoji, name and code `zulip`. */
export const ZULIP_EXTRA_EMOJI = 'zulip';

// ---------------------------------------------------------------------------------------------------
// Custom (realm) emoji and resolving an emoji for reactions and statuses

export interface RealmEmojiRow {
  id: number;
  name: string;
  file_name: string;
  author_id: number | null;
  deactivated: number;
}

/** Where a custom emoji's image is served, relative to the organization URL (realm ID 2, as uploads). */
export const realmEmojiSourceUrl = (fileName: string): string => `/user_avatars/2/emoji/images/${encodeURIComponent(fileName)}`;

export const realmEmojiToWire = (row: RealmEmojiRow): CustomEmoji => ({
  id: String(row.id),
  name: row.name,
  source_url: realmEmojiSourceUrl(row.file_name),
  still_url: null,
  deactivated: row.deactivated === 1,
  author_id: row.author_id,
});

/** Every custom emoji, deactivated ones too, keyed by ID string. */
export function realmEmojiDict(db: Db): Record<string, CustomEmoji> {
  const rows = db.prepare('SELECT * FROM realm_emoji ORDER BY id').all() as RealmEmojiRow[];
  return Object.fromEntries(rows.map((r) => [String(r.id), realmEmojiToWire(r)]));
}

export const activeRealmEmojiByName = (db: Db, name: string): RealmEmojiRow | undefined =>
  db.prepare('SELECT * FROM realm_emoji WHERE name = ? AND deactivated = 0').get(name) as RealmEmojiRow | undefined;

export interface EmojiData {
  emoji_code: string;
  reaction_type: ReactionType;
}

/**
 * The code and type of an emoji name, as a Zulip server resolves it: an active custom emoji wins, then
 * `zulip`, then the Unicode names; else `Emoji '<name>' does not exist`.
 */
export function emojiDataFor(db: Db, name: string): EmojiData {
  const custom = activeRealmEmojiByName(db, name);
  if (custom) return { emoji_code: String(custom.id), reaction_type: 'realm_emoji' };
  if (name === ZULIP_EXTRA_EMOJI) return { emoji_code: ZULIP_EXTRA_EMOJI, reaction_type: 'zulip_extra_emoji' };
  const code = unicodeEmojiCode(name);
  if (code) return { emoji_code: code, reaction_type: 'unicode_emoji' };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/** Checks that (name, code, type) name a usable emoji, with a Zulip server's messages. */
export function checkEmojiRequest(db: Db, name: string, code: string, type: string): void {
  switch (type) {
    case 'realm_emoji': {
      const row = db.prepare('SELECT * FROM realm_emoji WHERE id = ?').get(/^\d+$/.test(code) ? Number(code) : -1) as RealmEmojiRow | undefined;
      if (!row) throw badRequest('Invalid custom emoji.');
      if (row.name !== name) throw badRequest('Invalid custom emoji name.');
      if (row.deactivated) throw badRequest('This custom emoji has been deactivated.');
      return;
    }
    case 'zulip_extra_emoji':
      if (code !== ZULIP_EXTRA_EMOJI) throw badRequest('Invalid emoji code.');
      if (name !== code) throw badRequest('Invalid emoji name.');
      return;
    case 'unicode_emoji':
      if (unicodeEmojiName(code) === undefined) throw badRequest('Invalid emoji code.');
      if (unicodeEmojiCode(name) !== code) throw badRequest('Invalid emoji name.');
      return;
    default:
      throw badRequest('Invalid emoji type.');
  }
}
