/** Wire shapes of the resources, with the field names a Zulip server uses. */

import type { Role } from './roles.js';

export type BotType = 1 | 2 | 3 | 4;

export interface ProfileValue {
  value: string;
  rendered_value?: string;
}

export interface User {
  user_id: number;
  delivery_email: string | null;
  email: string;
  full_name: string;
  date_joined: string;
  is_active: boolean;
  is_owner: boolean;
  is_admin: boolean;
  is_guest: boolean;
  /** Level 73; the embedded server has no billing, so no one is one (a server's default). */
  is_billing_admin: boolean;
  is_bot: boolean;
  bot_type: BotType | null;
  bot_owner_id?: number | null;
  role: Role;
  timezone: string;
  avatar_url: string | null;
  avatar_version: number;
  is_imported_stub: boolean;
  /** Present (true) for the server's system bots only (Notification Bot, Welcome Bot, Email Gateway). */
  is_system_bot?: true;
  is_deleted?: true;
  profile_data?: Record<string, ProfileValue>;
}

export interface ExternalAuthMethod {
  name: string;
  display_name: string;
  display_icon: string | null;
  login_url: string;
  signup_url: string;
}

export interface ServerSettings {
  authentication_methods: Record<string, boolean>;
  external_authentication_methods: ExternalAuthMethod[];
  zulip_feature_level?: number;
  zulip_version?: string;
  zulip_merge_base?: string;
  svc_feature_level?: number;
  svc_version?: string;
  svc_merge_base?: string;
  push_notifications_enabled: boolean;
  is_incompatible: boolean;
  email_auth_enabled: boolean;
  require_email_format_usernames: boolean;
  realm_url?: string;
  realm_uri?: string;
  realm_name?: string;
  realm_icon?: string;
  realm_description?: string;
  realm_web_public_access_enabled?: boolean;
}

export interface ApiKeyResult {
  api_key: string;
  email: string;
  user_id: number;
}

/** What every success body carries besides its data. */
export interface SuccessEnvelope {
  result: 'success';
  msg: string;
  ignored_parameters_unsupported?: string[];
}
