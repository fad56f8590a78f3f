import { setPermission } from '../../../src/server/model/user-permissions.js';
import { randomToken } from '../../helpers/names.js';
import { ADMINS_ONLY, type PermissionRows } from './matrix.js';

const everyone = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'] as const;
const administrators = ['owner', 'admin'] as const;

export const userCases: PermissionRows<'users'> = {
  getUsers: [
    {
      name: 'list users',
      request: () => ({ method: 'GET', path: '/users' }),
      allowed: everyone,
      denied: {},
    },
  ],
  getUser: [
    {
      name: 'get a user by ID',
      request: (f) => ({ method: 'GET', path: `/users/${f.others.member.id}` }),
      allowed: everyone,
      denied: {},
    },
  ],
  getUserByEmail: [
    {
      name: 'get a user by e-mail',
      request: (f) => ({ method: 'GET', path: `/users/${encodeURIComponent(f.others.member.email)}` }),
      allowed: everyone,
      denied: {},
    },
  ],
  getOwnUser: [
    {
      name: 'get the own user',
      request: () => ({ method: 'GET', path: '/users/me' }),
      allowed: everyone,
      denied: {},
    },
  ],
  createUser: [
    {
      name: 'create a user, holding can_create_users',
      request: (f) => {
        if (f.caller) setPermission(f.org.db, f.caller.id, 'can_create_users', true);
        return {
          method: 'POST',
          path: '/users',
          body: [
            ['email', `new${randomToken()}@example.com`],
            ['password', 'secret-password'],
            ['full_name', 'New Person'],
          ],
        };
      },
      allowed: administrators,
      denied: ADMINS_ONLY,
    },
    {
      name: 'create a user, without can_create_users',
      request: () => ({
        method: 'POST',
        path: '/users',
        body: [
          ['email', `new${randomToken()}@example.com`],
          ['password', 'secret-password'],
          ['full_name', 'New Person'],
        ],
      }),
      allowed: [],
      denied: {
        owner: 'User not authorized to create users',
        admin: 'User not authorized to create users',
        moderator: ADMINS_ONLY,
        member: ADMINS_ONLY,
        guest: ADMINS_ONLY,
        bot: ADMINS_ONLY,
      },
    },
  ],
  updateUser: [
    {
      name: 'rename a member',
      request: (f) => ({ method: 'PATCH', path: `/users/${f.others.member.id}`, body: [['full_name', `Renamed ${randomToken()}`]] }),
      allowed: administrators,
      denied: 'Insufficient permission',
    },
    {
      name: 'make a member a moderator',
      request: (f) => ({ method: 'PATCH', path: `/users/${f.others.member.id}`, body: [['role', '300']] }),
      allowed: administrators,
      denied: 'Insufficient permission',
    },
    {
      name: 'make a member an owner',
      request: (f) => ({ method: 'PATCH', path: `/users/${f.others.member.id}`, body: [['role', '100']] }),
      allowed: ['owner'],
      denied: {
        admin: 'Must be an organization owner',
        moderator: 'Insufficient permission',
        member: 'Insufficient permission',
        guest: 'Insufficient permission',
        bot: 'Insufficient permission',
      },
    },
    {
      name: "change a member's e-mail address, holding can_change_user_emails",
      request: (f) => {
        if (f.caller) setPermission(f.org.db, f.caller.id, 'can_change_user_emails', true);
        return { method: 'PATCH', path: `/users/${f.others.member.id}`, body: [['new_email', `moved${randomToken()}@example.com`]] };
      },
      allowed: ['owner'],
      denied: {
        admin: 'User not authorized to change user emails',
        moderator: 'Insufficient permission',
        member: 'Insufficient permission',
        guest: 'Insufficient permission',
        bot: 'Insufficient permission',
      },
    },
    {
      name: "change a member's e-mail address, without can_change_user_emails",
      request: (f) => ({ method: 'PATCH', path: `/users/${f.others.member.id}`, body: [['new_email', `moved${randomToken()}@example.com`]] }),
      allowed: [],
      denied: {
        owner: 'User not authorized to change user emails',
        admin: 'User not authorized to change user emails',
        moderator: 'Insufficient permission',
        member: 'Insufficient permission',
        guest: 'Insufficient permission',
        bot: 'Insufficient permission',
      },
    },
  ],
  updateUserByEmail: [
    {
      name: 'rename a member named by e-mail',
      request: (f) => ({ method: 'PATCH', path: `/users/${encodeURIComponent(f.others.member.email)}`, body: [['full_name', `Renamed ${randomToken()}`]] }),
      allowed: administrators,
      denied: 'Insufficient permission',
    },
  ],
  deactivateUser: [
    {
      name: 'deactivate a member',
      request: (f) => ({ method: 'DELETE', path: `/users/${f.others.member.id}` }),
      allowed: administrators,
      // zerver/lib/users.py access_user_common: for_admin access, not a role gate.
      denied: 'Insufficient permission',
    },
    {
      name: 'deactivate an owner',
      request: (f) => ({ method: 'DELETE', path: `/users/${f.others.owner.id}` }),
      allowed: ['owner'],
      denied: {
        admin: 'Must be an organization owner',
        moderator: 'Insufficient permission',
        member: 'Insufficient permission',
        guest: 'Insufficient permission',
        bot: 'Insufficient permission',
      },
    },
  ],
  reactivateUser: [
    {
      name: 'reactivate a deactivated member',
      request: (f) => {
        const gone = f.org.addUser({ active: false });
        return { method: 'POST', path: `/users/${gone.id}/reactivate` };
      },
      allowed: administrators,
      denied: 'Insufficient permission',
    },
    {
      // can_admin_user (zerver/models/users.py) lets a bot's owner administer it, whatever their role; reactivating
      // a generic bot is then checked against the bot creation policy (members may create bots by default).
      name: "reactivate the caller's own deactivated bot",
      request: (f) => {
        const gone = f.org.addUser({ active: false, bot: { type: 1, ownerId: (f.caller ?? f.org.owner).id } });
        return { method: 'POST', path: `/users/${gone.id}/reactivate` };
      },
      // reactivate_user_backend has no role decorator: a bot owning a bot passes too; a guest fails the creation policy.
      allowed: ['owner', 'admin', 'moderator', 'member', 'bot'],
      denied: { guest: ADMINS_ONLY },
    },
  ],
};
