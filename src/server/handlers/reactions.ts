/** Emoji reactions and custom emoji. */
import { addReaction, deactivateCustomEmoji, getCustomEmoji, removeReaction, uploadCustomEmoji } from '../../api/operations/reactions.js';
import { bind, callerOf, type Handlers } from '../context.js';
import { realmEmojiDict } from '../model/emoji.js';
import * as reactions from '../model/reactions.js';

export const handlers: Handlers<'reactions'> = {
  addReaction: bind(addReaction, (ctx, p) => {
    reactions.addReaction(ctx, callerOf(ctx), p.message_id, p);
    return {};
  }),

  removeReaction: bind(removeReaction, (ctx, p) => {
    reactions.removeReaction(ctx, callerOf(ctx), p.message_id, p);
    return {};
  }),

  getCustomEmoji: bind(getCustomEmoji, (ctx) => ({ emoji: realmEmojiDict(ctx.db) })),

  uploadCustomEmoji: bind(uploadCustomEmoji, (ctx, p) => {
    reactions.uploadRealmEmoji(ctx, callerOf(ctx), p.emoji_name, ctx.files);
    return {};
  }),

  deactivateCustomEmoji: bind(deactivateCustomEmoji, (ctx, p) => {
    reactions.deactivateRealmEmoji(ctx, callerOf(ctx), p.emoji_name);
    return {};
  }),
};
