import type { NarrowTerm } from '../../api/narrow.js';
import { updateMessageFlagsForNarrow, type FlagsForNarrowResult } from '../../api/operations/messages.js';
import type { ChatClient } from '../../client/client.js';
import { walkForward } from '../lookup/anchor-walk.js';
import { defineCommand, type CommandSpec, type OutputOptions } from '../command/command.js';
import type { Context } from '../command/context.js';
import { printDryRun } from '../bulk/dry-run.js';
import { usageError } from '../core/errors.js';
import { arg, flag, type Values } from '../core/flags.js';
import { hasTerm, parseNarrow } from '../lookup/narrow.js';
import { startProgress } from '../output/progress.js';

/** Flags a user may change on their own messages (the others are the server's to set). */
export const EDITABLE_FLAGS = ['read', 'starred', 'collapsed'] as const;
type EditableFlag = (typeof EDITABLE_FLAGS)[number];

const RESULT_FIELDS = [
  'processed_count',
  'updated_count',
  'first_processed_id',
  'last_processed_id',
  'found_oldest',
  'found_newest',
  'ignored_because_not_subscribed_channels',
] as const;
/** With --all: one row per batch, numbered. */
const BATCH_FIELDS = ['batch', ...RESULT_FIELDS] as const;

const DEFAULT_BATCH = 1000;

function parseAnchor(value: string): string {
  if (!/^(newest|oldest|first_unread|\d+)$/.test(value)) throw usageError(`--anchor takes newest, oldest, first_unread or a message ID, not "${value}"`);
  return value;
}

const RANGE_FLAGS = {
  narrow: flag.custom(
    '--narrow <narrow>',
    'which messages: \'channel:general topic:"x" is:unread -sender:ada@example.com\', or a JSON list (default: all)',
    parseNarrow,
  ),
  anchor: flag.custom('--anchor <anchor>', 'where the range starts: newest, oldest, first_unread or a message ID (default oldest)', parseAnchor, {
    suggestions: ['newest', 'oldest', 'first_unread'],
  }),
  before: flag.int('--before <n>', 'messages before the anchor (default 0)', { min: 0, what: 'a number of messages' }),
  after: flag.int('--after <n>', `messages after the anchor; with --all the batch size (default ${DEFAULT_BATCH})`, { min: 0, what: 'a number of messages' }),
  all: flag.bool('--all', 'walk the whole narrow batch by batch, until its newest message'),
};

interface Plan {
  flag: EditableFlag;
  op: 'add' | 'remove';
  narrow: NarrowTerm[];
  anchor: string;
  before: number;
  after: number;
}

function planOf(o: Values<typeof RANGE_FLAGS>, flag: EditableFlag, op: 'add' | 'remove'): Plan {
  const narrow = [...(o.narrow ?? [])];
  // The server's advice: marking read only needs to look at unread messages.
  if (op === 'add' && flag === 'read' && !hasTerm(narrow, 'is', 'unread')) narrow.push({ operator: 'is', operand: 'unread' });
  return { flag, op, narrow, anchor: o.anchor ?? 'oldest', before: o.before ?? 0, after: o.after ?? DEFAULT_BATCH };
}

const params = (p: Plan, anchor: string, includeAnchor: boolean) => ({
  anchor,
  include_anchor: includeAnchor ? undefined : false,
  num_before: p.before,
  num_after: p.after,
  narrow: p.narrow,
  op: p.op,
  flag: p.flag,
});

const rowOf = (r: FlagsForNarrowResult) => Object.fromEntries(RESULT_FIELDS.map((f) => [f, r[f] ?? null]));

/** Batches until the narrow's newest message is reached: each starts after the last one processed. */
const walk = (ctx: Context, client: ChatClient, p: Plan): AsyncGenerator<FlagsForNarrowResult> =>
  walkForward(
    p.anchor,
    (anchor, includeAnchor) => client.call(updateMessageFlagsForNarrow, params(p, anchor, includeAnchor), { signal: ctx.signal }),
    (res) => ({ lastId: res.processed_count === 0 ? null : res.last_processed_id, foundNewest: res.found_newest }),
  );

/** Sends the plan (every batch with --all), or prints its first request under --dry-run. */
async function apply(ctx: Context, p: Plan, o: OutputOptions & { all: boolean; dryRun: boolean }): Promise<void> {
  const { all } = o;
  // One field list for --fields either way; a single request has no batch number to show by default.
  const spec = all ? { fields: BATCH_FIELDS } : { fields: BATCH_FIELDS, columns: RESULT_FIELDS };
  const out = ctx.output(all && o.json ? { ...o, json: false, format: 'ndjson' } : o, spec);
  const client = await ctx.client();
  if (o.dryRun) {
    printDryRun(ctx, await client.prepare(updateMessageFlagsForNarrow, params(p, p.anchor, true)));
    if (all) ctx.info('chatctl: with --all, later batches start after the last message each batch processed');
    return;
  }
  if (!all) {
    await out.item(rowOf(await client.call(updateMessageFlagsForNarrow, params(p, p.anchor, true), { signal: ctx.signal })));
    return;
  }
  const progress = startProgress(ctx, null, 'messages processed');
  let batches = 0;
  let processed = 0;
  let updated = 0;
  async function* rows() {
    for await (const res of walk(ctx, client, p)) {
      batches++;
      processed += res.processed_count;
      updated += res.updated_count;
      progress.tick(res.processed_count);
      yield { batch: batches, ...rowOf(res) };
    }
    // The count ends on its own line before a table, printed once every batch is known, starts below it.
    progress.done();
  }
  try {
    await out.list(rows());
  } finally {
    progress.done();
  }
  const verb = p.op === 'add' ? 'added to' : 'removed from';
  ctx.info(
    `chatctl: ${processed} message${processed === 1 ? '' : 's'} processed in ${batches} batch${batches === 1 ? '' : 'es'}; "${p.flag}" ${verb} ${updated}`,
  );
}

const DESCRIPTION = (verb: string) =>
  `${verb} a personal flag (read, starred, collapsed) on the messages of a narrow (POST /messages/flags/narrow). ` +
  'One request covers the range around --anchor: --before messages before it, the anchor, and --after messages ' +
  'after it (the server may lower both). --all repeats the request, each batch starting after the last message ' +
  'the previous one processed, until the newest message of the narrow: one row per batch (JSON lines with ' +
  '--json) and a summary on stderr.\n\n' +
  'Narrow syntax, as in a Zulip search box: channel:NAME|ID topic:NAME is:unread|starred|mentioned|dm ' +
  'sender:EMAIL|ID dm:EMAIL,EMAIL has:link|image|attachment search:WORDS id:ID; a leading - negates a term; ' +
  'quote values with spaces (topic:"release notes"); topic:"" is the empty topic; bare words are searched for. ' +
  'Or the API\'s own JSON list. Adding "read" also narrows to is:unread, as the API advises.';

function flagCommand(op: 'add' | 'remove'): CommandSpec {
  return defineCommand({
    path: ['flags', op],
    summary: op === 'add' ? 'add a flag (read, starred ...) to the messages of a narrow' : 'remove a flag (read, starred ...) from the messages of a narrow',
    description: DESCRIPTION(op === 'add' ? 'Adds' : 'Removes'),
    examples:
      op === 'add'
        ? [
            'chatctl flags add read --narrow \'channel:general topic:"release notes"\' --all',
            "chatctl flags add starred --narrow 'sender:ada@example.com has:link' --anchor newest --before 50 --after 0",
            'chatctl flags add read --all --json',
            'chatctl flags add read --narrow \'[{"operator":"channel","operand":"general"}]\' --dry-run',
          ]
        : [
            "chatctl flags remove read --narrow 'channel:general' --anchor newest --before 20 --after 0",
            "chatctl flags remove starred --narrow 'is:starred' --all",
          ],
    args: { flag: arg.choice(`the flag: ${EDITABLE_FLAGS.join(', ')}`, EDITABLE_FLAGS, { what: 'flag' }) },
    options: RANGE_FLAGS,
    output: { fields: BATCH_FIELDS },
    mutating: true,
    check(opts) {
      if (!opts.all) return;
      if ((opts.before ?? 0) > 0) throw usageError('--all walks forward from the anchor: --before must be 0');
      if (opts.after === 0) throw usageError('--all needs --after > 0 (the batch size)');
    },
    run: (opts, ctx) => apply(ctx, planOf(opts, opts.flag, op), opts),
  });
}

export const commands: CommandSpec[] = [flagCommand('add'), flagCommand('remove')];
