import type { WireRequest } from '../../../src/api/wire.js';
import type { Fixture, PermissionRows } from './matrix.js';
import { generalMessage } from './messages.js';

const EVERYONE = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'] as const;

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let emojiCounter = 0;
const emojiName = (): string => `perm_emoji_${++emojiCounter}`;

/** A custom emoji added by `authorId`, straight in the store. */
function customEmoji(f: Fixture, authorId: number): string {
  const name = emojiName();
  f.org.db.prepare("INSERT INTO realm_emoji (name, file_name, author_id) VALUES (?, 'x.png', ?)").run(name, authorId);
  return name;
}

export const reactionCases: PermissionRows<'reactions'> = {
  addReaction: [
    {
      name: 'react to a message of a channel one is in',
      request: (f) => ({ method: 'POST', path: `/messages/${generalMessage(f, f.others.member.id)}/reactions`, body: [['emoji_name', 'octopus']] }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  removeReaction: [
    {
      name: 'remove one’s reaction',
      request: (f) => {
        const id = generalMessage(f, f.others.member.id);
        const userId = f.caller?.id ?? f.org.owner.id;
        f.org.db
          .prepare(
            "INSERT INTO reactions (message_id, user_id, emoji_name, emoji_code, reaction_type, created) VALUES (?, ?, 'octopus', '1f419', 'unicode_emoji', 0)",
          )
          .run(id, userId);
        return { method: 'DELETE', path: `/messages/${id}/reactions`, body: [['emoji_name', 'octopus']] };
      },
      allowed: EVERYONE,
      denied: {},
    },
  ],
  getCustomEmoji: [
    {
      name: 'list custom emoji',
      request: () => ({ method: 'GET', path: '/realm/emoji' }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  uploadCustomEmoji: [
    {
      name: 'upload a custom emoji',
      request: () => {
        // The matrix's request type has no `files`; the router takes them as any request does.
        const req: Pick<WireRequest, 'method' | 'path' | 'files'> = {
          method: 'POST',
          path: `/realm/emoji/${emojiName()}`,
          files: [{ field: 'file', filename: 'e.png', contentType: 'image/png', data: PNG }],
        };
        return req;
      },
      allowed: ['owner', 'admin', 'moderator', 'member'],
      denied: { guest: 'Not allowed for guest users', bot: 'This endpoint does not accept bot requests.' },
    },
  ],
  deactivateCustomEmoji: [
    {
      name: 'deactivate someone else’s custom emoji',
      request: (f) => ({ method: 'DELETE', path: `/realm/emoji/${customEmoji(f, f.others.member.id)}` }),
      allowed: ['owner', 'admin'],
      denied: 'Must be an organization administrator or emoji author',
    },
    {
      name: 'deactivate one’s own custom emoji',
      request: (f) => ({ method: 'DELETE', path: `/realm/emoji/${customEmoji(f, f.caller?.id ?? f.org.owner.id)}` }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
};
