import { getOwnUser } from '../../api/operations/users.js';
import { ROLE_NAMES } from '../../api/roles.js';
import { defineCommand } from '../command/command.js';

const FIELDS = ['target', 'profile', 'source', 'credentials', 'email', 'api_key', 'user_id', 'full_name', 'role', 'role_name'] as const;

/** Enough of a key to tell two apart, never enough to use. */
export const maskKey = (key: string): string => `${'*'.repeat(Math.max(0, key.length - 4))}${key.slice(-4)}`;

export const commands = [
  defineCommand({
    path: ['whoami'],
    summary: 'show where requests go, from which profile, and as whom',
    description:
      'Shows the target (server URL or embedded data dir), the profile, what chose the target (source: a flag, an ' +
      'environment variable by name, the default profile, a zuliprc), where the credentials came from (credentials: ' +
      'a profile, a zuliprc, or ZULIP_EMAIL and ZULIP_API_KEY, saying whose they replaced), and the authenticated user ' +
      '(GET /users/me). The API key is masked to its last four characters.',
    examples: ['chatctl whoami', 'chatctl whoami --json'],
    output: { fields: FIELDS, roles: ['role'] },
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const target = ctx.target();
      const client = await ctx.client();
      const me = await client.call(getOwnUser, {});
      const creds = client.credentials!;
      await out.item({
        target: target.kind === 'remote' ? target.site : `embedded:${target.dataDir}`,
        profile: target.fromProfile ? target.profileName : null,
        source: target.source,
        credentials: target.credentialsSource ?? null,
        email: creds.email,
        api_key: maskKey(creds.apiKey),
        user_id: me.user_id,
        full_name: me.full_name,
        role: me.role,
        role_name: ROLE_NAMES[me.role],
      });
    },
  }),
];
