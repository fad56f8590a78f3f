import { OWNER_PASSWORD } from '../../helpers/org.js';
import { CALLERS, type PermissionCase } from './matrix.js';

/** Operations that read no authentication: every caller, authenticated or not, deactivated or not, gets the same. */
export const serverCases: PermissionCase[] = [
  {
    name: 'read the server settings',
    request: () => ({ method: 'GET', path: '/server_settings' }),
    allowed: CALLERS,
    denied: {},
  },
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
];
