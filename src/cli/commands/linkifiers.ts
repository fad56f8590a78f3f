import { ApiError } from '../../api/errors.js';
import { classify } from '../../api/server-messages.js';
import { addLinkifier, getLinkifiers, removeLinkifier, reorderLinkifiers, updateLinkifier } from '../../api/operations/linkifiers.js';
import { type BulkFlags, OUTCOME_FIELDS, planCall, type RowCall, runCalls } from '../bulk.js';
import { defineLegacyCommand, opt, type CommandOptions, type OptionSpec } from '../legacy-command.js';
import { confirmOrExit } from '../confirm.js';
import { printDryRun } from '../dry-run.js';
import { usageError } from '../errors.js';
import type { OutputFlags, OutputSpec } from '../output/output.js';
import { parseIdArgs } from '../units.js';

const LINKIFIER_OUTPUT: OutputSpec = {
  fields: ['id', 'pattern', 'url_template', 'reverse_template', 'alternative_url_templates', 'example_input'],
  columns: ['id', 'pattern', 'url_template', 'reverse_template', 'alternative_url_templates'],
};

const REVERSE_OPTIONS: OptionSpec[] = [
  { flags: '--example-input <text>', description: 'a string the pattern matches (required with --reverse-template)' },
  { flags: '--reverse-template <template>', description: 'turns a pasted URL back into the linkifier text, e.g. #{id}' },
  { flags: '--alternative-url-template <template>', description: 'another URL template, for reverse linkification only (repeatable)', repeatable: true },
];

/** The optional fields given on the command line; absent ones stay undefined. */
function reverseFields(opts: CommandOptions): { example_input?: string; reverse_template?: string; alternative_url_templates?: string[] } {
  const alternatives = opt.list(opts, 'alternativeUrlTemplate');
  return {
    example_input: opt.str(opts, 'exampleInput'),
    reverse_template: opt.str(opts, 'reverseTemplate'),
    alternative_url_templates: alternatives.length ? alternatives : undefined,
  };
}

/** How the person asked for what older servers lack. */
const LABELS = {
  example_input: '--example-input',
  reverse_template: '--reverse-template',
  alternative_url_templates: '--alternative-url-template',
};
const CLEAR_LABELS = { example_input: '--clear-reverse', reverse_template: '--clear-reverse', alternative_url_templates: '--clear-reverse' };

export const commands = [
  defineLegacyCommand({
    path: ['linkifiers', 'list'],
    aliases: ['ls'],
    summary: 'list the linkifiers, in the order they are applied',
    description:
      'Lists the organization\'s linkifiers (GET /realm/linkifiers) in the order clients apply them, which decides ' +
      'the winner when patterns overlap: ID, pattern, URL template, reverse template, alternative URL templates and ' +
      'example input.',
    examples: ['chatctl linkifiers list', 'chatctl linkifiers list --json', 'chatctl linkifiers list --fields id,pattern --format csv'],
    output: LINKIFIER_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts as OutputFlags);
      await out.list((await (await ctx.client()).call(getLinkifiers, {}, { signal: ctx.signal })).linkifiers);
    },
  }),

  defineLegacyCommand({
    path: ['linkifiers', 'add'],
    summary: 'add a linkifier (administrators)',
    description:
      'Adds a linkifier at the end of the order (POST /realm/filters). PATTERN is a regular expression in Python ' +
      'syntax whose named groups, (?P<name>...), are exactly the variables of URL_TEMPLATE, an RFC 6570 template. ' +
      'Reverse linkification (a pasted URL becomes the linkifier text) needs --reverse-template and --example-input. ' +
      'Prints the outcome with the new linkifier\'s ID.',
    examples: [
      "chatctl linkifiers add '#(?P<id>[0-9]+)' 'https://github.com/zulip/zulip/issues/{id}'",
      "chatctl linkifiers add 'RT(?P<id>[0-9]+)' 'https://rt.example.com/{id}' --reverse-template 'RT{id}' --example-input RT42",
      "chatctl linkifiers add '#(?P<id>[0-9]+)' 'https://example.com/{id}' --dry-run",
    ],
    args: [
      { name: 'pattern', description: 'regular expression with named groups', required: true },
      { name: 'url_template', description: 'RFC 6570 URL template using the named groups', required: true },
    ],
    options: REVERSE_OPTIONS,
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      const pattern = opt.str(opts, 'pattern')!;
      const call: RowCall = {
        row: 1,
        target: pattern,
        status: 'added',
        call: planCall(addLinkifier, { pattern, url_template: opt.str(opts, 'urlTemplate')!, ...reverseFields(opts) }, { labels: LABELS, idOf: (res) => res.id }),
      };
      await runCalls(ctx, opts as BulkFlags, await ctx.client(), [call], 'added');
    },
  }),

  defineLegacyCommand({
    path: ['linkifiers', 'update'],
    summary: 'change a linkifier\'s pattern and URL template (administrators)',
    description:
      'Replaces linkifier ID (PATCH /realm/filters/{id}): PATTERN and URL_TEMPLATE are required, as by the API. ' +
      'The reverse-linkification fields (example input, reverse template, alternative URL templates) keep their ' +
      'current values unless given, or are removed with --clear-reverse (sent as "" and [], as the API takes it).',
    examples: [
      "chatctl linkifiers update 3 '#(?P<id>[0-9]+)' 'https://github.com/zulip/zulip/pull/{id}'",
      "chatctl linkifiers update 3 'RT(?P<id>[0-9]+)' 'https://rt.example.com/{id}' --clear-reverse",
    ],
    args: [
      { name: 'id', description: 'linkifier ID (from linkifiers list)', required: true },
      { name: 'pattern', description: 'regular expression with named groups', required: true },
      { name: 'url_template', description: 'RFC 6570 URL template using the named groups', required: true },
    ],
    options: [...REVERSE_OPTIONS, { flags: '--clear-reverse', description: 'remove the example input, reverse template and alternative URL templates' }],
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      const [id] = parseIdArgs([opt.str(opts, 'id')!], 'linkifier');
      const given = reverseFields(opts);
      const clear = opt.bool(opts, 'clearReverse');
      if (clear && Object.values(given).some((v) => v !== undefined)) {
        throw usageError('--clear-reverse removes the reverse fields; it cannot go with --example-input, --reverse-template or --alternative-url-template');
      }
      const reverse = clear ? { example_input: '', reverse_template: '', alternative_url_templates: [] } : given;
      const call: RowCall = {
        row: 1,
        target: String(id),
        status: 'updated',
        call: planCall(updateLinkifier, { filter_id: id, pattern: opt.str(opts, 'pattern')!, url_template: opt.str(opts, 'urlTemplate')!, ...reverse }, { labels: clear ? CLEAR_LABELS : LABELS, id }),
      };
      await runCalls(ctx, opts as BulkFlags, await ctx.client(), [call], 'updated');
    },
  }),

  defineLegacyCommand({
    path: ['linkifiers', 'remove'],
    aliases: ['rm'],
    summary: 'remove linkifiers (administrators)',
    description:
      'Removes the linkifiers with these IDs (DELETE /realm/filters/{id}). Messages already sent keep their links; ' +
      'new messages are no longer linkified. Each ID\'s outcome is printed; exit 3 when some failed, 6 when the one ' +
      'ID given is unknown. Asks for confirmation on a terminal; elsewhere --yes is required.',
    examples: ['chatctl linkifiers remove 3', 'chatctl linkifiers remove 3 4 --yes --json'],
    args: [{ name: 'ids', description: 'linkifier IDs (from linkifiers list)', required: true, variadic: true }],
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const ids = parseIdArgs(opt.list(opts, 'ids'), 'linkifier');
      const calls: RowCall[] = ids.map((id, i) => ({
        row: i + 1,
        target: String(id),
        status: 'removed',
        call: planCall(removeLinkifier, { filter_id: id }, { id }),
      }));
      if (!opt.bool(opts, 'dryRun')) await confirmOrExit(ctx, opt.bool(opts, 'yes'), `Remove ${ids.length === 1 ? `linkifier ${ids[0]}` : `${ids.length} linkifiers`}?`);
      await runCalls(ctx, opts as BulkFlags, await ctx.client(), calls, 'removed');
    },
  }),

  defineLegacyCommand({
    path: ['linkifiers', 'reorder'],
    summary: 'set the order linkifiers are applied in (administrators)',
    description:
      'Sets the order (PATCH /realm/linkifiers): give every linkifier ID once, first applied first. When patterns ' +
      'overlap, the earlier linkifier wins. On a refusal the current order is shown as a hint.',
    examples: ['chatctl linkifiers reorder 4 2 3', 'chatctl linkifiers list --fields id | tac | xargs chatctl linkifiers reorder'],
    args: [{ name: 'ids', description: 'every linkifier ID, in the new order', required: true, variadic: true }],
    mutating: true,
    async run(opts, ctx) {
      const ids = parseIdArgs(opt.list(opts, 'ids'), 'linkifier');
      const client = await ctx.client();
      if (opt.bool(opts, 'dryRun')) {
        printDryRun(ctx, await client.prepare(reorderLinkifiers, { ordered_linkifier_ids: ids }));
        return;
      }
      try {
        await client.call(reorderLinkifiers, { ordered_linkifier_ids: ids }, { signal: ctx.signal });
      } catch (e) {
        // The server says what is wrong but not what it has; the current order is what the person needs next.
        if (e instanceof ApiError && classify(e)?.meaning === 'linkifierOrderMismatch') {
          const order = (await client.call(getLinkifiers, {}, { signal: ctx.signal })).linkifiers.map((l) => l.id);
          ctx.info(`chatctl: the current order is: ${order.join(' ') || '(no linkifiers)'}`);
        }
        throw e;
      }
      ctx.info(`chatctl: linkifiers reordered: ${ids.join(' ')}`);
    },
  }),
];
