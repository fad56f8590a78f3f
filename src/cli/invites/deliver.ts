/**
 * Sending one batch of invitations and saying what happened to each address. INVITATION_FAILED names the
 * addresses the server refused as [address, reason, is_deactivated] triples; `sent_invitations` says
 * whether the other addresses of that request were invited. When they were not (a server sends none if
 * any address is invalid), they are sent again without the refused ones: nothing was sent, so this is
 * safe, and one bad address does not keep everyone else from being invited.
 */
import { ApiError } from '../../api/errors.js';
import type { ChatClient } from '../../client/client.js';
import { failure, type Outcome } from '../bulk.js';
import { sendBatch, type Recipient, type SendableBatch } from './plan.js';

/** How a server names an address in `errors`: `Name <address>` reduced to the address, any case. */
const addressKey = (email: string): string => (/<(.*)>/.exec(email)?.[1] ?? email).trim().toLowerCase();

/** The refused addresses of an INVITATION_FAILED error, with their reasons. */
function refusedBy(e: ApiError): Map<string, string> {
  const refused = new Map<string, string>();
  const errors = Array.isArray(e.extra.errors) ? (e.extra.errors as unknown[]) : [];
  for (const triple of errors) {
    if (Array.isArray(triple) && typeof triple[0] === 'string') refused.set(addressKey(triple[0]), typeof triple[1] === 'string' ? triple[1] : e.msg);
  }
  return refused;
}

const invited = (r: Recipient): Outcome => ({ row: r.row, target: r.email, ok: true, status: 'invited', id: null });
const failed = (r: Recipient, error: string, code: string | null): Outcome => ({ row: r.row, target: r.email, ok: false, status: 'failed', error, code });

export async function deliver(client: ChatClient, batch: SendableBatch, signal?: AbortSignal): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let pending = batch.recipients;
  while (pending.length) {
    try {
      await sendBatch(client, { recipients: pending, params: batch.params }, signal);
      outcomes.push(...pending.map(invited));
      break;
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'INVITATION_FAILED') {
        // The first request failing fails the whole batch, as its error; a later one only what was left.
        if (!outcomes.length) throw e;
        const { error, code } = failure(e);
        outcomes.push(...pending.map((r) => failed(r, error ?? 'failed', code ?? null)));
        break;
      }
      const refused = refusedBy(e);
      const rest = pending.filter((r) => !refused.has(addressKey(r.email)));
      outcomes.push(...pending.filter((r) => refused.has(addressKey(r.email))).map((r) => failed(r, refused.get(addressKey(r.email))!, e.code)));
      if (e.extra.sent_invitations === true) {
        outcomes.push(...rest.map(invited));
        break;
      }
      if (rest.length === pending.length) {
        // Nothing named that we could leave out (a daily limit, say): none of these were invited.
        outcomes.push(...rest.map((r) => failed(r, e.msg, e.code)));
        break;
      }
      pending = rest;
    }
  }
  return outcomes.sort((a, b) => a.row - b.row);
}
