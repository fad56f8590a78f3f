/** The Zulip ecosystem's `zuliprc`: an INI file whose `[api]` section holds email, key and site. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { systemReason } from '../errno.js';
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

/** What a zuliprc must look like: Zulip's "Download zuliprc" writes exactly this. */
const ZULIPRC_SHAPE = 'a zuliprc is an INI file with an [api] section holding email=, key= and site= lines';

export function readZuliprc(path: string): Zuliprc {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ChatctlError(
      `cannot read the zuliprc ${path}: ${systemReason(e)}`,
      'usage',
      'name a zuliprc that exists and that you can read (--zuliprc FILE or ZULIP_CONFIG), or unset the one named',
    );
  }
  assertPrivate(path);
  const ini = require('ini') as typeof import('ini');
  const api = (ini.parse(text) as Record<string, unknown>).api;
  if (!api || typeof api !== 'object') {
    throw new ChatctlError(
      `${path} has no [api] section`,
      'usage',
      `${ZULIPRC_SHAPE} (Zulip: Settings > Account & privacy > API key > Download zuliprc); fix it, or move it away: mv ${path} ${path}.broken`,
    );
  }
  return api as Zuliprc;
}
