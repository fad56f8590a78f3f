import type { PermissionRows } from './matrix.js';

// The matrix's bot is a generic bot: only outgoing-webhook bots see what they would receive
// (test/server/webhooks.test.ts covers them).
const ONLY_OUTGOING = 'This endpoint is only available to outgoing webhook bots.';

export const webhookCases: PermissionRows<'webhooks'> = {
  getOutgoingWebhookPayload: [
    {
      name: 'see the outgoing webhook payload',
      request: () => ({ method: 'POST', path: '/svc-outgoing-webhook' }),
      allowed: [],
      denied: ONLY_OUTGOING,
    },
  ],
  getZulipOutgoingWebhookPayload: [
    {
      name: 'see the outgoing webhook payload under its documentation name',
      request: () => ({ method: 'POST', path: '/zulip-outgoing-webhook' }),
      allowed: [],
      denied: ONLY_OUTGOING,
    },
  ],
};
