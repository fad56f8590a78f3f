/** User status: the text and emoji a user shows next to their name (and the legacy `away` flag). */
import { operation, p } from '../operation.js';
import { s } from '../schema.js';
import type { ReactionType } from './messages.js';

export const REACTION_TYPES = ['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji'] as const satisfies readonly ReactionType[];

/** A status as GET /users/{user_id}/status shows it: only the parts that are set. */
export interface UserStatus {
  away?: true;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: ReactionType;
}

export const STATUS_TEXT_MAX_LENGTH = 60;

const statusParams = {
  status_text: p.opt(s.string({ strip: true, maxLength: STATUS_TEXT_MAX_LENGTH }), { doc: 'status text; "" clears it' }),
  emoji_name: p.opt(s.string(), { doc: 'emoji name; "" clears the emoji' }),
  emoji_code: p.opt(s.string(), { doc: 'emoji code within the reaction_type namespace' }),
  reaction_type: p.opt(s.string(), { doc: 'unicode_emoji, realm_emoji or zulip_extra_emoji' }),
};

export const getUserStatus = operation<{ status: UserStatus }>()({
  name: 'get-user-status',
  method: 'GET',
  path: '/users/{user_id}/status',
  summary: "A user's status text and emoji",
  access: 'user',
  params: { user_id: p.path(s.int()) },
  minFeatureLevel: 262,
  openapiPath: '/users/{user_id}/status',
});

export const updateOwnStatus = operation<Record<string, never>>()({
  name: 'update-status',
  method: 'POST',
  path: '/users/me/status',
  summary: "Change the caller's status; parameters not passed stay as they are",
  access: 'user',
  params: {
    away: p.opt(s.bool(), { doc: 'deprecated: the inverse of presence_enabled' }),
    ...statusParams,
  },
  openapiPath: '/users/me/status',
});

// Access is checked per target in the handler (administrators only), as a real server does.
export const updateUserStatus = operation<Record<string, never>>()({
  name: 'update-user-status',
  method: 'POST',
  path: '/users/{user_id}/status',
  summary: "Change another user's status (administrators)",
  access: 'user',
  params: { user_id: p.path(s.int()), ...statusParams },
  minFeatureLevel: 407,
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const statusOps = {
  getUserStatus,
  updateOwnStatus,
  updateUserStatus,
} as const;
