/** Checks on user-supplied names and addresses, with a Zulip server's messages. */
import { badRequest } from '../../api/errors.js';
import { getSetting } from './realm.js';
import type { Db } from '../store/db.js';
import { nameKey } from '../store/name-key.js';
import { statement } from '../store/statements.js';

export const MAX_NAME_LENGTH = 100;
export const MIN_NAME_LENGTH = 2;

export function validateFullName(db: Db, raw: string, exceptUserId?: number): string {
  const name = raw.trim();
  if ([...name].length > MAX_NAME_LENGTH) throw badRequest('Name too long!');
  if ([...name].length < MIN_NAME_LENGTH) throw badRequest('Name too short!');
  // Control, format and unassigned characters, and the characters Zulip's mention syntax would trip over.
  if (/[\p{C}*`\\>"@]/u.test(name)) throw badRequest('Invalid characters in name!');
  // `Name|15` would read as a mention of user 15 to a sloppy parser of the mention syntax.
  if (/\|\d+$/.test(raw)) throw badRequest('Invalid format!');
  if (getSetting(db, 'require_unique_names')) {
    const taken = statement(db, 'SELECT 1 FROM users WHERE name_key = ? AND id IS NOT ? AND is_system_bot = 0 LIMIT 1').get(
      nameKey(name),
      exceptUserId ?? null,
    );
    if (taken) throw badRequest('Unique names required in this organization.');
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
  const rows = statement(db, 'SELECT domain, allow_subdomains FROM realm_domains').all() as { domain: string; allow_subdomains: number }[];
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
  if (statement(db, 'SELECT 1 FROM users WHERE email = ? COLLATE NOCASE').get(email)) {
    throw badRequest(`Email '${email}' already in use`);
  }
  return email;
}

/** A new password as POST /users takes it: too short is too weak. */
export function checkNewPassword(password: string): void {
  if (password.length < 6) throw badRequest('The password is too weak.');
}

const URL_SCHEMES = new Set(['http:', 'https:', 'ftp:', 'ftps:']);

/** Whether a string is an absolute web URL with a plausible host, as a Zulip server's URL validator requires. */
export function isValidUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (!URL_SCHEMES.has(url.protocol)) return false;
  const host = url.hostname;
  return host === 'localhost' || host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || /^([a-z0-9-]+\.)+[a-z0-9-]{2,}$/i.test(host);
}
