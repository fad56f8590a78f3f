import { ApiError } from '../../api/errors.js';
import { classify } from '../../api/server-messages.js';
import { addLinkifier, getLinkifiers, removeLinkifier, reorderLinkifiers, updateLinkifier } from '../../api/operations/linkifiers.js';
import { idArg, idsArg } from '../core/args.js';
import { confirmAndRun, OUTCOME_FIELDS, planCall, type RowCall, rowCalls, runCalls } from '../bulk/runner.js';
import { defineCommand } from '../command/command.js';
import { printDryRun } from '../bulk/dry-run.js';
import { usageError } from '../core/errors.js';
import { arg, flag, type Values } from '../core/flags.js';
import type { OutputSpec } from '../output/output.js';

const LINKIFIER_OUTPUT: OutputSpec = {
  fields: ['id', 'pattern', 'url_template', 'reverse_template', 'alternative_url_templates', 'example_input'],
  columns: ['id', 'pattern', 'url_template', 'reverse_template', 'alternative_url_templates'],
  key: ['id', 'pattern'],
};

/** The reverse-linkification fields, which `add` and `update` both take. */
const REVERSE_FLAGS = {
  exampleInput: flag.string('--example-input <text>', 'a string the pattern matches (required with --reverse-template)'),
  reverseTemplate: flag.string('--reverse-template <template>', 'turns a pasted URL back into the linkifier text, e.g. #{id}'),
  alternativeUrlTemplate: flag.list('--alternative-url-template <template>', 'another URL template, for reverse linkification only (repeatable)'),
};

type ReverseFlags = Values<typeof REVERSE_FLAGS>;

/** The optional fields given on the command line; absent ones stay undefined. */
function reverseFields(o: ReverseFlags): { example_input?: string; reverse_template?: string; alternative_url_templates?: string[] } {
  return {
    example_input: o.exampleInput,
    reverse_template: o.reverseTemplate,
    alternative_url_templates: o.alternativeUrlTemplate.length ? o.alternativeUrlTemplate : undefined,
  };
}

const PATTERN_ARGS = {
  pattern: arg.required('regular expression with named groups'),
  urlTemplate: arg.required('RFC 6570 URL template using the named groups', { label: 'url_template' }),
};

/** How the person asked for what older servers lack. */
const LABELS = {
  example_input: '--example-input',
  reverse_template: '--reverse-template',
  alternative_url_templates: '--alternative-url-template',
};
const CLEAR_LABELS = { example_input: '--clear-reverse', reverse_template: '--clear-reverse', alternative_url_templates: '--clear-reverse' };

export const commands = [
  defineCommand({
    path: ['linkifiers', 'list'],
    aliases: ['ls'],
    summary: 'list the linkifiers, in the order they are applied',
    description:
      "Lists the organization's linkifiers (GET /realm/linkifiers) in the order clients apply them, which decides " +
      'the winner when patterns overlap: ID, pattern, URL template, reverse template, alternative URL templates and ' +
      'example input.',
    examples: ['chatctl linkifiers list', 'chatctl linkifiers list --json', 'chatctl linkifiers list --fields id,pattern --format csv'],
    output: LINKIFIER_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      await out.list((await (await ctx.client()).call(getLinkifiers, {}, { signal: ctx.signal })).linkifiers);
    },
  }),

  defineCommand({
    path: ['linkifiers', 'add'],
    summary: 'add a linkifier (administrators)',
    description:
      'Adds a linkifier at the end of the order (POST /realm/filters). PATTERN is a regular expression in Python ' +
      'syntax whose named groups, (?P<name>...), are exactly the variables of URL_TEMPLATE, an RFC 6570 template. ' +
      'Reverse linkification (a pasted URL becomes the linkifier text) needs --reverse-template and --example-input. ' +
      "Prints the outcome with the new linkifier's ID.",
    examples: [
      "chatctl linkifiers add '#(?P<id>[0-9]+)' 'https://github.com/zulip/zulip/issues/{id}'",
      "chatctl linkifiers add 'RT(?P<id>[0-9]+)' 'https://rt.example.com/{id}' --reverse-template 'RT{id}' --example-input RT42",
      "chatctl linkifiers add '#(?P<id>[0-9]+)' 'https://example.com/{id}' --dry-run",
    ],
    args: PATTERN_ARGS,
    options: REVERSE_FLAGS,
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      const { pattern } = opts;
      const call: RowCall = {
        row: 1,
        target: pattern,
        status: 'added',
        call: planCall(addLinkifier, { pattern, url_template: opts.urlTemplate, ...reverseFields(opts) }, { labels: LABELS, idOf: (res) => res.id }),
      };
      await runCalls(ctx, { ...opts, single: true }, await ctx.client(), [call], 'added');
    },
  }),

  defineCommand({
    path: ['linkifiers', 'update'],
    summary: "change a linkifier's pattern and URL template (administrators)",
    description:
      'Replaces linkifier ID (PATCH /realm/filters/{id}): PATTERN and URL_TEMPLATE are required, as by the API. ' +
      'The reverse-linkification fields (example input, reverse template, alternative URL templates) keep their ' +
      'current values unless given, or are removed with --clear-reverse (sent as "" and [], as the API takes it).',
    examples: [
      "chatctl linkifiers update 3 '#(?P<id>[0-9]+)' 'https://github.com/zulip/zulip/pull/{id}'",
      "chatctl linkifiers update 3 'RT(?P<id>[0-9]+)' 'https://rt.example.com/{id}' --clear-reverse",
    ],
    args: { id: idArg('linkifier ID (from linkifiers list)', 'linkifier'), ...PATTERN_ARGS },
    options: { ...REVERSE_FLAGS, clearReverse: flag.bool('--clear-reverse', 'remove the example input, reverse template and alternative URL templates') },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    check(opts) {
      if (opts.clearReverse && Object.values(reverseFields(opts)).some((v) => v !== undefined)) {
        throw usageError('--clear-reverse removes the reverse fields; it cannot go with --example-input, --reverse-template or --alternative-url-template');
      }
    },
    async run(opts, ctx) {
      const { id, clearReverse: clear } = opts;
      const reverse = clear ? { example_input: '', reverse_template: '', alternative_url_templates: [] } : reverseFields(opts);
      const call: RowCall = {
        row: 1,
        target: String(id),
        status: 'updated',
        call: planCall(
          updateLinkifier,
          { filter_id: id, pattern: opts.pattern, url_template: opts.urlTemplate, ...reverse },
          { labels: clear ? CLEAR_LABELS : LABELS, id },
        ),
      };
      await runCalls(ctx, { ...opts, single: true }, await ctx.client(), [call], 'updated');
    },
  }),

  defineCommand({
    path: ['linkifiers', 'remove'],
    aliases: ['rm'],
    summary: 'remove linkifiers (administrators)',
    description:
      'Removes the linkifiers with these IDs (DELETE /realm/filters/{id}). Messages already sent keep their links; ' +
      "new messages are no longer linkified. Each ID's outcome is printed; exit 3 when any failed, the only one " +
      'given too (chatctl help exit-codes). Asks for confirmation on a terminal; elsewhere --yes is required.',
    examples: ['chatctl linkifiers remove 3', 'chatctl linkifiers remove 3 4 --yes --json'],
    args: { ids: idsArg('linkifier IDs (from linkifiers list)', 'linkifier') },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const { ids } = opts;
      const calls = rowCalls(ids, 'removed', (id) => planCall(removeLinkifier, { filter_id: id }, { id }), 'linkifier');
      await confirmAndRun(ctx, opts, calls, 'removed', `Remove ${ids.length === 1 ? `linkifier ${ids[0]}` : `${ids.length} linkifiers`}?`);
    },
  }),

  defineCommand({
    path: ['linkifiers', 'reorder'],
    summary: 'set the order linkifiers are applied in (administrators)',
    description:
      'Sets the order (PATCH /realm/linkifiers): give every linkifier ID once, first applied first. When patterns ' +
      'overlap, the earlier linkifier wins. On a refusal the current order is shown as a hint.',
    examples: ['chatctl linkifiers reorder 4 2 3', 'chatctl linkifiers list --fields id | tac | xargs chatctl linkifiers reorder'],
    args: { ids: idsArg('every linkifier ID, in the new order', 'linkifier') },
    mutating: true,
    async run(opts, ctx) {
      const { ids } = opts;
      const client = await ctx.client();
      if (opts.dryRun) {
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
