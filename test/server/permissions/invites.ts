import { randomToken } from '../../helpers/names.js';
import type { Fixture, PermissionCase } from './matrix.js';

/** A pending invitation made by the fixture's member, stored directly. */
function memberInvitation(f: Fixture): number {
  const info = f.org.db
    .prepare('INSERT INTO invites (email, referrer_id, invited_as, invited) VALUES (?, ?, 400, ?)')
    .run(`invited-${randomToken()}@example.com`, f.others.member.id, f.org.clock.now());
  return Number(info.lastInsertRowid);
}

const notMembers = { guest: 'Not allowed for guest users', bot: 'This endpoint does not accept bot requests.' };

export const inviteCases: PermissionCase[] = [
  {
    name: 'send an invitation',
    request: () => ({ method: 'POST', path: '/invites', body: [['invitee_emails', `new-${randomToken()}@example.com`], ['stream_ids', '[]']] }),
    allowed: ['owner', 'admin', 'moderator', 'member'],
    denied: notMembers,
  },
  {
    name: 'invite an administrator',
    request: () => ({ method: 'POST', path: '/invites', body: [['invitee_emails', `new-${randomToken()}@example.com`], ['stream_ids', '[]'], ['invite_as', '200']] }),
    allowed: ['owner', 'admin'],
    denied: { ...notMembers, moderator: 'Must be an organization administrator', member: 'Must be an organization administrator' },
  },
  {
    name: 'list invitations',
    request: () => ({ method: 'GET', path: '/invites' }),
    allowed: ['owner', 'admin', 'moderator', 'member'],
    denied: notMembers,
  },
  {
    name: "revoke another member's invitation",
    request: (f) => ({ method: 'DELETE', path: `/invites/${memberInvitation(f)}` }),
    allowed: ['owner', 'admin'],
    denied: { ...notMembers, moderator: 'Must be an organization administrator', member: 'Must be an organization administrator' },
  },
];
