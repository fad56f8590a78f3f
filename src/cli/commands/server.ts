import { getServerSettings, updateRealm } from '../../api/operations/server.js';
import { LIMITS } from '../../api/limits.js';
import { OPERATOR_PERMISSIONS, type OperatorPermission } from '../../server/embedded-facts.js';
import { defineCommand, type CommandSpec } from '../command/command.js';
import type { Context } from '../command/context.js';
import { printDryRun } from '../bulk/dry-run.js';
import { embeddedTarget } from '../target/embedded-target.js';
import { usageError } from '../core/errors.js';
import { arg, flag } from '../core/flags.js';

const PERMISSION_FIELDS = ['user_id', 'email', 'permission', 'granted', 'changed'] as const;

export const SERVER_SETTINGS_FIELDS = [
  'zulip_version',
  'zulip_feature_level',
  'zulip_merge_base',
  'svc_version',
  'svc_feature_level',
  'svc_merge_base',
  'realm_name',
  'realm_url',
  'realm_uri',
  'realm_icon',
  'realm_description',
  'realm_web_public_access_enabled',
  'email_auth_enabled',
  'require_email_format_usernames',
  'push_notifications_enabled',
  'is_incompatible',
  'authentication_methods',
  'external_authentication_methods',
] as const;

export const commands = [
  defineCommand({
    path: ['server', 'settings'],
    summary: 'show the public server settings (version, feature level, login methods)',
    description: 'Reads GET /server_settings, which needs no credentials.',
    examples: [
      'chatctl server settings',
      'chatctl server settings --server https://chat.example.com --json',
      'chatctl server settings --fields zulip_version,zulip_feature_level',
    ],
    output: { fields: SERVER_SETTINGS_FIELDS },
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client({ auth: false });
      const { result: _r, msg: _m, ...settings } = await client.call(getServerSettings, {});
      await out.item(settings);
    },
  }),
  defineCommand({
    path: ['server', 'update'],
    summary: 'rename the organization, or change its description (administrators)',
    description:
      `Changes the organization's name (at most ${LIMITS.realmName} characters) or its description (Zulip Markdown, at most ` +
      `${LIMITS.realmDescription} characters) with PATCH /realm, as Settings > Organization profile does; everyone's apps ` +
      'hear of it at once. This is how the embedded organization created on first use gets a name of its own. A value ' +
      'it already has is reported unchanged. server settings shows both.',
    examples: ['chatctl server update --name "Acme Corp"', 'chatctl server update --description "Where **Acme** talks." --dry-run'],
    options: {
      name: flag.string('--name <name>', "the organization's new name"),
      description: flag.string('--description <text>', 'its new description (Zulip Markdown; "" clears it)'),
    },
    mutating: true,
    check(opts) {
      if (opts.name === undefined && opts.description === undefined) throw usageError('say what to change: --name NAME, --description TEXT, or both');
      if (opts.name !== undefined && opts.name.trim() === '') throw usageError('--name cannot be empty');
    },
    async run(opts, ctx) {
      const client = await ctx.client();
      const params = { name: opts.name?.trim(), description: opts.description };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(updateRealm, params));
        return;
      }
      const answer = await client.call(updateRealm, params, { signal: ctx.signal });
      if (params.name !== undefined)
        ctx.info(answer.name ? `chatctl: renamed the organization to "${params.name}"` : `chatctl: name unchanged: already "${params.name}"`);
      if (params.description !== undefined) ctx.info(answer.description ? 'chatctl: changed the description' : 'chatctl: description unchanged');
    },
  }),
  permissionCommand('grant'),
  permissionCommand('revoke'),
  defineCommand({
    path: ['server', 'reset-password'],
    summary: "set an account's password in the embedded organization (embedded organization only)",
    description:
      "Sets the password of an account of the embedded organization by writing its data dir, as a server's operator " +
      'does with `manage.py changepassword`: whoever can open the files holds the organization already, so no other ' +
      'password is asked. The password comes from --password-stdin, or a hidden prompt asked twice on a terminal; ' +
      'otherwise one is generated and shown once on stderr. The API key stays as it is. A remote server is refused.',
    examples: ['chatctl server reset-password owner@localhost', 'printf %s "$PASSWORD" | chatctl server reset-password admin@acme.test --password-stdin'],
    args: { email: arg.required("the account's e-mail address") },
    options: { passwordStdin: flag.bool('--password-stdin', 'read the new password from stdin') },
    async run(opts, ctx) {
      const { email } = opts;
      const target = embeddedTarget(
        ctx,
        'server reset-password',
        'on a Zulip server its operator runs: manage.py changepassword EMAIL; a user can reset their own on the login page',
      );
      const [{ withOperatorStore }, { choosePassword }, { BotAccountError }] = await Promise.all([
        import('../target/data-dir.js'),
        import('../target/password.js'),
        import('../../server/embedded.js'),
      ]);
      await withOperatorStore(ctx, target, async (organization) => {
        const { password, generated } = await choosePassword(ctx, opts.passwordStdin, `New password for ${email}:`);
        const account = await organization.resetPassword(email, password).catch((e: unknown) => {
          throw e instanceof BotAccountError ? usageError(e.message) : e;
        });
        ctx.info(`chatctl: set the password of ${account.email} in ${target.dataDir}`);
        if (generated) ctx.io.stderr.write(`chatctl: generated password (shown once, keep it): ${password}\n`);
      });
    },
  }),
];

/**
 * Grants or revokes a permission in the embedded organization's store directly, as a server's operator does
 * with change_user_role: no API request can, on a server or here.
 */
async function changePermissionOf(
  ctx: Context,
  email: string,
  permission: OperatorPermission,
  granted: boolean,
): Promise<Record<(typeof PERMISSION_FIELDS)[number], unknown>> {
  const target = embeddedTarget(
    ctx,
    `server ${granted ? 'grant' : 'revoke'}`,
    `on a Zulip server its operator runs: manage.py change_user_role ${email} ${permission}`,
  );
  const { withOperatorStore } = await import('../target/data-dir.js');
  return withOperatorStore(ctx, target, (organization) => {
    const { account, changed } = organization.changePermission(email, permission, granted);
    return { user_id: account.id, email: account.email, permission, granted, changed };
  });
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
    args: {
      email: arg.required("the account's e-mail address"),
      permission: arg.choice(OPERATOR_PERMISSIONS.join(' or '), OPERATOR_PERMISSIONS, { what: 'permission' }),
    },
    output: { fields: PERMISSION_FIELDS, key: ['user_id', 'email', 'permission'] },
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const result = await changePermissionOf(ctx, opts.email, opts.permission, granted);
      if (!result.changed) ctx.info(`chatctl: ${result.email} ${granted ? 'already holds' : 'did not hold'} ${result.permission}`);
      await out.item(result);
    },
  });
}
