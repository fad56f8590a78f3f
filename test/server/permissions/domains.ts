import { randomToken } from '../../helpers/names.js';
import type { Fixture, PermissionRows } from './matrix.js';

/** An allowed domain stored directly, for the operations that change one. */
function storedDomain(f: Fixture): string {
  const domain = `d${randomToken()}.example.com`;
  f.org.db.prepare('INSERT INTO realm_domains (domain) VALUES (?)').run(domain);
  return domain;
}

export const domainCases: PermissionRows<'domains'> = {
  getRealmDomains: [
    {
      name: 'list allowed domains',
      request: () => ({ method: 'GET', path: '/realm/domains' }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
  ],
  addRealmDomain: [
    {
      name: 'add an allowed domain',
      request: () => ({
        method: 'POST',
        path: '/realm/domains',
        body: [
          ['domain', `a${randomToken()}.example.com`],
          ['allow_subdomains', 'false'],
        ],
      }),
      allowed: ['owner'],
      denied: 'Must be an organization owner',
    },
  ],
  updateRealmDomain: [
    {
      name: 'change an allowed domain',
      request: (f) => ({ method: 'PATCH', path: `/realm/domains/${storedDomain(f)}`, body: [['allow_subdomains', 'true']] }),
      allowed: ['owner'],
      denied: 'Must be an organization owner',
    },
  ],
  removeRealmDomain: [
    {
      name: 'remove an allowed domain',
      request: (f) => ({ method: 'DELETE', path: `/realm/domains/${storedDomain(f)}` }),
      allowed: ['owner'],
      denied: 'Must be an organization owner',
    },
  ],
};
