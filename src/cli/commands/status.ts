import { getUserStatus, REACTION_TYPES, updateUserStatus, type UserStatus } from '../../api/operations/status.js';
import { type BulkFlags, OUTCOME_FIELDS, planCall, type RowCall, runCalls } from '../bulk/runner.js';
import { defineCommand } from '../command/command.js';
import type { Context } from '../command/context.js';
import { usageError } from '../core/errors.js';
import { arg, flag } from '../core/flags.js';
import { resolveUser, resolveUsers } from '../lookup/resolve.js';

const STATUS_FIELDS = ['away', 'status_text', 'emoji_name', 'emoji_code', 'reaction_type'] as const;

/** Changes one user's status (POST /users/{id}/status), reported as one outcome row like other changes. */
async function changeStatus(
  ctx: Context,
  opts: BulkFlags & { dryRun?: boolean },
  ref: string,
  change: Omit<UserStatus, 'away'>,
  status: string,
): Promise<void> {
  const client = await ctx.client();
  const found = (await resolveUsers(client, [ref])).get(ref)!;
  const call: RowCall = found.ok
    ? { row: 1, target: ref, status, call: planCall(updateUserStatus, { user_id: found.id, ...change }, { id: found.id }) }
    : { row: 1, target: ref, status: 'failed', error: found.error };
  await runCalls(ctx, { ...opts, single: true }, client, [call], status);
}

export const commands = [
  defineCommand({
    path: ['status', 'set'],
    summary: "set a user's status text or emoji (administrators)",
    description:
      "Sets another user's status (POST /users/{user_id}/status), as an administrator. Only what you pass " +
      'changes: --text "" clears the text, --emoji "" clears the emoji. The emoji is named (e.g. palm_tree); ' +
      'the server finds its code and type, or checks --emoji-code and --reaction-type when given. The server ' +
      'limits the text to 60 characters and says so.',
    examples: [
      'chatctl status set ada@example.com --text "On vacation" --emoji palm_tree',
      'chatctl status set 8 --text ""',
      'chatctl status set 8 --emoji octopus --emoji-code 1f419 --reaction-type unicode_emoji --json',
    ],
    args: { user: arg.required('user ID or e-mail address') },
    options: {
      text: flag.string('--text <text>', 'status text ("" clears it)'),
      emoji: flag.string('--emoji <name>', 'emoji name ("" clears the emoji)'),
      emojiCode: flag.string('--emoji-code <code>', 'emoji code within the reaction type (with --emoji)'),
      reactionType: flag.choice('--reaction-type <type>', 'emoji namespace (with --emoji)', REACTION_TYPES),
    },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    check(opts) {
      if (opts.emoji === undefined && (opts.emojiCode !== undefined || opts.reactionType !== undefined))
        throw usageError('--emoji-code and --reaction-type go with --emoji');
      if (opts.text === undefined && opts.emoji === undefined) throw usageError('nothing to set: pass --text or --emoji');
    },
    async run(opts, ctx) {
      const change = { status_text: opts.text, emoji_name: opts.emoji, emoji_code: opts.emojiCode, reaction_type: opts.reactionType };
      await changeStatus(ctx, opts, opts.user, change, 'set');
    },
  }),

  defineCommand({
    path: ['status', 'clear'],
    summary: "clear a user's status text and emoji (administrators)",
    description: "Clears another user's status text and emoji (POST /users/{user_id}/status with both empty), as an administrator.",
    examples: ['chatctl status clear ada@example.com', 'chatctl status clear 8 --dry-run'],
    args: { user: arg.required('user ID or e-mail address') },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      await changeStatus(ctx, opts, opts.user, { status_text: '', emoji_name: '' }, 'cleared');
    },
  }),

  defineCommand({
    path: ['status', 'get'],
    summary: "show a user's status",
    description:
      "Shows a user's status text and emoji (GET /users/{user_id}/status). JSON holds only what is set ({} for " +
      'no status); away is the legacy flag of a user who turned presence off.',
    examples: ['chatctl status get ada@example.com', 'chatctl status get 8 --json', 'chatctl status get 8 --fields status_text'],
    args: { user: arg.required('user ID or e-mail address') },
    output: { fields: STATUS_FIELDS },
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const { status } = await client.call(getUserStatus, { user_id: await resolveUser(client, opts.user) });
      // JSON is the data itself; a table shows every field, so an empty status reads as one.
      await out.item(out.isJson ? status : { ...Object.fromEntries(STATUS_FIELDS.map((f) => [f, null])), ...status });
    },
  }),
];
