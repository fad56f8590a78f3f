import { getServerSettings } from '../../api/operations/server.js';
import { isOperatorPermission, OPERATOR_PERMISSIONS } from '../../server/operator-permissions.js';
import { defineCommand, opt, type CommandSpec } from '../command.js';
import type { Context } from '../context.js';
import { CliError, usageError } from '../errors.js';
import type { OutputFlags } from '../output/output.js';

const PERMISSION_FIELDS = ['user_id', 'email', 'permission', 'granted', 'changed'] as const;

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
  permissionCommand('grant'),
  permissionCommand('revoke'),
];

/**
 * Grants or revokes a permission in the embedded organization's store directly, as a server's operator does
 * with change_user_role: no API request can, on a server or here.
 */
async function changePermissionOf(ctx: Context, email: string, permission: string, granted: boolean): Promise<Record<(typeof PERMISSION_FIELDS)[number], unknown>> {
  if (!isOperatorPermission(permission)) throw usageError(`unknown permission "${permission}"`, `permissions: ${OPERATOR_PERMISSIONS.join(', ')}`);
  const target = ctx.target();
  if (target.kind !== 'embedded') {
    throw usageError(
      `server ${granted ? 'grant' : 'revoke'} changes an embedded organization's data dir; the target is the server ${target.site}`,
      `on a Zulip server its operator runs: manage.py change_user_role ${email} ${permission}`,
    );
  }
  const [{ openDb }, { isInitialized }, perms] = await Promise.all([
    import('../../server/store/db.js'),
    import('../../server/realm.js'),
    import('../../server/permissions.js'),
  ]);
  const db = openDb(target.dataDir, (line) => ctx.io.stderr.write(`chatctl: ${line}\n`));
  try {
    if (!isInitialized(db)) throw new CliError(`there is no organization in ${target.dataDir}`, 'usage', `create one first: chatctl init --data-dir ${target.dataDir}`);
    const { user, changed } = perms.changePermission(db, email, permission, granted);
    return { user_id: user.id, email: user.email, permission, granted, changed };
  } catch (e) {
    if (e instanceof perms.UnknownUserError) throw new CliError(`No such user: ${e.email}`, 'notFound');
    throw e;
  } finally {
    db.close();
  }
}

function permissionCommand(verb: 'grant' | 'revoke'): CommandSpec {
  const granted = verb === 'grant';
  return defineCommand({
    path: ['server', verb],
    summary: `${verb} a permission a Zulip server gives no one by default (embedded organization only)`,
    description:
      `${granted ? 'Grants' : 'Revokes'} a per-user permission of the embedded organization, as a server's operator does with ` +
      '`manage.py change_user_role EMAIL PERMISSION`: can_create_users lets an administrator create accounts with ' +
      '`users create`; can_change_user_emails lets an owner change e-mail addresses with `users update --new-email`. ' +
      'No one holds them by default except the owner `chatctl init` creates. It writes the data dir directly, so it ' +
      'works only on the embedded organization; a remote server is refused.',
    examples: [`chatctl server ${verb} admin@example.com can_create_users`, `chatctl server ${verb} owner@localhost can_change_user_emails --json`],
    args: [
      { name: 'email', description: "the account's e-mail address", required: true },
      { name: 'permission', description: OPERATOR_PERMISSIONS.join(' or '), required: true },
    ],
    output: { fields: PERMISSION_FIELDS },
    async run(opts, ctx) {
      const out = ctx.output(opts as OutputFlags);
      const result = await changePermissionOf(ctx, opt.str(opts, 'email')!, opt.str(opts, 'permission')!, granted);
      if (!result.changed) ctx.info(`chatctl: ${result.email} ${granted ? 'already holds' : 'did not hold'} ${result.permission}`);
      await out.item(result);
    },
  });
}
