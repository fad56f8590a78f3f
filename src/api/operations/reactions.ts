/** Emoji reactions on messages, and the organization's custom emoji. */
import { operation, p } from '../operation.js';
import { s } from '../schema.js';

/** A custom emoji as GET /realm/emoji gives it. */
export interface CustomEmoji {
  id: string;
  name: string;
  source_url: string;
  still_url: string | null;
  deactivated: boolean;
  author_id: number | null;
}

export const addReaction = operation<Record<string, never>>()({
  name: 'add-reaction',
  method: 'POST',
  path: '/messages/{message_id}/reactions',
  summary: 'React to a message with an emoji',
  access: 'user',
  params: {
    message_id: p.path(s.int()),
    emoji_name: p.req(s.string()),
    emoji_code: p.opt(s.string(), { doc: 'to join a reaction recorded under an older name' }),
    reaction_type: p.opt(s.string(), { doc: 'unicode_emoji, realm_emoji or zulip_extra_emoji' }),
  },
  openapiPath: '/messages/{message_id}/reactions',
});

export const removeReaction = operation<Record<string, never>>()({
  name: 'remove-reaction',
  method: 'DELETE',
  path: '/messages/{message_id}/reactions',
  summary: 'Remove your emoji reaction from a message',
  access: 'user',
  params: {
    message_id: p.path(s.int()),
    emoji_name: p.opt(s.string()),
    emoji_code: p.opt(s.string()),
    reaction_type: p.def(s.string(), 'unicode_emoji'),
  },
  openapiPath: '/messages/{message_id}/reactions',
});

export const getCustomEmoji = operation<{ emoji: Record<string, CustomEmoji> }>()({
  name: 'get-custom-emoji',
  method: 'GET',
  path: '/realm/emoji',
  summary: "The organization's custom emoji, deactivated ones included",
  access: 'user',
  cacheable: true,
  params: {},
  openapiPath: '/realm/emoji',
});

export const uploadCustomEmoji = operation<Record<string, never>>()({
  name: 'upload-custom-emoji',
  method: 'POST',
  path: '/realm/emoji/{emoji_name}',
  summary: 'Add a custom emoji from an image file',
  access: 'member',
  bots: false,
  params: { emoji_name: p.path(s.string()) },
  upload: true,
  openapiPath: '/realm/emoji/{emoji_name}',
});

export const deactivateCustomEmoji = operation<Record<string, never>>()({
  name: 'deactivate-custom-emoji',
  method: 'DELETE',
  path: '/realm/emoji/{emoji_name}',
  summary: 'Deactivate a custom emoji (its author or an administrator)',
  access: 'user',
  params: { emoji_name: p.path(s.string()) },
  openapiPath: '/realm/emoji/{emoji_name}',
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const reactionsOps = {
  addReaction,
  removeReaction,
  getCustomEmoji,
  uploadCustomEmoji,
  deactivateCustomEmoji,
} as const;
