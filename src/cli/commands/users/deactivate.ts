/** `chatctl users deactivate`. */
import { deactivateBot } from '../../../api/operations/bots.js';
import { deactivateUser } from '../../../api/operations/users.js';
import { confirmAndRun, OUTCOME_FIELDS, planCall } from '../../bulk/runner.js';
import { defineCommand } from '../../command/command.js';
import { questionAbout } from '../../bulk/confirm.js';
import { arg, flag } from '../../core/flags.js';
import { USER_BULK_FLAGS, listedUserRows, planForUsers } from './shared.js';

export const deactivateCommand = defineCommand({
  path: ['users', 'deactivate'],
  summary: 'deactivate user accounts (administrators)',
  description:
    'Deactivates the named users (IDs or e-mails), or one per row of --from-file (column user, user_id or ' +
    'email; other columns are ignored, so users list output, such as an --inactive-since report, goes in as ' +
    'it is). They can no ' +
    'longer log in or use the API; their data stays, and users reactivate brings them back. A bot is ' +
    'deactivated through DELETE /bots/{id}, as a server requires (its owner may, too; --comment is for people). ' +
    'A user already deactivated is reported unchanged, so a run can be repeated. Asks for confirmation on a ' +
    'terminal; elsewhere --yes is required.',
  examples: [
    'chatctl users deactivate polonius@example.com',
    'chatctl users deactivate 12 13 14 --yes --json',
    'chatctl users deactivate --from-file leavers.csv --yes',
    'chatctl users list --inactive-since 90d --format ndjson | chatctl users deactivate --from-file - --yes',
  ],
  args: { users: arg.variadic('user IDs or e-mail addresses') },
  options: { comment: flag.string('--comment <text>', 'a note for the notification e-mail'), ...USER_BULK_FLAGS },
  output: { fields: OUTCOME_FIELDS },
  mutating: true,
  destructive: true,
  async run(opts, ctx) {
    const rows = await listedUserRows(ctx, opts);
    // A server deactivates bots through DELETE /bots/{id} only (DELETE /users/{id} says "No such user").
    const calls = await planForUsers(
      ctx,
      rows,
      (_r, userId, user) => ({
        status: 'deactivated',
        // Already deactivated (an earlier run, or by hand): nothing to send.
        inPlace: user && !user.is_active ? { id: userId } : undefined,
        call: user?.is_bot
          ? planCall(deactivateBot, { bot_id: userId }, { id: userId })
          : planCall(deactivateUser, { user_id: userId, deactivation_notification_comment: opts.comment }, { id: userId }),
      }),
      { users: true },
    );
    const question = questionAbout(
      'Deactivate',
      calls,
      'users',
      rows.map((r) => r.user),
    );
    await confirmAndRun(ctx, opts, calls, 'deactivated', question);
  },
});
