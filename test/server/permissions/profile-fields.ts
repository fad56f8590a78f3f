import { randomToken } from '../../helpers/names.js';
import { ADMINS_ONLY, type PermissionRows } from './matrix.js';

export const profileFieldCases: PermissionRows<'profileFields'> = {
  getCustomProfileFields: [
    {
      name: 'list the custom profile fields',
      request: () => ({ method: 'GET', path: '/realm/profile_fields' }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
  ],
  createCustomProfileField: [
    {
      name: 'create a custom profile field',
      request: () => ({
        method: 'POST',
        path: '/realm/profile_fields',
        body: [
          ['name', `Field ${randomToken()}`],
          ['field_type', '1'],
        ],
      }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
};
