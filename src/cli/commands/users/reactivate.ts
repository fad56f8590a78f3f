/** `chatctl users reactivate`. */
import { reactivateUser } from '../../../api/operations/users.js';
import { OUTCOME_FIELDS, planCall, runCalls } from '../../bulk/runner.js';
import { defineCommand } from '../../command/command.js';
import { arg } from '../../core/flags.js';
import { USER_BULK_FLAGS, listedUserRows, planForUsers } from './shared.js';

export const reactivateCommand = defineCommand({
  path: ['users', 'reactivate'],
  summary: 'reactivate deactivated user accounts (administrators)',
  description:
    'Reactivates the named users (IDs or e-mails), or one per row of --from-file (column user, user_id or ' +
    'email; other columns are ignored), so the file users deactivate took, or what users list prints in any ' +
    'format, brings them back as it is. A user already active is reported unchanged, so a run can be repeated.',
  examples: ['chatctl users reactivate polonius@example.com', 'chatctl users reactivate --from-file returning.csv --json'],
  args: { users: arg.variadic('user IDs or e-mail addresses') },
  options: USER_BULK_FLAGS,
  output: { fields: OUTCOME_FIELDS },
  mutating: true,
  async run(opts, ctx) {
    const rows = await listedUserRows(ctx, opts);
    const calls = await planForUsers(
      ctx,
      rows,
      (_r, userId, user) => ({
        status: 'reactivated',
        // Already active (an earlier run, or never deactivated): nothing to send.
        inPlace: user?.is_active ? { id: userId } : undefined,
        call: planCall(reactivateUser, { user_id: userId }, { id: userId }),
      }),
      { users: true },
    );
    await runCalls(ctx, opts, await ctx.client(), calls, 'reactivated');
  },
});
