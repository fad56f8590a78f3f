import { getServerSettings } from '../../api/operations/server.js';
import { defineCommand } from '../command.js';
import type { OutputFlags } from '../output/output.js';

export const SERVER_SETTINGS_FIELDS = [
  'zulip_version', 'zulip_feature_level', 'zulip_merge_base', 'svc_version', 'svc_feature_level', 'svc_merge_base',
  'realm_name', 'realm_url', 'realm_uri', 'realm_icon', 'realm_description', 'realm_web_public_access_enabled',
  'email_auth_enabled', 'require_email_format_usernames', 'push_notifications_enabled', 'is_incompatible',
  'authentication_methods', 'external_authentication_methods',
] as const;

export const commands = [
  defineCommand({
    path: ['server', 'settings'],
    summary: 'show the public server settings (version, feature level, login methods)',
    description: 'Reads GET /server_settings, which needs no credentials.',
    examples: ['chatctl server settings', 'chatctl server settings --server https://chat.example.com --json', 'chatctl server settings --fields zulip_version,zulip_feature_level'],
    output: { fields: SERVER_SETTINGS_FIELDS },
    async run(opts, ctx) {
      const out = ctx.output(opts as OutputFlags);
      const client = await ctx.client({ auth: false });
      const { result: _r, msg: _m, ...settings } = await client.call(getServerSettings, {});
      await out.item(settings);
    },
  }),
];
