import { operation, p } from '../operation.js';
import { REALM_SETTINGS, type RealmSettingName } from '../realm-settings.js';
import { s } from '../schema.js';
import type { ApiKeyResult, ServerSettings } from '../types.js';
import type { GroupSettingValue } from './channels.js';

export const getServerSettings = operation<ServerSettings>()({
  name: 'get-server-settings',
  method: 'GET',
  path: '/server_settings',
  summary: 'Public server settings: version, feature level, authentication methods, organization identity',
  access: 'none',
  params: {},
  openapiPath: '/server_settings',
});

/**
 * What PATCH /realm answers (zerver/views/realm.py update_realm): each setting it changed, strings as
 * `"updated"`, time limits set to "unlimited" as null, group settings as their new value, channels as the
 * ID sent. Nothing changed: no keys.
 */
export type RealmUpdate = Partial<Record<RealmSettingName, string | number | boolean | null | GroupSettingValue>>;

export const updateRealm = operation<RealmUpdate>()({
  name: 'update-realm',
  method: 'PATCH',
  path: '/realm',
  summary: "Change the organization's settings (administrators; some owners only)",
  access: 'admin',
  params: REALM_SETTINGS,
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
