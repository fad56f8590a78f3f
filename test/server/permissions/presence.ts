import type { Caller, Fixture, PermissionRows } from './matrix.js';

const EVERYONE: readonly Caller[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];

/** A member with presence data to read. */
function present(f: Fixture): number {
  const now = Math.floor(f.org.clock.now());
  f.org.db
    .prepare('INSERT OR REPLACE INTO presence (user_id, last_active_time, last_connected_time, last_update_id) VALUES (?, ?, ?, 1)')
    .run(f.others.member.id, now, now);
  return f.others.member.id;
}

export const presenceCases: PermissionRows<'presence'> = {
  updatePresence: [
    {
      name: 'report presence',
      request: () => ({ method: 'POST', path: '/users/me/presence', body: [['status', 'active']] }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest'],
      denied: 'This endpoint does not accept bot requests.',
    },
  ],
  getRealmPresence: [
    {
      name: "read the organization's presence",
      request: () => ({ method: 'GET', path: '/realm/presence' }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  getUserPresence: [
    {
      name: "read one user's presence",
      request: (f) => ({ method: 'GET', path: `/users/${present(f)}/presence` }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
};
