import { randomToken } from '../../helpers/names.js';
import { ADMINS_ONLY, type Fixture, type PermissionRows } from './matrix.js';

/** A short-text field made for the case; `editable_by_user` false: only administrators set its values. */
function field(f: Fixture, editableByUser = true): number {
  const info = f.org.db
    .prepare('INSERT INTO custom_profile_fields (type, name, "order", editable_by_user) VALUES (1, ?, 0, ?)')
    .run(`Field ${randomToken()}`, editableByUser ? 1 : 0);
  return Number(info.lastInsertRowid);
}

const HUMANS = ['owner', 'admin', 'moderator', 'member', 'guest'] as const;
const NOT_FOR_BOTS = 'This endpoint does not accept bot requests.';

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
  updateCustomProfileField: [
    {
      name: "change a custom profile field's hint",
      request: (f) => ({ method: 'PATCH', path: `/realm/profile_fields/${field(f)}`, body: [['hint', 'A new hint']] }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
  deleteCustomProfileField: [
    {
      name: 'delete a custom profile field',
      request: (f) => ({ method: 'DELETE', path: `/realm/profile_fields/${field(f)}` }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
  reorderCustomProfileFields: [
    {
      name: 'reorder the custom profile fields',
      request: (f) => {
        field(f);
        const ids = f.org.db.prepare('SELECT id FROM custom_profile_fields ORDER BY id DESC').pluck().all();
        return { method: 'PATCH', path: '/realm/profile_fields', body: [['order', JSON.stringify(ids)]] };
      },
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
  updateOwnProfileData: [
    {
      name: 'set your own value of a field users may edit',
      request: (f) => ({ method: 'PATCH', path: '/users/me/profile_data', body: [['data', JSON.stringify([{ id: field(f), value: 'mine' }])]] }),
      allowed: HUMANS,
      denied: { bot: NOT_FOR_BOTS },
    },
    {
      name: 'set your own value of a field only administrators edit',
      request: (f) => ({ method: 'PATCH', path: '/users/me/profile_data', body: [['data', JSON.stringify([{ id: field(f, false), value: 'mine' }])]] }),
      allowed: ['owner', 'admin'],
      denied: {
        moderator: 'You are not allowed to change this field. Contact an administrator to update it.',
        member: 'You are not allowed to change this field. Contact an administrator to update it.',
        guest: 'You are not allowed to change this field. Contact an administrator to update it.',
        bot: NOT_FOR_BOTS,
      },
    },
  ],
  removeOwnProfileData: [
    {
      name: 'clear your own value of a field',
      request: (f) => ({ method: 'DELETE', path: '/users/me/profile_data', body: [['data', JSON.stringify([field(f)])]] }),
      allowed: HUMANS,
      denied: { bot: NOT_FOR_BOTS },
    },
  ],
};
