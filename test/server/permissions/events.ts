import { createQueue } from '../../../src/server/model/event-queues.js';
import type { Caller, Fixture, PermissionRows } from './matrix.js';

const EVERYONE: readonly Caller[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];
const FOREIGN_QUEUE = 'queue-of-the-owner';

/** A queue of the caller (an unknown ID for callers that cannot have one). */
function ownQueue(f: Fixture): string {
  if (!f.caller) return 'no-queue';
  return createQueue(f.org.db, { userId: f.caller.id, eventTypes: null, options: {}, lifespanSecs: 0, now: f.org.clock.now() });
}

function foreignQueue(f: Fixture): string {
  f.org.db
    .prepare("INSERT OR IGNORE INTO event_queues (id, user_id, options, lifespan_secs, last_access) VALUES (?, ?, '{}', 604800, ?)")
    .run(FOREIGN_QUEUE, f.org.owner.id, Math.floor(f.org.clock.now()));
  return FOREIGN_QUEUE;
}

export const eventCases: PermissionRows<'events'> = {
  register: [
    {
      name: 'register an event queue',
      request: () => ({ method: 'POST', path: '/register', body: [['fetch_event_types', '["realm"]']] }),
      allowed: EVERYONE,
      denied: {},
    },
    {
      name: "register a queue of every public channel's messages",
      request: () => ({
        method: 'POST',
        path: '/register',
        body: [
          ['fetch_event_types', '["realm"]'],
          ['all_public_streams', 'true'],
        ],
      }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'bot'],
      denied: 'User not authorized for this query',
    },
    {
      name: 'register a queue narrowed to a channel',
      request: () => ({
        method: 'POST',
        path: '/register',
        body: [
          ['fetch_event_types', '["realm"]'],
          ['narrow', '[["channel", "general"]]'],
        ],
      }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  getEvents: [
    {
      name: 'read events of an own queue',
      request: (f) => ({
        method: 'GET',
        path: '/events',
        query: [
          ['queue_id', ownQueue(f)],
          ['last_event_id', '-1'],
          ['dont_block', 'true'],
        ],
      }),
      allowed: EVERYONE,
      denied: {},
    },
    {
      name: "read another user's queue",
      request: (f) => ({
        method: 'GET',
        path: '/events',
        query: [
          ['queue_id', foreignQueue(f)],
          ['last_event_id', '-1'],
          ['dont_block', 'true'],
        ],
      }),
      allowed: [],
      denied: `Bad event queue ID: ${FOREIGN_QUEUE}`,
    },
  ],
  deleteQueue: [
    {
      name: 'delete an own queue',
      request: (f) => ({ method: 'DELETE', path: '/events', body: [['queue_id', ownQueue(f)]] }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
};
