import { randomToken } from '../../helpers/names.js';
import type { PermissionRows } from './matrix.js';

export const botCases: PermissionRows<'bots'> = {
  getBots: [
    {
      // zerver/views/users.py get_bots_backend: @require_member_or_admin.
      name: "list one's own bots",
      request: () => ({ method: 'GET', path: '/bots' }),
      allowed: ['owner', 'admin', 'moderator', 'member'],
      denied: { guest: 'Not allowed for guest users', bot: 'This endpoint does not accept bot requests.' },
    },
  ],
  createBot: [
    {
      name: 'create a generic bot',
      request: () => {
        const id = randomToken();
        return {
          method: 'POST',
          path: '/bots',
          body: [
            ['full_name', `Bot ${id}`],
            ['short_name', `bot${id}`],
          ],
        };
      },
      allowed: ['owner', 'admin', 'moderator', 'member'],
      denied: { guest: 'Not allowed for guest users', bot: 'This endpoint does not accept bot requests.' },
    },
    {
      name: 'create an outgoing-webhook bot',
      request: () => {
        const id = randomToken();
        return {
          method: 'POST',
          path: '/bots',
          body: [
            ['full_name', `Hook ${id}`],
            ['short_name', `hook${id}`],
            ['bot_type', '3'],
            ['payload_url', '"https://hooks.example.com/x"'],
          ],
        };
      },
      allowed: ['owner', 'admin', 'moderator', 'member'],
      denied: { guest: 'Not allowed for guest users', bot: 'This endpoint does not accept bot requests.' },
    },
  ],
  deactivateBot: [
    {
      name: "deactivate another user's bot",
      request: (f) => ({ method: 'DELETE', path: `/bots/${f.org.addUser({ bot: { type: 1, ownerId: f.others.member.id } }).id}` }),
      allowed: ['owner', 'admin'],
      denied: 'Insufficient permission',
    },
    {
      name: "deactivate one's own bot",
      request: (f) => ({ method: 'DELETE', path: `/bots/${f.org.addUser({ bot: { type: 1, ownerId: (f.caller ?? f.others.member).id } }).id}` }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
  ],
};
