import { readConfig, removeProfile } from '../../config/profiles.js';
import { defineCommand } from '../command.js';
import { usageError } from '../errors.js';
import { selectedProfileName } from '../target.js';

export const commands = [
  defineCommand({
    path: ['logout'],
    summary: 'forget the stored credentials of a profile',
    description: 'Removes the profile (its e-mail and API key) from the configuration file. The key itself stays valid on the server.',
    examples: ['chatctl logout', 'chatctl logout --profile work'],
    async run(_opts, ctx) {
      const name = selectedProfileName(ctx.globals, ctx.env, readConfig(ctx.env));
      if (!(await removeProfile(ctx.env, name))) throw usageError(`no profile named "${name}"`);
      ctx.info(`chatctl: logged out of profile "${name}"`);
    },
  }),
];
