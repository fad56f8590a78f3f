import { randomToken } from '../../helpers/names.js';
import { OWNER_PASSWORD } from '../../helpers/org.js';
import { systemGroupId } from '../../../src/server/model/system-groups.js';
import { ADMINS_ONLY, CALLERS, OWNERS_ONLY, type PermissionRows } from './matrix.js';

/**
 * The organization's identity: reading the server settings and exchanging a password need no authentication
 * (every caller, deactivated or not, gets the same); the organization's settings are for administrators,
 * some of them for owners only.
 */
export const serverCases: PermissionRows<'server'> = {
  getServerSettings: [
    {
      name: 'read the server settings',
      request: () => ({ method: 'GET', path: '/server_settings' }),
      allowed: CALLERS,
      denied: {},
    },
  ],
  fetchApiKey: [
    {
      name: "exchange the owner's password for its API key",
      request: ({ org }) => ({
        method: 'POST',
        path: '/fetch_api_key',
        body: [
          ['username', org.owner.email],
          ['password', OWNER_PASSWORD],
        ],
      }),
      allowed: CALLERS,
      denied: {},
    },
  ],
  updateRealm: [
    {
      name: "change the organization's name",
      request: () => ({ method: 'PATCH', path: '/realm', body: [['name', `Renamed ${randomToken()}`.slice(0, 40)]] }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
    {
      name: 'change who may move messages between channels',
      request: ({ org }) => ({
        method: 'PATCH',
        path: '/realm',
        body: [['can_move_messages_between_channels_group', JSON.stringify({ new: systemGroupId(org.db, 'role:moderators') })]],
      }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
    {
      name: 'change who may send invitations (owners only)',
      request: ({ org }) => ({
        method: 'PATCH',
        path: '/realm',
        body: [['can_invite_users_group', JSON.stringify({ new: systemGroupId(org.db, 'role:moderators') })]],
      }),
      allowed: ['owner'],
      denied: { admin: OWNERS_ONLY, moderator: ADMINS_ONLY, member: ADMINS_ONLY, guest: ADMINS_ONLY, bot: ADMINS_ONLY },
    },
    {
      name: 'change how long messages are kept (owners only)',
      request: () => ({ method: 'PATCH', path: '/realm', body: [['message_retention_days', '30']] }),
      allowed: ['owner'],
      denied: { admin: OWNERS_ONLY, moderator: ADMINS_ONLY, member: ADMINS_ONLY, guest: ADMINS_ONLY, bot: ADMINS_ONLY },
    },
  ],
};
