import { addReaction, removeReaction } from '../../api/operations/reactions.js';
import { defineLegacyCommand, opt, type CommandOptions, type CommandSpec } from '../legacy-command.js';
import { confirmOrExit } from '../confirm.js';
import type { Context } from '../context.js';
import { printDryRun } from '../dry-run.js';
import { usageError } from '../errors.js';

export const REACTION_TYPES = ['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji'] as const;

interface Emoji {
  emoji_name: string;
  emoji_code?: string;
  reaction_type?: string;
}

/**
 * EMOJI as people write it: a name (`thumbs_up`, `:thumbs_up:`), or the emoji itself (👍), which becomes
 * its Zulip name and code (dash-separated hex code points, without the emoji presentation selector).
 */
export async function emojiOf(text: string, code: string | undefined, type: string | undefined): Promise<Emoji> {
  const name = text.trim().replace(/^:(.+):$/, '$1');
  if (type !== undefined && !(REACTION_TYPES as readonly string[]).includes(type)) throw usageError(`unknown reaction type "${type}"`, `types: ${REACTION_TYPES.join(', ')}`);
  if (/^[\w+-]+$/.test(name)) return { emoji_name: name, emoji_code: code, reaction_type: type };
  const hex = [...name].map((c) => c.codePointAt(0)!).filter((cp) => cp !== 0xfe0f).map((cp) => cp.toString(16)).join('-');
  const { unicodeEmojiName } = await import('../../api/emoji-names.js');
  const known = unicodeEmojiName(hex);
  if (!known) throw usageError(`"${text}" is not an emoji name or a known emoji`, 'names as in Zulip: thumbs_up, tada, heart ...');
  return { emoji_name: known, emoji_code: code ?? hex, reaction_type: type ?? 'unicode_emoji' };
}

function messageId(opts: CommandOptions): number {
  const v = opt.str(opts, 'message')!;
  if (!/^\d+$/.test(v)) throw usageError(`a message ID is a number, not "${v}"`);
  return Number(v);
}

async function run(opts: CommandOptions, ctx: Context, op: 'add' | 'remove'): Promise<void> {
  const message_id = messageId(opts);
  const emoji = await emojiOf(opt.str(opts, 'emoji')!, opt.str(opts, 'code'), opt.str(opts, 'type'));
  const client = await ctx.client();
  const params = { message_id, ...emoji };
  const operation = op === 'add' ? addReaction : removeReaction;
  if (opt.bool(opts, 'dryRun')) {
    printDryRun(ctx, await client.prepare(operation, params));
    return;
  }
  if (op === 'remove') await confirmOrExit(ctx, opt.bool(opts, 'yes'), `Remove your :${emoji.emoji_name}: reaction from message ${message_id}?`);
  await client.call(operation, params, { signal: ctx.signal });
  ctx.info(`chatctl: :${emoji.emoji_name}: ${op === 'add' ? 'added to' : 'removed from'} message ${message_id}`);
}

const ARGS = [
  { name: 'message', description: 'message ID', required: true },
  { name: 'emoji', description: 'emoji name (thumbs_up or :thumbs_up:) or the emoji itself', required: true },
];

const OPTIONS = [
  { flags: '--code <code>', description: 'emoji code, to match a reaction recorded under an older name or a custom emoji\'s ID' },
  { flags: '--type <type>', description: `reaction type: ${REACTION_TYPES.join(', ')}` },
];

export const commands: CommandSpec[] = [
  defineLegacyCommand({
    path: ['reactions', 'add'],
    summary: 'react to a message with an emoji',
    description:
      'Adds your emoji reaction to a message (POST /messages/{id}/reactions). To join a reaction others made, ' +
      'pass the --code and --type the message shows for it. Reacting twice with the same emoji is refused by ' +
      'the server with REACTION_ALREADY_EXISTS (exit 1).',
    examples: ['chatctl reactions add 1234 thumbs_up', 'chatctl reactions add 1234 :tada:', 'chatctl reactions add 1234 👍', 'chatctl reactions add 1234 octopus --code 5 --type realm_emoji'],
    args: ARGS,
    options: OPTIONS,
    mutating: true,
    run: (opts, ctx) => run(opts, ctx, 'add'),
  }),
  defineLegacyCommand({
    path: ['reactions', 'remove'],
    summary: 'remove your emoji reaction from a message',
    description:
      'Removes your emoji reaction from a message (DELETE /messages/{id}/reactions). Asks for confirmation on a ' +
      'terminal; elsewhere pass --yes. A reaction you did not make is not found (exit 6).',
    examples: ['chatctl reactions remove 1234 thumbs_up --yes', 'chatctl reactions remove 1234 octopus --type realm_emoji --yes'],
    args: ARGS,
    options: OPTIONS,
    mutating: true,
    destructive: true,
    run: (opts, ctx) => run(opts, ctx, 'remove'),
  }),
];
