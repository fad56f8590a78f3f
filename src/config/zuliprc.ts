/** The Zulip ecosystem's `zuliprc`: an INI file whose `[api]` section holds email, key and site. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ChatctlError } from '../errors.js';
import { assertPrivate } from './credentials-file.js';

export interface Zuliprc {
  email?: string;
  key?: string;
  site?: string;
  insecure?: string;
  cert_bundle?: string;
  client_cert?: string;
  client_cert_key?: string;
}

const require = createRequire(import.meta.url);

export function readZuliprc(path: string): Zuliprc {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ChatctlError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, 'usage');
  }
  assertPrivate(path);
  const ini = require('ini') as typeof import('ini');
  const api = (ini.parse(text) as Record<string, unknown>).api;
  if (!api || typeof api !== 'object') throw new ChatctlError(`${path} has no [api] section`, 'usage');
  return api as Zuliprc;
}
