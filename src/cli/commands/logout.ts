import { readConfig, removeProfile } from '../../config/profiles.js';
import { defineCommand } from '../command/command.js';
import { usageError } from '../core/errors.js';
import { selectedProfileName } from '../target/target.js';

export const commands = [
  defineCommand({
    path: ['logout'],
    summary: 'forget the stored credentials of a profile',
    description:
      'Removes the profile (its e-mail and API key) from the configuration file. The key itself stays valid on the server. ' +
      'Logging out of the default profile leaves no default: stderr says how to pick another, and how to sign in again.',
    examples: ['chatctl logout', 'chatctl logout --profile work'],
    async run(_opts, ctx) {
      const before = readConfig(ctx.env);
      const name = selectedProfileName(ctx.globals, ctx.env, before);
      const profile = before.profiles?.[name];
      if (!profile || !(await removeProfile(ctx.env, name))) throw usageError(`no profile named "${name}"`);
      ctx.info(`chatctl: logged out of profile "${name}"`);
      const where = profile.server ? `--server ${profile.server} --email ${profile.email}` : `--embedded --data-dir ${profile.embedded}`;
      const as = name === 'default' ? '' : ` --profile ${name}`;
      ctx.info(`chatctl: to sign in again: chatctl login ${where}${as}${profile.server ? '' : ' (no password needed)'}`);
      if (before.defaultProfile === name) {
        const others = Object.keys(before.profiles ?? {}).filter((p) => p !== name);
        ctx.info(
          others.length
            ? `chatctl: there is no default profile now; pick one of ${others.join(', ')}: chatctl profiles use NAME`
            : 'chatctl: no profile is left',
        );
      }
    },
  }),
];
