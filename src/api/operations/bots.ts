/** Bots: creating, listing one's own and deactivating them (bots are users; updating them goes through the users operations). */
import { operation, p } from '../operation.js';
import { s } from '../schema.js';

export const BOT_TYPES = { generic: 1, incoming_webhook: 2, outgoing_webhook: 3, embedded: 4 } as const;
export const INTERFACE_TYPES = { generic: 1, slack: 2 } as const;

export interface CreatedBot {
  user_id: number;
  api_key: string;
  avatar_url: string;
  default_sending_stream: string | null;
  default_events_register_stream: string | null;
  default_all_public_streams: boolean;
}

export const createBot = operation<CreatedBot>()({
  name: 'create-bot',
  method: 'POST',
  path: '/bots',
  summary: 'Create a bot owned by the caller; its e-mail is <short_name>-bot@<organization host>',
  access: 'member',
  bots: false,
  params: {
    full_name: p.req(s.string(), { doc: 'display name' }),
    short_name: p.req(s.string(), { doc: 'the e-mail local part, before -bot' }),
    bot_type: p.def(s.int(), 1, { doc: '1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded' }),
    // JSON-encoded on a real server (its web client sends JSON.stringify(url)); null means none.
    payload_url: p.opt(s.nullable(s.string()), { doc: 'the URL an outgoing-webhook bot posts to (JSON string)' }),
    interface_type: p.def(s.int(), 1, { doc: 'outgoing webhook format: 1 Zulip, 2 Slack-compatible' }),
    service_name: p.opt(s.string(), { doc: 'embedded bot name (defaults to short_name)' }),
  },
});

/** One of the caller's bots as GET /bots lists it (zerver/views/users.py get_bots_backend); `username` is its e-mail. */
export interface OwnedBot {
  username: string;
  full_name: string;
  api_key: string;
  avatar_url: string;
  default_sending_stream: string | null;
  default_events_register_stream: string | null;
  default_all_public_streams: boolean;
}

// Not cacheable: the answer carries API keys, which the answer cache should not hold.
export const getBots = operation<{ bots: OwnedBot[] }>()({
  name: 'get-bots',
  method: 'GET',
  path: '/bots',
  summary: "The caller's own active bots, with their API keys (administrators too: only their own)",
  access: 'member',
  bots: false,
  params: {},
});

/** A server answers DELETE /users/{id} for a bot with `No such user`: bots are deactivated here. */
export const deactivateBot = operation<Record<string, never>>()({
  name: 'deactivate-bot',
  method: 'DELETE',
  path: '/bots/{bot_id}',
  summary: 'Deactivate a bot (its owner, or administrators)',
  access: 'user',
  params: {
    bot_id: p.path(s.int()),
  },
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const botsOps = {
  createBot,
  getBots,
  deactivateBot,
} as const;
