import { resolve } from 'node:path';
import { fetchApiKey, getServerSettings } from '../../api/operations/server.js';
import { ChatClient } from '../../client/client.js';
import { defaultDataDir } from '../../config/paths.js';
import { readConfig, saveProfile } from '../../config/profiles.js';
import { defineCommand, opt } from '../command.js';
import type { Context } from '../context.js';
import { CliError, usageError } from '../errors.js';
import { readSecret } from '../io.js';
import { normalizeSite, selectedProfileName } from '../target.js';

async function readPassword(ctx: Context, fromStdin: boolean): Promise<string> {
  if (fromStdin) {
    const password = await readSecret(ctx.io.stdin);
    if (!password) throw usageError('--password-stdin read an empty password');
    return password;
  }
  return ctx.prompter.password('Password:', '--password-stdin');
}

export const commands = [
  defineCommand({
    path: ['login'],
    summary: 'log in and store the credentials in a profile',
    description:
      'Reads the server settings, exchanges the e-mail and password for an API key (fetch_api_key), and stores ' +
      'the e-mail the server returned and the key, never the password, in the profile (file mode 0600). ' +
      '--embedded logs in to the embedded organization in --data-dir instead of a server.',
    examples: [
      'chatctl login --server https://chat.example.com --email admin@example.com',
      'printf %s "$PASSWORD" | chatctl login --server https://chat.example.com --email admin@example.com --password-stdin',
      'chatctl login --embedded --data-dir ~/chat --email owner@localhost',
      'chatctl login --profile work --server https://chat.work.test --email me@work.test',
    ],
    options: [
      { flags: '--email <email>', description: 'the e-mail address (username) to log in as' },
      { flags: '--password-stdin', description: 'read the password from stdin' },
      { flags: '--embedded', description: 'log in to the embedded organization (in --data-dir or the default data dir)' },
    ],
    async run(opts, ctx) {
      const g = ctx.globals;
      const profileName = selectedProfileName(g, ctx.env, readConfig(ctx.env));
      const embedded = opt.bool(opts, 'embedded');
      if (embedded && g.server) throw usageError('--embedded and --server exclude each other');
      if (!embedded && !g.server) throw usageError('say where to log in: --server URL, or --embedded');
      const email = opt.str(opts, 'email') ?? (embedded ? 'owner@localhost' : undefined);
      if (!email) throw usageError('--email is required');
      if (embedded) {
        const dataDir = resolve(g.dataDir ?? ctx.env.CHATCTL_DATA_DIR ?? defaultDataDir(ctx.env));
        const password = await readPassword(ctx, opt.bool(opts, 'passwordStdin'));
        const [{ openEmbedded }, { loginEmbedded }, { isInitialized }] = await Promise.all([
          import('../../client/embedded.js'),
          import('../embedded-org.js'),
          import('../../server/realm.js'),
        ]);
        const transport = await openEmbedded(dataDir);
        try {
          if (!isInitialized(transport.router.db)) {
            throw new CliError(`there is no organization in ${dataDir}`, 'usage', `create one: chatctl init --data-dir ${dataDir}`);
          }
          const creds = await loginEmbedded(ctx, transport, email, password, profileName);
          ctx.info(`chatctl: logged in to the embedded organization in ${dataDir} as ${creds.email} (profile "${profileName}")`);
        } finally {
          await transport.close();
        }
        return;
      }
      const site = normalizeSite(g.server!);
      const { HttpTransport } = await import('../../client/http.js');
      const client = new ChatClient(new HttpTransport(site), null, { warn: (m) => ctx.warn(m) });
      try {
        const settings = await client.call(getServerSettings, {});
        if (settings.email_auth_enabled === false) {
          throw new CliError(`${site} does not allow password login`, 'auth', 'paste an API key instead: chatctl login --api-key-stdin');
        }
        const password = await readPassword(ctx, opt.bool(opts, 'passwordStdin'));
        const res = await client.call(fetchApiKey, { username: email, password });
        const featureLevel = settings.zulip_feature_level ?? settings.svc_feature_level ?? 0;
        await saveProfile(
          ctx.env,
          profileName,
          {
            server: site,
            email: res.email,
            apiKey: res.api_key,
            featureLevel,
            serverVersion: settings.zulip_version ?? settings.svc_version,
            checkedAt: Math.floor(ctx.now() / 1000),
          },
          true,
        );
        ctx.info(`chatctl: logged in to ${site} as ${res.email} (profile "${profileName}", feature level ${featureLevel})`);
      } finally {
        await client.close();
      }
    },
  }),
];
