import { readConfig, useProfile } from '../../config/profiles.js';
import { defineCommand } from '../command/command.js';
import { notFound } from '../../errors.js';
import { arg } from '../core/flags.js';
import { announceDefault } from '../target/store-profile.js';

const FIELDS = ['name', 'default', 'kind', 'target', 'email'] as const;

export const commands = [
  defineCommand({
    path: ['profiles', 'list'],
    default: true,
    summary: 'list the profiles, the default one marked',
    description:
      'Lists the stored profiles: name, whether it is the default (what commands use when no flag or variable names a ' +
      'target), kind (server or embedded), the server URL or data dir, and the e-mail. Never the API key.',
    examples: ['chatctl profiles', 'chatctl profiles list --json'],
    output: { fields: FIELDS, key: ['name'] },
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const config = readConfig(ctx.env);
      const rows = Object.entries(config.profiles ?? {})
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, p]) => ({
          name,
          default: name === config.defaultProfile,
          kind: p.server ? 'server' : 'embedded',
          target: p.server ?? p.embedded ?? null,
          email: p.email,
        }));
      if (!rows.length) ctx.info('chatctl: no profiles; log in first: chatctl login --server URL --email EMAIL, or chatctl login --embedded');
      await out.list(rows);
    },
  }),
  defineCommand({
    path: ['profiles', 'use'],
    summary: 'make a profile the default',
    description: 'Makes NAME the default profile: the one every command uses when no flag or environment variable names a target.',
    examples: ['chatctl profiles use work'],
    args: { name: arg.required('the profile to use by default') },
    async run(opts, ctx) {
      const { name } = opts;
      const change = await useProfile(ctx.env, name);
      if (!change) {
        const known = Object.keys(readConfig(ctx.env).profiles ?? {});
        throw notFound(`no profile named "${name}"`, known.length ? `profiles: ${known.join(', ')}` : 'log in first: chatctl login');
      }
      if (change.before === name) ctx.info(`chatctl: "${name}" already is the default profile`);
      else announceDefault(ctx, name, change);
    },
  }),
];
