import { revokeInvite, revokeInviteLink } from '../../../api/operations/invites.js';
import { OUTCOME_FIELDS, planCall, runCalls } from '../../bulk/runner.js';
import { defineCommand } from '../../command/command.js';
import { confirmOrExit, namingQuestion } from '../../bulk/confirm.js';
import { arg } from '../../core/flags.js';
import { REF_FORMS } from '../../invites/refs.js';
import { callsFor } from './shared.js';

export const revokeCommand = defineCommand({
  path: ['invite', 'revoke'],
  summary: 'revoke pending invitations and links, by ID, address or URL',
  description:
    'Revokes invitations so they stop working: e-mail invitations with DELETE /invites/{id}, reusable links ' +
    `with DELETE /invites/multiuse/{id}. Each argument is ${REF_FORMS}. The two kinds number their IDs apart, ` +
    'so a bare ID only ever names an e-mail invitation and a link is named link:ID (the forms invite list ' +
    'prints in its ref column) or by its URL. An address revokes every pending e-mail invitation to it, never ' +
    'a link. What is no longer pending (revoked, used or expired) is reported unchanged, so a run can be ' +
    'repeated: it never revokes another invitation in its place. Asks for confirmation on a terminal, naming ' +
    'what it revokes; elsewhere --yes is required.',
  examples: [
    'chatctl invite revoke 12',
    'chatctl invite revoke link:3 12 --yes',
    'chatctl invite revoke 12 13 ada@example.com --yes --json',
    'chatctl invite revoke ada@example.com --dry-run',
  ],
  args: { invites: arg.variadic('IDs, email:ID, link:ID, invited addresses or link URLs', { required: true }) },
  output: { fields: OUTCOME_FIELDS },
  mutating: true,
  destructive: true,
  async run(opts, ctx) {
    const client = await ctx.client();
    const calls = await callsFor(client, opts.invites, 'revoked', {
      callOf: (invite) =>
        invite.is_multiuse
          ? planCall(revokeInviteLink, { invite_id: invite.id }, { id: invite.id })
          : planCall(revokeInvite, { invite_id: invite.id }, { id: invite.id }),
      gone: (m, ref) => {
        // The ID a link has too is not the link's: say how to name the link, and revoke nothing in its place.
        if (m.otherKind) ctx.warn(`${ref} names e-mail invitation ${m.id}, which is not pending; to revoke link ${m.id}, say link:${m.id}`);
        return { inPlace: { id: m.id ?? null } };
      },
    });
    const sendable = calls.filter((c) => c.call && !c.inPlace);
    if (sendable.length && !opts.dryRun) {
      await confirmOrExit(
        ctx,
        opts.yes,
        namingQuestion(
          'Revoke',
          sendable.map((c) => c.label ?? c.target),
          'invitations',
        ),
      );
    }
    await runCalls(ctx, opts, client, calls, 'revoked');
  },
});
