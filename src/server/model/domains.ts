/** The organization's allowed e-mail domains (`realm_domains`), checked as a Zulip server checks them. */
import type { RealmDomain } from '../../api/operations/domains.js';
import type { Db } from '../store/db.js';

export interface DomainRow {
  id: number;
  domain: string;
  allow_subdomains: number;
}

export const MAX_DOMAIN_LENGTH = 255;

/** Why a (lower-cased) domain is not acceptable, in a server's words; null when it is. */
export function domainProblem(domain: string): string | null {
  if (domain.length === 0) return "Domain can't be empty.";
  if (!domain.includes('.')) return 'Domain must have at least one dot (.)';
  if (domain.length > MAX_DOMAIN_LENGTH) return 'Domain is too long';
  if (domain.startsWith('.') || domain.endsWith('.')) return 'Domain cannot start or end with a dot (.)';
  for (const label of domain.split('.')) {
    if (!label) return "Consecutive '.' are not allowed.";
    if (label.startsWith('-') || label.endsWith('-')) return "Subdomains cannot start or end with a '-'.";
    if (!/^[a-z0-9-]*$/.test(label)) return "Domain can only have letters, numbers, '.' and '-'s.";
  }
  return null;
}

export const allDomains = (db: Db): DomainRow[] => db.prepare('SELECT * FROM realm_domains ORDER BY id').all() as DomainRow[];

/** A domain as the path names it: matched exactly, as a server does (only additions are lower-cased). */
export const domainByName = (db: Db, domain: string): DomainRow | undefined =>
  db.prepare('SELECT * FROM realm_domains WHERE domain = ?').get(domain) as DomainRow | undefined;

export const domainToWire = (row: DomainRow): RealmDomain => ({ domain: row.domain, allow_subdomains: row.allow_subdomains === 1 });
