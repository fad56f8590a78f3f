import type { PermissionRows } from './matrix.js';

export const statusCases: PermissionRows<'status'> = {
  getUserStatus: [
    {
      name: "get a member's status",
      request: (f) => ({ method: 'GET', path: `/users/${f.others.member.id}/status` }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
  ],
  updateOwnStatus: [
    {
      name: 'set the own status',
      request: () => ({
        method: 'POST',
        path: '/users/me/status',
        body: [
          ['status_text', 'busy'],
          ['emoji_name', 'car'],
        ],
      }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
  ],
  updateUserStatus: [
    {
      name: "set a member's status",
      request: (f) => ({ method: 'POST', path: `/users/${f.others.member.id}/status`, body: [['status_text', 'set by someone else']] }),
      allowed: ['owner', 'admin'],
      denied: 'Insufficient permission',
    },
  ],
};
