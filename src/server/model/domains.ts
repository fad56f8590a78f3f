/** The organization's allowed e-mail domains (`realm_domains`), checked and changed as a Zulip server does. */
import type { RealmDomain } from '../../api/operations/domains.js';
import type { EventSink } from '../context.js';
import { getSetting, setSetting } from './realm.js';
import type { Db } from '../store/db.js';
import { listeningUserIds } from './event-queues.js';

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

/** Adds an allowed domain and tells everyone; returns its ID. */
export function addDomain(db: Db, sink: EventSink, domain: string, allowSubdomains: boolean): number {
  const info = db.prepare('INSERT INTO realm_domains (domain, allow_subdomains) VALUES (?, ?)').run(domain, allowSubdomains ? 1 : 0);
  sink.emit({ type: 'realm_domains', op: 'add', realm_domain: { domain, allow_subdomains: allowSubdomains } }, listeningUserIds(db));
  return Number(info.lastInsertRowid);
}

export function changeDomain(db: Db, sink: EventSink, row: DomainRow, allowSubdomains: boolean): void {
  db.prepare('UPDATE realm_domains SET allow_subdomains = ? WHERE id = ?').run(allowSubdomains ? 1 : 0, row.id);
  sink.emit({ type: 'realm_domains', op: 'change', realm_domain: { domain: row.domain, allow_subdomains: allowSubdomains } }, listeningUserIds(db));
}

/** Removes an allowed domain; with none left, a restriction to the listed domains would let nobody in: a server lifts it. */
export function removeDomain(db: Db, sink: EventSink, row: DomainRow): void {
  db.prepare('DELETE FROM realm_domains WHERE id = ?').run(row.id);
  const everyone = listeningUserIds(db);
  sink.emit({ type: 'realm_domains', op: 'remove', domain: row.domain }, everyone);
  if (allDomains(db).length === 0 && getSetting(db, 'emails_restricted_to_domains')) {
    setSetting(db, 'emails_restricted_to_domains', false);
    sink.emit({ type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false }, everyone);
  }
}
