import type { PermissionCase } from './matrix.js';

export const userCases: PermissionCase[] = [
  {
    name: 'list users',
    request: () => ({ method: 'GET', path: '/users' }),
    allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
    denied: {},
  },
  {
    name: 'create a user',
    request: () => ({ method: 'POST', path: '/users', body: [['email', `new${Math.random().toString(36).slice(2)}@example.com`], ['password', 'secret-password'], ['full_name', 'New Person']] }),
    allowed: ['owner', 'admin'],
    denied: 'Must be an organization administrator',
  },
];
