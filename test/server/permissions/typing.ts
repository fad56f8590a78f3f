import { streamId } from '../../helpers/channels.js';
import type { Fixture, PermissionRows } from './matrix.js';

/** A direct message from the caller (or, for an anonymous caller, from the owner) to a member, straight in the store. */
function ownMessage(f: Fixture): number {
  const db = f.org.db;
  const senderId = f.caller?.id ?? f.org.owner.id;
  const members = [senderId, f.others.member.id].sort((a, b) => a - b).join(',');
  db.prepare('INSERT OR IGNORE INTO recipients (members) VALUES (?)').run(members);
  const recipient = (db.prepare('SELECT id FROM recipients WHERE members = ?').get(members) as { id: number }).id;
  const id = Number(
    db
      .prepare("INSERT INTO messages (sender_id, recipient_id, type, content, rendered_content, date_sent) VALUES (?, ?, 'private', 'hi', '<p>hi</p>', ?)")
      .run(senderId, recipient, f.org.clock.now()).lastInsertRowid,
  );
  for (const userId of new Set([senderId, f.others.member.id])) db.prepare('INSERT INTO user_messages (user_id, message_id) VALUES (?, ?)').run(userId, id);
  return id;
}

export const typingCases: PermissionRows<'typing'> = {
  setTypingStatus: [
    {
      name: 'say one is typing a direct message',
      request: (f) => ({
        method: 'POST',
        path: '/typing',
        body: [
          ['op', 'start'],
          ['to', JSON.stringify([f.others.member.id])],
        ],
      }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
    {
      name: 'say one is typing in a public channel',
      request: (f) => {
        const general = streamId(f.org, 'general');
        return {
          method: 'POST',
          path: '/typing',
          body: [
            ['type', 'channel'],
            ['op', 'start'],
            ['stream_id', String(general)],
            ['topic', 'hello'],
          ],
        };
      },
      // Test users are subscribed to the default channel, guests included.
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
  ],
  setMessageEditTypingStatus: [
    {
      name: 'say one is editing one’s own message',
      request: (f) => ({ method: 'POST', path: `/messages/${ownMessage(f)}/typing`, body: [['op', 'start']] }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
    {
      name: 'say one is editing another user’s direct message to one',
      request: (f) => {
        const id = ownMessage({ ...f, caller: f.others.admin });
        const callerId = f.caller?.id;
        if (callerId !== undefined) f.org.db.prepare('INSERT OR IGNORE INTO user_messages (user_id, message_id) VALUES (?, ?)').run(callerId, id);
        return { method: 'POST', path: `/messages/${id}/typing`, body: [['op', 'start']] };
      },
      allowed: [],
      denied: "You don't have permission to edit this message",
    },
  ],
};
