import { operation, p } from '../operation.js';
import { s } from '../schema.js';
import { ROLES, type User } from '../types.js';

export const getUsers = operation<{ members: User[] }>()({
  name: 'get-users',
  method: 'GET',
  path: '/users',
  summary: 'All users of the organization (active, deactivated and bots)',
  access: 'user',
  params: {
    client_gravatar: p.def(s.bool(), true, { doc: 'null avatar_url for Gravatar-hosted avatars' }),
    include_custom_profile_fields: p.def(s.bool(), false, { doc: 'include profile_data' }),
    user_ids: p.opt(s.list(s.int()), { doc: 'only these users (feature level 384)' }),
  },
  openapiPath: '/users',
});

export const getOwnUser = operation<Omit<User, 'profile_data'> & { max_message_id: number }>()({
  name: 'get-own-user',
  method: 'GET',
  path: '/users/me',
  summary: 'The calling user',
  access: 'user',
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
  params: { user_id: p.path(s.int()), ...userLookupParams },
  openapiPath: '/users/{user_id}',
});

export const getUserByEmail = operation<{ user: User }>()({
  name: 'get-user-by-email',
  method: 'GET',
  path: '/users/{email}',
  summary: 'One user by e-mail address',
  access: 'user',
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

export const roleParam = s.intOf(ROLES);
