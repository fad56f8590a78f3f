/** `chatctl users get`. */
import { getUser, getUserByEmail } from '../../../api/operations/users.js';
import { defineCommand } from '../../command/command.js';
import { arg, flag } from '../../core/flags.js';
import { USER_FIELDS, USER_DISPLAY } from './shared.js';

export const getCommand = defineCommand({
  path: ['users', 'get'],
  summary: 'show one user, by ID or e-mail address',
  description: 'Reads GET /users/{id} (or /users/{email}). Deactivated users and bots are shown too.',
  examples: ['chatctl users get 8', 'chatctl users get iago@example.com --json', 'chatctl users get 8 --custom-fields --fields profile_data'],
  args: { user: arg.required('user ID or e-mail address') },
  options: { customFields: flag.bool('--custom-fields', 'include custom profile fields (profile_data)') },
  output: { fields: USER_FIELDS, ...USER_DISPLAY, addedBy: { profile_data: 'customFields' } },
  async run(opts, ctx) {
    const out = ctx.output(opts);
    const client = await ctx.client();
    const ref = opts.user.trim();
    const common = { client_gravatar: false, include_custom_profile_fields: opts.customFields || undefined };
    const { user } = /^\d+$/.test(ref)
      ? await client.call(getUser, { user_id: Number(ref), ...common })
      : await client.call(getUserByEmail, { email: ref, ...common });
    await out.item(user);
  },
});
