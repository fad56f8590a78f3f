/**
 * Outgoing webhooks: the payload a Zulip-compatible server POSTs to an outgoing-webhook bot's URL, and the
 * endpoint that shows a bot what it receives.
 */
import { operation } from '../operation.js';
import type { WireMessage } from './messages.js';

export type OutgoingWebhookTrigger = 'mention' | 'direct_message';

/** The triggering message: the GET /messages form with apply_markdown false, plus rendered_content. */
export type OutgoingWebhookMessage = WireMessage & { rendered_content: string };

/** The JSON body POSTed to a generic-interface outgoing-webhook bot. */
export interface OutgoingWebhookPayload {
  bot_email: string;
  bot_full_name: string;
  /** The raw (Markdown) content of the message. */
  data: string;
  trigger: OutgoingWebhookTrigger;
  /** Fixed per bot, for the receiver to check. */
  token: string;
  message: OutgoingWebhookMessage;
}

const payloadOperation = {
  summary: 'What the calling outgoing-webhook bot receives: the payload for its newest triggering message, or a sample',
  access: 'user',
  params: {},
  idempotent: true,
} as const;

export const getOutgoingWebhookPayload = operation<OutgoingWebhookPayload>()({
  name: 'get-outgoing-webhook-payload',
  method: 'POST',
  path: '/svc-outgoing-webhook',
  ...payloadOperation,
});

/** The same under the name of Zulip's documentation pseudo-path. */
export const getZulipOutgoingWebhookPayload = operation<OutgoingWebhookPayload>()({
  name: 'get-zulip-outgoing-webhook-payload',
  method: 'POST',
  path: '/zulip-outgoing-webhook',
  ...payloadOperation,
  openapiPath: '/zulip-outgoing-webhook',
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const webhooksOps = {
  getOutgoingWebhookPayload,
  getZulipOutgoingWebhookPayload,
} as const;
