import { newStream, streamId } from '../../helpers/channels.js';
import { randomToken } from '../../helpers/names.js';
import type { Fixture, PermissionRows } from './matrix.js';

const EVERYONE = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'] as const;
const MODERATORS = ['owner', 'admin', 'moderator'] as const;
/** A week and Zulip's 20 seconds of grace, past: beyond the default limit on moves. */
const WEEK_AND_GRACE = 7 * 24 * 3600 + 21;

/**
 * A message in `general` from `senderId`, straight in the store, with a copy for every subscriber (test
 * users, guests and bots included, are subscribed to the default channel).
 */
export function generalMessage(f: Fixture, senderId: number): number {
  const db = f.org.db;
  const general = streamId(f.org, 'general');
  const recipient = (db.prepare('SELECT id FROM recipients WHERE stream_id = ?').get(general) as { id: number }).id;
  const id = Number(
    db
      .prepare(
        "INSERT INTO messages (sender_id, recipient_id, type, stream_id, topic, content, rendered_content, date_sent) VALUES (?, ?, 'stream', ?, 'perm', 'hi', '<p>hi</p>', ?)",
      )
      .run(senderId, recipient, general, f.org.clock.now()).lastInsertRowid,
  );
  db.prepare('INSERT INTO user_messages (user_id, message_id) SELECT user_id, ? FROM subscriptions WHERE stream_id = ? AND active = 1').run(id, general);
  db.prepare('INSERT OR IGNORE INTO user_messages (user_id, message_id) VALUES (?, ?)').run(senderId, id);
  return id;
}

/** A second public channel, for moves. */
const otherChannel = (f: Fixture): number => newStream(f.org, `moves-${randomToken()}`);

const senderOf = (f: Fixture): number => f.caller?.id ?? f.org.owner.id;

export const messageCases: PermissionRows<'messages'> = {
  sendMessage: [
    {
      name: 'send a message to a public channel one is subscribed to',
      request: () => ({
        method: 'POST',
        path: '/messages',
        body: [
          ['type', 'stream'],
          ['to', 'general'],
          ['topic', 'perm'],
          ['content', 'hello'],
        ],
      }),
      allowed: EVERYONE,
      denied: {},
    },
    {
      name: 'send a direct message',
      request: (f) => ({
        method: 'POST',
        path: '/messages',
        body: [
          ['type', 'direct'],
          ['to', JSON.stringify([f.others.member.id])],
          ['content', 'hello'],
        ],
      }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  getMessages: [
    {
      name: 'fetch messages',
      request: () => ({
        method: 'GET',
        path: '/messages',
        query: [
          ['anchor', 'newest'],
          ['num_before', '5'],
          ['num_after', '0'],
        ],
      }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  getMessage: [
    {
      name: 'fetch one message of a channel one is in',
      request: (f) => ({ method: 'GET', path: `/messages/${generalMessage(f, f.others.member.id)}` }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  updateMessage: [
    {
      name: 'edit the content of one’s own message',
      request: (f) => ({ method: 'PATCH', path: `/messages/${generalMessage(f, senderOf(f))}`, body: [['content', 'edited']] }),
      allowed: EVERYONE,
      denied: {},
    },
    {
      name: 'edit the content of someone else’s message',
      request: (f) => ({ method: 'PATCH', path: `/messages/${generalMessage(f, f.others.member.id)}`, body: [['content', 'edited']] }),
      allowed: [],
      denied: "You don't have permission to edit this message",
    },
    {
      name: 'move someone else’s message to another topic',
      request: (f) => ({ method: 'PATCH', path: `/messages/${generalMessage(f, f.others.member.id)}`, body: [['topic', 'moved']] }),
      allowed: EVERYONE,
      denied: {},
    },
    {
      name: 'move someone else’s message to another topic after the time limit',
      request: (f) => {
        const id = generalMessage(f, f.others.member.id);
        f.org.db.prepare('UPDATE messages SET date_sent = date_sent - ? WHERE id = ?').run(WEEK_AND_GRACE, id);
        return { method: 'PATCH', path: `/messages/${id}`, body: [['topic', 'moved']] };
      },
      allowed: MODERATORS,
      denied: "The time limit for editing this message's topic has passed.",
    },
    {
      name: 'resolve a topic',
      request: (f) => ({ method: 'PATCH', path: `/messages/${generalMessage(f, f.others.member.id)}`, body: [['topic', '✔ perm']] }),
      allowed: EVERYONE,
      denied: {},
    },
    {
      name: 'move a message to another public channel',
      request: (f) => ({ method: 'PATCH', path: `/messages/${generalMessage(f, f.others.member.id)}`, body: [['stream_id', String(otherChannel(f))]] }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'bot'],
      // A guest cannot see a public channel they are not in.
      denied: { guest: 'Invalid channel ID' },
    },
  ],
  getMessageHistory: [
    {
      name: 'read a message’s edit history',
      request: (f) => ({ method: 'GET', path: `/messages/${generalMessage(f, f.others.member.id)}/history` }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  updateMessageFlags: [
    {
      name: 'star messages',
      request: (f) => ({
        method: 'POST',
        path: '/messages/flags',
        body: [
          ['messages', JSON.stringify([generalMessage(f, f.others.member.id)])],
          ['op', 'add'],
          ['flag', 'starred'],
        ],
      }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  updateMessageFlagsForNarrow: [
    {
      name: 'mark a narrow read',
      request: () => ({
        method: 'POST',
        path: '/messages/flags/narrow',
        body: [
          ['anchor', 'oldest'],
          ['num_before', '0'],
          ['num_after', '100'],
          ['narrow', '[]'],
          ['op', 'add'],
          ['flag', 'read'],
        ],
      }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  renderMessage: [
    {
      name: 'render Markdown',
      request: () => ({ method: 'POST', path: '/messages/render', body: [['content', '**hi**']] }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
};
