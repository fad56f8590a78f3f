import { ApiError } from '../../api/errors.js';
import { addReaction, removeReaction } from '../../api/operations/reactions.js';
import { classify } from '../../api/server-messages.js';
import { defineCommand } from '../command/command.js';
import { confirmOrExit } from '../bulk/confirm.js';
import type { Context } from '../command/context.js';
import { printDryRun } from '../bulk/dry-run.js';
import { usageError } from '../core/errors.js';
import { arg, flag } from '../core/flags.js';
import { messageIdArg } from '../core/args.js';

export const REACTION_TYPES = ['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji'] as const;
type ReactionType = (typeof REACTION_TYPES)[number];

interface Emoji {
  emoji_name: string;
  emoji_code?: string;
  reaction_type?: ReactionType;
}

function parseReactionType(value: string): ReactionType {
  const type = REACTION_TYPES.find((t) => t === value);
  if (type === undefined) throw usageError(`unknown reaction type "${value}"`, `types: ${REACTION_TYPES.join(', ')}`);
  return type;
}

/**
 * EMOJI as people write it: a name (`thumbs_up`, `:thumbs_up:`), or the emoji itself (👍), which becomes
 * its Zulip name and code (dash-separated hex code points, without the emoji presentation selector).
 */
export async function emojiOf(text: string, code: string | undefined, type: ReactionType | undefined): Promise<Emoji> {
  const name = text.trim().replace(/^:(.+):$/, '$1');
  if (/^[\w+-]+$/.test(name)) return { emoji_name: name, emoji_code: code, reaction_type: type };
  const hex = [...name]
    .map((c) => c.codePointAt(0)!)
    .filter((cp) => cp !== 0xfe0f)
    .map((cp) => cp.toString(16))
    .join('-');
  const { unicodeEmojiName } = await import('../../api/emoji-names.js');
  const known = unicodeEmojiName(hex);
  if (!known) throw usageError(`"${text}" is not an emoji name or a known emoji`, 'names as in Zulip: thumbs_up, tada, heart ...');
  return { emoji_name: known, emoji_code: code ?? hex, reaction_type: type ?? 'unicode_emoji' };
}

const ARGS = {
  message: messageIdArg(),
  emoji: arg.required('emoji name (thumbs_up or :thumbs_up:) or the emoji itself'),
};

const OPTIONS = {
  code: flag.string('--code <code>', "emoji code, to match a reaction recorded under an older name or a custom emoji's ID"),
  type: flag.custom('--type <type>', `reaction type: ${REACTION_TYPES.join(', ')}`, parseReactionType, { suggestions: REACTION_TYPES }),
};

interface Reaction {
  message: number;
  emoji: string;
  code?: string;
  type?: ReactionType;
  dryRun: boolean;
  /** Removing without asking (absent when adding, which asks nothing). */
  yes?: boolean;
}

async function run(ctx: Context, op: 'add' | 'remove', r: Reaction): Promise<void> {
  const message_id = r.message;
  const emoji = await emojiOf(r.emoji, r.code, r.type);
  const client = await ctx.client();
  const params = { message_id, ...emoji };
  const operation = op === 'add' ? addReaction : removeReaction;
  if (r.dryRun) {
    printDryRun(ctx, await client.prepare(operation, params));
    return;
  }
  if (op === 'remove') await confirmOrExit(ctx, r.yes === true, `Remove your :${emoji.emoji_name}: reaction from message ${message_id}?`);
  try {
    await client.call(operation, params, { signal: ctx.signal });
  } catch (e) {
    // What the run asked for is already so (a re-run): said, and exit 0, as other commands' re-runs are.
    const already = e instanceof ApiError ? classify(e)?.meaning : undefined;
    if (already !== (op === 'add' ? 'reactionExists' : 'noSuchReaction')) throw e;
    ctx.info(`chatctl: :${emoji.emoji_name}: unchanged: ${op === 'add' ? 'already on' : 'not on'} message ${message_id}`);
    return;
  }
  ctx.info(`chatctl: :${emoji.emoji_name}: ${op === 'add' ? 'added to' : 'removed from'} message ${message_id}`);
}

export const commands = [
  defineCommand({
    path: ['reactions', 'add'],
    summary: 'react to a message with an emoji',
    description:
      'Adds your emoji reaction to a message (POST /messages/{id}/reactions). To join a reaction others made, ' +
      'pass the --code and --type the message shows for it. A reaction you already made is reported unchanged ' +
      '(exit 0: the server answers REACTION_ALREADY_EXISTS), so a run can be repeated.',
    examples: [
      'chatctl reactions add 1234 thumbs_up',
      'chatctl reactions add 1234 :tada:',
      'chatctl reactions add 1234 👍',
      'chatctl reactions add 1234 octopus --code 5 --type realm_emoji',
    ],
    args: ARGS,
    options: OPTIONS,
    mutating: true,
    run: (opts, ctx) => run(ctx, 'add', opts),
  }),
  defineCommand({
    path: ['reactions', 'remove'],
    summary: 'remove your emoji reaction from a message',
    description:
      'Removes your emoji reaction from a message (DELETE /messages/{id}/reactions). Asks for confirmation on a ' +
      'terminal; elsewhere pass --yes. A reaction of yours that is not there (removed already) is reported ' +
      'unchanged (exit 0), so a run can be repeated; an emoji or message that does not exist is not found (exit 6).',
    examples: ['chatctl reactions remove 1234 thumbs_up --yes', 'chatctl reactions remove 1234 octopus --type realm_emoji --yes'],
    args: ARGS,
    options: OPTIONS,
    mutating: true,
    destructive: true,
    run: (opts, ctx) => run(ctx, 'remove', opts),
  }),
];
