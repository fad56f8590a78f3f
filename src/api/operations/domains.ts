/** Allowed e-mail domains for new accounts (used when the organization restricts sign-ups to them). */
import { operation, p } from '../operation.js';
import { s } from '../schema.js';

export interface RealmDomain {
  domain: string;
  allow_subdomains: boolean;
}

export const getRealmDomains = operation<{ domains: RealmDomain[] }>()({
  name: 'get-realm-domains',
  method: 'GET',
  path: '/realm/domains',
  summary: 'The allowed e-mail domains',
  access: 'user',
  cacheable: true,
  params: {},
});

export const addRealmDomain = operation<{ new_domain: [number, string] }>()({
  name: 'add-realm-domain',
  method: 'POST',
  path: '/realm/domains',
  summary: 'Allow an e-mail domain (owners)',
  access: 'owner',
  params: {
    domain: p.req(s.string(), { doc: 'e.g. example.com (lower-cased)' }),
    allow_subdomains: p.req(s.bool(), { doc: 'also allow its subdomains' }),
  },
});

export const updateRealmDomain = operation<Record<string, never>>()({
  name: 'update-realm-domain',
  method: 'PATCH',
  path: '/realm/domains/{domain}',
  summary: 'Allow or disallow the subdomains of an allowed domain (owners)',
  access: 'owner',
  params: { domain: p.path(s.string()), allow_subdomains: p.req(s.bool()) },
});

export const removeRealmDomain = operation<Record<string, never>>()({
  name: 'remove-realm-domain',
  method: 'DELETE',
  path: '/realm/domains/{domain}',
  summary: 'Remove an allowed domain (owners)',
  access: 'owner',
  params: { domain: p.path(s.string()) },
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const domainsOps = {
  getRealmDomains,
  addRealmDomain,
  updateRealmDomain,
  removeRealmDomain,
} as const;
