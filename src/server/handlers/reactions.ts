/** Emoji reactions and custom emoji. */
import { addReaction, deactivateCustomEmoji, getCustomEmoji, removeReaction, uploadCustomEmoji } from '../../api/operations/reactions.js';
import { bind, callerOf, type Binding } from '../context.js';
import { realmEmojiDict } from '../model/emoji.js';
import * as reactions from '../model/reactions.js';

export const bindings: Binding[] = [
  bind(addReaction, (ctx, p) => {
    reactions.addReaction(ctx, callerOf(ctx), p.message_id, p);
    return {};
  }),

  bind(removeReaction, (ctx, p) => {
    reactions.removeReaction(ctx, callerOf(ctx), p.message_id, p);
    return {};
  }),

  bind(getCustomEmoji, (ctx) => ({ emoji: realmEmojiDict(ctx.db) })),

  bind(uploadCustomEmoji, (ctx, p) => {
    reactions.uploadRealmEmoji(ctx, callerOf(ctx), p.emoji_name, ctx.files);
    return {};
  }),

  bind(deactivateCustomEmoji, (ctx, p) => {
    reactions.deactivateRealmEmoji(ctx, callerOf(ctx), p.emoji_name);
    return {};
  }),
];
