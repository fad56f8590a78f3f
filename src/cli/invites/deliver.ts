/**
 * Sending one batch of invitations and saying what happened to each address. INVITATION_FAILED names the
 * addresses the server refused as [address, reason, is_deactivated] triples; `sent_invitations` says
 * whether the other addresses of that request were invited. When they were not (a server sends none if
 * any address is invalid), they are sent again without the refused ones: nothing was sent, so this is
 * safe, and one bad address does not keep everyone else from being invited.
 *
 * A server's daily limit refuses a whole request (`daily_limit_reached`, nothing sent) when the request
 * would go over it, however little over. The refused addresses are then halved and the first half sent,
 * again and again, so the addresses that still fit are invited in input order and only those over the
 * limit fail, each with the server's reason: at most about 2·log2(n) more requests for a batch of n. Once
 * a single address is refused the limit is known to be reached, and every address after it, in this batch
 * and the others of the run, fails with that reason without another request.
 */
import { ApiError } from '../../api/errors.js';
import type { ChatClient } from '../../client/client.js';
import { failure, unknownOutcome, type Outcome } from '../bulk/runner.js';
import { sendBatch, type Recipient, type SendableBatch } from './plan.js';

/** The daily limit as a run has met it, shared by its batches: the refusal, once one address was refused. */
export interface DailyLimit {
  reached?: { error: string; code: string | null };
}

/** How a server names an address in `errors`: `Name <address>` reduced to the address, any case. */
const addressKey = (email: string): string => (/<(.*)>/.exec(email)?.[1] ?? email).trim().toLowerCase();

/** The refused addresses of an INVITATION_FAILED error, with their reasons. */
function refusedBy(e: ApiError): Map<string, string> {
  const refused = new Map<string, string>();
  const errors: readonly unknown[] = Array.isArray(e.extra.errors) ? e.extra.errors : [];
  for (const triple of errors) {
    if (Array.isArray(triple) && typeof triple[0] === 'string') refused.set(addressKey(triple[0]), typeof triple[1] === 'string' ? triple[1] : e.msg);
  }
  return refused;
}

const invited = (r: Recipient): Outcome => ({ row: r.row, target: r.email, ok: true, status: 'invited', id: null });
const failed = (r: Recipient, error: string, code: string | null): Outcome => ({ row: r.row, target: r.email, ok: false, status: 'failed', error, code });

export async function deliver(client: ChatClient, batch: SendableBatch, limit: DailyLimit, signal?: AbortSignal): Promise<Outcome[]> {
  let requests = 0;

  /** Sends `pending` (with what the server refuses left out and the rest sent again) and says how each went. */
  async function send(recipients: readonly Recipient[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    let pending = recipients;
    while (pending.length) {
      if (limit.reached) {
        const { error, code } = limit.reached;
        return [...outcomes, ...pending.map((r) => failed(r, error, code))];
      }
      try {
        requests++;
        await sendBatch(client, { recipients: [...pending], params: batch.params }, signal);
        return [...outcomes, ...pending.map(invited)];
      } catch (e) {
        // Interrupted: the first request's fate is the whole batch's (the run reports it); after it, the
        // addresses already invited stay so, and those of the request in flight are unknown.
        if (signal?.aborted && requests > 1) return [...outcomes, ...pending.map((r) => unknownOutcome({ row: r.row, target: r.email }))];
        if (!(e instanceof ApiError) || e.code !== 'INVITATION_FAILED') {
          // The first request failing fails the whole batch, as its error; a later one only what was left.
          if (requests === 1) throw e;
          const { error, code } = failure(e);
          return [...outcomes, ...pending.map((r) => failed(r, error ?? 'failed', code ?? null))];
        }
        if (e.extra.daily_limit_reached === true) return [...outcomes, ...(await withinLimit(pending, e))];
        const refused = refusedBy(e);
        const rest = pending.filter((r) => !refused.has(addressKey(r.email)));
        outcomes.push(...pending.filter((r) => refused.has(addressKey(r.email))).map((r) => failed(r, refused.get(addressKey(r.email))!, e.code)));
        if (e.extra.sent_invitations === true) return [...outcomes, ...rest.map(invited)];
        if (rest.length === pending.length) {
          // Nothing named that we could leave out: none of these were invited.
          return [...outcomes, ...rest.map((r) => failed(r, e.msg, e.code))];
        }
        pending = rest;
      }
    }
    return outcomes;
  }

  /** `pending` was refused for the daily limit: invite the part of it that still fits, in order. */
  async function withinLimit(pending: readonly Recipient[], refusal: ApiError): Promise<Outcome[]> {
    if (pending.length === 1) {
      limit.reached ??= { error: refusal.msg, code: refusal.code };
      return [failed(pending[0]!, refusal.msg, refusal.code)];
    }
    const half = Math.ceil(pending.length / 2);
    const first = await send(pending.slice(0, half));
    return [...first, ...(await send(pending.slice(half)))];
  }

  const outcomes = await send(batch.recipients);
  return outcomes.sort((a, b) => a.row - b.row);
}
