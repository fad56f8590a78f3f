import type { PermissionCase } from './matrix.js';

// The matrix's bot is a generic bot: only outgoing-webhook bots see what they would receive
// (test/server/webhooks.test.ts covers them).
const ONLY_OUTGOING = 'This endpoint is only available to outgoing webhook bots.';

export const webhookCases: PermissionCase[] = [
  {
    name: 'see the outgoing webhook payload',
    request: () => ({ method: 'POST', path: '/svc-outgoing-webhook' }),
    allowed: [],
    denied: ONLY_OUTGOING,
  },
  {
    name: 'see the outgoing webhook payload under its documentation name',
    request: () => ({ method: 'POST', path: '/zulip-outgoing-webhook' }),
    allowed: [],
    denied: ONLY_OUTGOING,
  },
];
