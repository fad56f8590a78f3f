/**
 * Sending a payload to an integration the way a Zulip server does (a JSON POST with its User-Agent, given
 * up after 10 seconds), and reading the reply the way the server would: what the bot posts back, if anything.
 */
import { VERSION } from '../../version.js';
import { CliError } from '../errors.js';

/** How long a Zulip server waits for an integration (OUTGOING_WEBHOOK_TIMEOUT_SECONDS). */
export const DELIVERY_TIMEOUT_MS = 10_000;

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
  let json = false;
  try {
    body = JSON.parse(text);
    json = true;
  } catch {
    // Not JSON: kept as text, and a failure below when the status is 2xx.
  }
  if (status < 200 || status > 299) return { body, effect: `Failure! Third party responded with ${status}`, failed: true };
  if (!json) return { body, effect: 'Failure! Invalid JSON in response', failed: true };
  // JSON "" was the "no response" of older bot servers.
  if (body === '') return { body, effect: 'nothing is posted', failed: false };
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { body, effect: 'Failure! Invalid response format', failed: true };
  const reply = body as Record<string, unknown>;
  if (reply.response_not_required) return { body, effect: 'nothing is posted (response_not_required)', failed: false };
  const content = 'response_string' in reply ? (typeof reply.response_string === 'string' ? reply.response_string : JSON.stringify(reply.response_string)) : reply.content;
  if (typeof content === 'string' && content.trim()) return { body, effect: `the bot posts: ${content}`, failed: false };
  return { body, effect: 'nothing is posted (no content)', failed: false };
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
    if (signal.aborted) throw new CliError('interrupted', 'interrupted');
    const err = e as Error & { cause?: Error & { code?: string } };
    const why = err.name === 'TimeoutError' ? `no reply within ${DELIVERY_TIMEOUT_MS / 1000} seconds (a Zulip server gives up then, and retries)` : (err.cause?.code ?? err.cause?.message ?? err.message);
    throw new CliError(`cannot deliver to ${url}: ${why}`, 'temporary');
  }
  const text = await res.text();
  return { status: res.status, ...interpretReply(res.status, text) };
}
