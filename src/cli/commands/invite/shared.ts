/** What the invitation commands share: the fields of an invitation, and the row calls an argument names. */
import { getInvites, type Invite } from '../../../api/operations/invites.js';
import type { ChatClient } from '../../../client/client.js';
import type { PlannedCall, RowCall } from '../../bulk/runner.js';
import { inviteLabel, matchInviteRef, type RefMatch } from '../../invites/refs.js';
import type { OutputSpec } from '../../output/output.js';
import { Refusal } from '../../core/refusal.js';

/**
 * The fields of an invitation: `ref` (how invite revoke names it: the ID, or link:ID), `kind` (email or
 * link), `address` (the invited address, or the link's URL) and `role` (by name) are chatctl's; the others
 * are GET /invites' own.
 */
const INVITE_FIELDS = [
  'ref',
  'id',
  'kind',
  'address',
  'role',
  'invited',
  'expiry_date',
  'invited_by_user_id',
  'invited_as',
  'email',
  'link_url',
  'is_multiuse',
  'notify_referrer_on_join',
] as const;
export const INVITE_OUTPUT: OutputSpec = {
  fields: INVITE_FIELDS,
  columns: ['ref', 'kind', 'address', 'role', 'invited', 'expiry_date'],
  times: { invited: 's', expiry_date: 's' },
  roles: ['invited_as'],
  key: ['ref', 'kind', 'address'],
};

/** What `invite send` takes besides its rows: the defaults of every row. */

/**
 * One row call per invitation each argument names (an address may name several), after one GET /invites.
 * `callOf` says what to send for a pending invitation, or why it cannot be acted on; `gone` what an argument
 * naming nothing pending is.
 */
export async function callsFor(
  client: ChatClient,
  refs: readonly string[],
  status: string,
  o: { callOf: (invite: Invite) => PlannedCall | string; gone: (match: RefMatch, ref: string) => Partial<RowCall> },
): Promise<RowCall[]> {
  const { invites } = await client.call(getInvites, {});
  const calls: RowCall[] = [];
  for (const ref of refs) {
    const match = matchInviteRef(ref, invites);
    if (!match.invites.length) {
      calls.push({ row: calls.length + 1, target: ref, status, label: match.label, ...o.gone(match, ref) });
      continue;
    }
    for (const invite of match.invites) {
      const call = o.callOf(invite);
      const row = { row: calls.length + 1, target: ref, status, label: inviteLabel(invite) };
      calls.push(typeof call === 'string' ? { ...row, status: 'failed', error: new Refusal(call) } : { ...row, call });
    }
  }
  return calls;
}
