import { resendInvite } from '../../../api/operations/invites.js';
import { OUTCOME_FIELDS, planCall, runCalls } from '../../bulk/runner.js';
import { defineCommand } from '../../command/command.js';
import { arg } from '../../core/flags.js';
import { unknownRef } from '../../core/refusal.js';
import { callsFor } from './shared.js';

export const resendCommand = defineCommand({
  path: ['invite', 'resend'],
  summary: 'send pending e-mail invitations again, by ID or address',
  description:
    'Sends e-mail invitations again (POST /invites/{id}/resend), with their link and expiry unchanged. Each ' +
    'argument is an ID or email:ID (see invite list) or an invited address; links are not sent by e-mail. A ' +
    "resent invitation counts against a server's daily limit.",
  examples: ['chatctl invite resend 12', 'chatctl invite resend ada@example.com grace@example.com --json'],
  args: { invites: arg.variadic('IDs, email:ID or invited addresses', { required: true }) },
  output: { fields: OUTCOME_FIELDS },
  mutating: true,
  async run(opts, ctx) {
    const client = await ctx.client();
    const calls = await callsFor(client, opts.invites, 'resent', {
      callOf: (invite) =>
        invite.is_multiuse
          ? `link ${invite.id} is a reusable link: only e-mail invitations are resent`
          : planCall(resendInvite, { invite_id: invite.id }, { id: invite.id }),
      gone: (m, ref) => ({
        status: 'failed',
        error: unknownRef(`No such invitation: ${ref}${m.otherKind ? ` (link ${m.id} is a reusable link: only e-mail invitations are resent)` : ''}`),
      }),
    });
    await runCalls(ctx, opts, client, calls, 'resent');
  },
});
