/** Users: listing and reading them, creating, updating, deactivating and reactivating accounts. */
import { declareOlder, olderCall } from '../older.js';
import { operation, p } from '../operation.js';
import { s } from '../schema.js';
import { ROLES } from '../roles.js';
import type { User } from '../types.js';

export const roleParam = s.intOf(ROLES);

export const getUsers = operation<{ members: User[] }>()({
  name: 'get-users',
  method: 'GET',
  path: '/users',
  summary: 'All users of the organization (active, deactivated and bots)',
  access: 'user',
  params: {
    client_gravatar: p.def(s.bool(), true, { doc: 'null avatar_url for Gravatar-hosted avatars' }),
    include_custom_profile_fields: p.def(s.bool(), false, { doc: 'include profile_data' }),
    user_ids: p.opt(s.list(s.int(), { unique: true }), { doc: 'only these users' }),
  },
  openapiPath: '/users',
});

/**
 * GET /users/me: the whole user object (a human's with profile_data, a bot's with its bot fields), plus
 * max_message_id (zerver/views/users.py get_profile_backend).
 */
export type OwnUser = Omit<User, 'bot_type'> & { bot_type?: User['bot_type']; max_message_id: number };

export const getOwnUser = operation<OwnUser>()({
  name: 'get-own-user',
  method: 'GET',
  path: '/users/me',
  summary: 'The calling user',
  access: 'user',
  cacheable: true,
  params: {},
  openapiPath: '/users/me',
});

const userLookupParams = {
  client_gravatar: p.def(s.bool(), true),
  include_custom_profile_fields: p.def(s.bool(), false),
};

export const getUser = operation<{ user: User }>()({
  name: 'get-user',
  method: 'GET',
  path: '/users/{user_id}',
  summary: 'One user by ID',
  access: 'user',
  cacheable: true,
  params: { user_id: p.path(s.int()), ...userLookupParams },
  openapiPath: '/users/{user_id}',
});

export const getUserByEmail = operation<{ user: User }>()({
  name: 'get-user-by-email',
  method: 'GET',
  path: '/users/{email}',
  summary: 'One user by e-mail address',
  access: 'user',
  cacheable: true,
  params: { email: p.path(s.string()), ...userLookupParams },
  minFeatureLevel: 39,
  openapiPath: '/users/{email}',
});

export const createUser = operation<{ user_id: number }>()({
  name: 'create-user',
  method: 'POST',
  path: '/users',
  summary: 'Create a user account (administrators)',
  access: 'admin',
  params: {
    email: p.req(s.string()),
    password: p.req(s.string()),
    full_name: p.req(s.string()),
  },
  openapiPath: '/users',
});

/** One entry of `profile_data`: a field ID and its new value; null (or empty) removes the value. */
export interface ProfileDataUpdate {
  id: number;
  value: string | number[] | null;
}

export const profileDataParam = s.list(s.object({ id: s.int(), value: s.nullable(s.union(s.string(), s.list(s.int()), 'a string or a list of user IDs')) }));

// Access is checked per target in the handler: an administrator, or the owner of the bot being edited.
const updateUserParams = {
  full_name: p.opt(s.string(), { doc: 'new full name' }),
  role: p.opt(roleParam, { doc: '100 owner, 200 administrator, 300 moderator, 400 member, 600 guest' }),
  profile_data: p.opt(profileDataParam, { doc: 'JSON list of {"id": field ID, "value": ...}; null clears' }),
  new_email: p.opt(s.string(), { doc: 'new e-mail address (owners allowed to change e-mails)', minFeatureLevel: 313 }),
  // Replaced by `role` at feature level 8; still read so that old clients get the documented error.
  is_admin: p.opt(s.bool(), { doc: 'legacy: make or unmake an administrator' }),
  is_guest: p.opt(s.bool(), { doc: 'legacy: make or unmake a guest' }),
};

export const updateUser = operation<Record<string, never>>()({
  name: 'update-user',
  method: 'PATCH',
  path: '/users/{user_id}',
  summary: "Change a user's name, role, custom profile fields or e-mail (administrators, or a bot's owner)",
  access: 'user',
  params: { user_id: p.path(s.int()), ...updateUserParams },
  openapiPath: '/users/{user_id}',
});

export const updateUserByEmail = operation<Record<string, never>>()({
  name: 'update-user-by-email',
  method: 'PATCH',
  path: '/users/{email}',
  summary: 'The same as update-user, the user given by e-mail address',
  access: 'user',
  params: { email: p.path(s.string()), ...updateUserParams },
  minFeatureLevel: 313,
});

export const deactivateUser = operation<Record<string, never>>()({
  name: 'deactivate-user',
  method: 'DELETE',
  path: '/users/{user_id}',
  summary: 'Deactivate a user account and its bots (administrators)',
  // No role gate: zerver/views/users.py deactivate_user_backend checks access_user_by_id(..., for_admin=True), so a
  // non-administrator is told "Insufficient permission" (after "No such user" and the like), not "Must be ...".
  access: 'user',
  params: {
    user_id: p.path(s.int()),
    deactivation_notification_comment: p.opt(s.string({ maxLength: 2000 }), { doc: 'text for the notification e-mail', minFeatureLevel: 135 }),
  },
  openapiPath: '/users/{user_id}',
});

export const reactivateUser = operation<Record<string, never>>()({
  name: 'reactivate-user',
  method: 'POST',
  path: '/users/{user_id}/reactivate',
  summary: "Reactivate a deactivated user or bot (administrators, or a bot's owner)",
  // As deactivate-user: reactivate_user_backend's access_user_by_id(..., for_admin=True) lets a bot's owner through.
  access: 'user',
  params: { user_id: p.path(s.int()) },
  openapiPath: '/users/{user_id}/reactivate',
});

// Before 384 a server does not filter by `user_ids`: all users are read and filtered here, leaving out
// unknown IDs silently as a server does.
declareOlder(getUsers, [
  {
    before: 384,
    for: ['user_ids'],
    calls: ({ user_ids: _ids, ...rest }) => [olderCall(getUsers, rest)],
    // Only calls with user_ids take this form (`for`).
    keep: {
      key: 'members',
      elements: ({ user_ids: ids }) => {
        const wanted = new Set(ids);
        return (u) => wanted.has(u.user_id);
      },
    },
  },
]);

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const usersOps = {
  getUsers,
  getOwnUser,
  getUser,
  getUserByEmail,
  createUser,
  updateUser,
  updateUserByEmail,
  deactivateUser,
  reactivateUser,
} as const;
