/**
 * Requests as --verbose shows them: method, path, query and form fields, with every value that could be
 * a secret replaced (passwords, API keys, tokens). Headers are never shown: Authorization carries the key.
 */
import type { WireRequest } from '../api/wire.js';

/** Parameter names whose values are secrets (fetch_api_key's password, api_key, bot service tokens ...). */
const SECRET = /pass|secret|token|(^|_)key$|api_?key|(^|_)otp($|_)/i;
const MAX_VALUE = 80;

/** Whether a parameter's value is a secret, never to be shown (--verbose, --dry-run). */
export const isSecretParam = (name: string): boolean => SECRET.test(name);

function field([name, value]: [string, string]): string {
  if (isSecretParam(name)) return `${name}=***`;
  const shown = value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE - 3)}...` : value;
  return `${name}=${JSON.stringify(shown).slice(1, -1)}`;
}

export function describeRequest(req: WireRequest): string {
  const query = req.query.length ? `?${req.query.map(field).join('&')}` : '';
  const body = req.body.map(field);
  const files = (req.files ?? []).map((f) => `${f.field}=@${f.filename} (${f.data.length} bytes)`);
  return [`${req.method} ${req.path}${query}`, ...body, ...files].join(' ');
}
