import { randomToken } from '../../helpers/names.js';
import { ADMINS_ONLY, type Fixture, type PermissionRows } from './matrix.js';

/** A pending invitation made by the fixture's member, stored directly. */
function memberInvitation(f: Fixture): number {
  const info = f.org.db
    .prepare('INSERT INTO invites (email, referrer_id, invited_as, invited) VALUES (?, ?, 400, ?)')
    .run(`invited-${randomToken()}@example.com`, f.others.member.id, f.org.clock.now());
  return Number(info.lastInsertRowid);
}

/** A pending reusable link made by the fixture's member, stored directly. */
function memberLink(f: Fixture): number {
  const info = f.org.db
    .prepare('INSERT INTO multiuse_invites (link_key, referrer_id, invited_as, invited) VALUES (?, ?, 400, ?)')
    .run(randomToken(), f.others.member.id, f.org.clock.now());
  return Number(info.lastInsertRowid);
}

const notMembers = { guest: 'Not allowed for guest users', bot: 'This endpoint does not accept bot requests.' };

export const inviteCases: PermissionRows<'invites'> = {
  sendInvites: [
    {
      name: 'send an invitation',
      request: () => ({
        method: 'POST',
        path: '/invites',
        body: [
          ['invitee_emails', `new-${randomToken()}@example.com`],
          ['stream_ids', '[]'],
        ],
      }),
      allowed: ['owner', 'admin', 'moderator', 'member'],
      denied: notMembers,
    },
    {
      name: 'invite an administrator',
      request: () => ({
        method: 'POST',
        path: '/invites',
        body: [
          ['invitee_emails', `new-${randomToken()}@example.com`],
          ['stream_ids', '[]'],
          ['invite_as', '200'],
        ],
      }),
      allowed: ['owner', 'admin'],
      denied: { ...notMembers, moderator: ADMINS_ONLY, member: ADMINS_ONLY },
    },
    {
      // The API document's rule: one's own role or a more restricted one (a Zulip server asks an administrator).
      name: 'invite a moderator',
      request: () => ({
        method: 'POST',
        path: '/invites',
        body: [
          ['invitee_emails', `new-${randomToken()}@example.com`],
          ['stream_ids', '[]'],
          ['invite_as', '300'],
        ],
      }),
      allowed: ['owner', 'admin', 'moderator'],
      denied: { ...notMembers, member: ADMINS_ONLY },
    },
  ],
  createInviteLink: [
    {
      name: 'create a reusable invitation link',
      request: () => ({ method: 'POST', path: '/invites/multiuse' }),
      allowed: ['owner', 'admin'],
      denied: { ...notMembers, moderator: 'Insufficient permission', member: 'Insufficient permission' },
    },
  ],
  revokeInviteLink: [
    {
      name: "revoke another member's link",
      request: (f) => ({ method: 'DELETE', path: `/invites/multiuse/${memberLink(f)}` }),
      allowed: ['owner', 'admin'],
      denied: { ...notMembers, moderator: ADMINS_ONLY, member: ADMINS_ONLY },
    },
  ],
  resendInvite: [
    {
      name: "resend another member's invitation",
      request: (f) => ({ method: 'POST', path: `/invites/${memberInvitation(f)}/resend` }),
      allowed: ['owner', 'admin'],
      denied: { ...notMembers, moderator: ADMINS_ONLY, member: ADMINS_ONLY },
    },
  ],
  getInvites: [
    {
      name: 'list invitations',
      request: () => ({ method: 'GET', path: '/invites' }),
      allowed: ['owner', 'admin', 'moderator', 'member'],
      denied: notMembers,
    },
  ],
  revokeInvite: [
    {
      name: "revoke another member's invitation",
      request: (f) => ({ method: 'DELETE', path: `/invites/${memberInvitation(f)}` }),
      allowed: ['owner', 'admin'],
      denied: { ...notMembers, moderator: ADMINS_ONLY, member: ADMINS_ONLY },
    },
  ],
};
