import { randomToken } from '../../helpers/names.js';
import { OWNER_PASSWORD } from '../../helpers/org.js';
import { ADMINS_ONLY, CALLERS, type PermissionRows } from './matrix.js';

/**
 * The organization's identity: reading the server settings and exchanging a password need no authentication
 * (every caller, deactivated or not, gets the same); renaming the organization is for administrators.
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
  ],
};
