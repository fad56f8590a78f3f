/**
 * Sending a payload to an integration the way a Zulip server does (a JSON POST with its User-Agent, given
 * up after 10 seconds), and reading the reply the way the server would: what the bot posts back, if anything.
 */
import { failureReply, isSuccessStatus, OUTGOING_WEBHOOK_TIMEOUT_SECONDS, readReply, statusProblem } from '../../api/webhook-reply.js';
import { systemReason } from '../../errno.js';
import { VERSION } from '../../version.js';
import { ChatctlError } from '../core/errors.js';

export const DELIVERY_TIMEOUT_MS = OUTGOING_WEBHOOK_TIMEOUT_SECONDS * 1000;

export interface Delivery {
  /** The integration's HTTP status. */
  status: number;
  /** The reply: parsed JSON, or the text as it came when it is not JSON. */
  body: unknown;
  /** What the server would do with the reply. */
  effect: string;
  /** Whether the server would report a failure to the conversation and the bot's owner. */
  failed: boolean;
}

/** The server's reading of an integration's reply (zulip-behaviour §2.20). */
export function interpretReply(status: number, text: string): Omit<Delivery, 'status'> {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text (readReply calls it a failure).
  }
  if (!isSuccessStatus(status)) return { body, effect: failureReply(statusProblem(status)), failed: true };
  const r = readReply(text, false);
  if (r.kind === 'failure') return { body, effect: failureReply(r.problem), failed: true };
  if (r.kind === 'post') return { body, effect: `the bot posts: ${r.content}`, failed: false };
  const why = r.reason === 'empty' ? '' : r.reason === 'response_not_required' ? ' (response_not_required)' : ' (no content)';
  return { body, effect: `nothing is posted${why}`, failed: false };
}

/** Why a POST failed, in a few words: the timeout, or what the network's code means where fetch gives one. */
function whyUndelivered(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  if (e.name === 'TimeoutError') return `no reply within ${DELIVERY_TIMEOUT_MS / 1000} seconds (a Zulip server gives up then, and retries)`;
  return systemReason(e.cause instanceof Error ? e.cause : e);
}

export async function deliver(url: string, payload: unknown, signal: AbortSignal): Promise<Delivery> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': `ZulipOutgoingWebhook/${VERSION} (chatctl webhook trigger)` },
      body: JSON.stringify(payload),
      signal: AbortSignal.any([signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
    });
  } catch (e) {
    if (signal.aborted) throw new ChatctlError('interrupted', 'interrupted');
    throw new ChatctlError(`cannot deliver to ${url}: ${whyUndelivered(e)}`, 'temporary');
  }
  const text = await res.text();
  return { status: res.status, ...interpretReply(res.status, text) };
}
