/** Checks on user-supplied names and addresses, with a Zulip server's messages. */
import { badRequest } from '../../api/errors.js';
import { getSetting } from '../realm.js';
import type { Db } from '../store/db.js';

export const MAX_NAME_LENGTH = 100;
export const MIN_NAME_LENGTH = 2;

export function validateFullName(db: Db, raw: string, exceptUserId?: number): string {
  const name = raw.trim();
  if ([...name].length > MAX_NAME_LENGTH) throw badRequest('Name too long!');
  if ([...name].length < MIN_NAME_LENGTH) throw badRequest('Name too short!');
  // Control characters and the characters Zulip's mention syntax would trip over.
  if (/[\u0000-\u001f\u007f*`\\>"@]/.test(name)) throw badRequest('Invalid characters in name!');
  if (/\|\d+$/.test(name)) throw badRequest('Invalid format!');
  if (getSetting(db, 'require_unique_names')) {
    const clash = db
      .prepare('SELECT id FROM users WHERE full_name = ? COLLATE NOCASE AND id IS NOT ?')
      .get(name, exceptUserId ?? null);
    if (clash) throw badRequest('Unique names required in this organization.');
  }
  return name;
}

const ADDRESS = /^[^\s@<>(),;:"[\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

export const isValidEmail = (email: string): boolean => ADDRESS.test(email) && email.length <= 254;

export const emailDomain = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/** Whether the organization's allowed-domain list lets this address in (none listed or not restricted: all). */
export function domainAllowed(db: Db, email: string): boolean {
  if (!getSetting(db, 'emails_restricted_to_domains')) return true;
  const domain = emailDomain(email);
  const rows = db.prepare('SELECT domain, allow_subdomains FROM realm_domains').all() as { domain: string; allow_subdomains: number }[];
  return rows.some((r) => domain === r.domain || (r.allow_subdomains === 1 && domain.endsWith(`.${r.domain}`)));
}

/** The address a new account may take, or the reason it may not. */
export function newEmailProblem(db: Db, email: string): string | null {
  if (!isValidEmail(email)) return 'Invalid address.';
  if (!domainAllowed(db, email)) return 'Outside your domain.';
  if (getSetting(db, 'emails_restricted_to_domains') && email.slice(0, email.lastIndexOf('@')).includes('+')) {
    return 'Email addresses containing + are not allowed.';
  }
  return null;
}

export function validateNewEmail(db: Db, raw: string): string {
  const email = raw.trim();
  if (!isValidEmail(email)) throw badRequest('Bad name or username');
  if (!domainAllowed(db, email)) throw badRequest(`Email '${email}' not allowed in this organization`);
  const problem = newEmailProblem(db, email);
  if (problem) throw badRequest(problem);
  if (db.prepare('SELECT 1 FROM users WHERE email = ? COLLATE NOCASE').get(email)) {
    throw badRequest(`Email '${email}' already in use`);
  }
  return email;
}
