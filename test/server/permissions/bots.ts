import { randomToken } from '../../helpers/names.js';
import type { PermissionCase } from './matrix.js';

export const botCases: PermissionCase[] = [
  {
    name: 'create a generic bot',
    request: () => {
      const id = randomToken();
      return { method: 'POST', path: '/bots', body: [['full_name', `Bot ${id}`], ['short_name', `bot${id}`]] };
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
        body: [['full_name', `Hook ${id}`], ['short_name', `hook${id}`], ['bot_type', '3'], ['payload_url', '"https://hooks.example.com/x"']],
      };
    },
    allowed: ['owner', 'admin', 'moderator', 'member'],
    denied: { guest: 'Not allowed for guest users', bot: 'This endpoint does not accept bot requests.' },
  },
];
