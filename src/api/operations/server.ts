import { LIMITS } from '../limits.js';
import { operation, p } from '../operation.js';
import { s } from '../schema.js';
import type { ApiKeyResult, ServerSettings } from '../types.js';

export const getServerSettings = operation<ServerSettings>()({
  name: 'get-server-settings',
  method: 'GET',
  path: '/server_settings',
  summary: 'Public server settings: version, feature level, authentication methods, organization identity',
  access: 'none',
  params: {},
  openapiPath: '/server_settings',
});

/** What PATCH /realm answers: each string setting it changed, as `"updated"` (zerver/views/realm.py update_realm). */
export interface RealmUpdate {
  name?: 'updated';
  description?: 'updated';
}

export const updateRealm = operation<RealmUpdate>()({
  name: 'update-realm',
  method: 'PATCH',
  path: '/realm',
  summary: "Change the organization's name or description (administrators)",
  access: 'admin',
  params: {
    name: p.opt(s.string({ maxLength: LIMITS.realmName }), { doc: `the organization's name (at most ${LIMITS.realmName} characters)` }),
    description: p.opt(s.string({ maxLength: LIMITS.realmDescription }), {
      doc: `its description, in Zulip's Markdown (at most ${LIMITS.realmDescription} characters)`,
    }),
  },
  idempotent: true,
});

export const fetchApiKey = operation<ApiKeyResult>()({
  name: 'fetch-api-key',
  method: 'POST',
  path: '/fetch_api_key',
  summary: "Exchange a username (e-mail) and password for the user's API key",
  access: 'none',
  params: {
    username: p.req(s.string(), { doc: 'e-mail address (or directory username)' }),
    password: p.req(s.string(), { doc: 'the password' }),
  },
  idempotent: true,
  openapiPath: '/fetch_api_key',
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const serverOps = {
  getServerSettings,
  updateRealm,
  fetchApiKey,
} as const;
