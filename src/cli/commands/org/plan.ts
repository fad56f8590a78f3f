import { defineCommand } from '../../command/command.js';
import { flag } from '../../core/flags.js';
import { writeWhole } from '../../org/file.js';
import { driftLines, planText, summaryLine } from '../../org/render.js';
import { PendingChanges, planFile } from '../../org/session.js';
import { fileFlag } from './validate.js';

const EXIT_ZERO = flag.bool('--exit-zero', 'exit 0 when changes are pending (not 10), for pipelines that only want the plan');

export const planCommand = defineCommand({
  path: ['org', 'plan'],
  summary: 'compare an organization file with the live organization: what apply would change',
  description:
    'Reads the file, then the live organization (as org export does), and prints what apply would change; it changes nothing. ' +
    'Only the sections the file holds are managed, and in an object only the keys it gives: a partial file is safe. Objects ' +
    'match by id, then by natural key (e-mail for users, name for groups, channels, fields and folders, pattern for ' +
    'linkifiers, domain for domains); a new name with the same id is a rename (→), never a removal and a creation.\n\n' +
    'Text (default): by section, removals first, + create or add, ~ change (only the changed fields, before → after), → rename, ' +
    '- remove, ! cannot be made (with why), then a line with the counts, the number of requests, the time they take under ' +
    "the server's rate limits (200 a minute and 2,000 an hour a user), and how many people Zulip will notify (those subscribed " +
    'to channels by someone else; a group membership notifies no one). --format json prints a versioned document (format_version, server, ' +
    'base_fingerprint, changes with address, id, action, before, after, requests, risk); ndjson one change a line. --out PLAN ' +
    'saves the JSON document for org apply --plan. A field the server’s feature level cannot take fails the plan (exit 1) ' +
    'before anything is sent.\n\nExit 0 in sync, 10 when changes are pending (--exit-zero: 0), 2 for a bad file.',
  examples: ['chatctl org plan -f org.yaml', 'chatctl org plan -f org.yaml --out plan.json', 'chatctl org plan -f org.yaml --format ndjson --exit-zero'],
  options: {
    file: fileFlag,
    format: flag.choice('--format <format>', 'text (default), json or ndjson', ['text', 'json', 'ndjson'] as const),
    out: flag.string('--out <plan>', 'also save the plan as JSON, for org apply --plan', { complete: 'files' }),
    exitZero: EXIT_ZERO,
  },
  async run(opts, ctx) {
    const { plan } = await planFile(ctx, opts.file);
    if (opts.out) await writeWhole(opts.out, `${JSON.stringify(plan, null, 2)}\n`);
    if (opts.format === 'json') ctx.io.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
    else if (opts.format === 'ndjson') for (const c of plan.changes) ctx.io.stdout.write(`${JSON.stringify(c)}\n`);
    else ctx.io.stdout.write(planText(plan));
    if (opts.format === 'json' || opts.format === 'ndjson') ctx.info(`chatctl: ${summaryLine(plan)}`);
    if (plan.changes.length && !opts.exitZero) throw new PendingChanges(plan.changes.length);
  },
});

export const driftCommand = defineCommand({
  path: ['org', 'drift'],
  summary: 'for cron: one line per managed section, exit 10 when the organization drifted from the file',
  description:
    'The plan of org plan, summed up for a cron job: one line per section the file manages (in sync, or what differs), ' +
    'never a prompt. Exit 0 in sync, 10 when it drifted, 2 for a bad file, and the usual codes on errors (75 when the ' +
    'server is unreachable or rate-limited after retries).',
  examples: ['chatctl org drift -f /etc/chatctl/org.yaml', '*/30 * * * *  chatctl org drift -f /etc/chatctl/org.yaml || notify-admins   # crontab'],
  options: { file: fileFlag, exitZero: EXIT_ZERO },
  async run(opts, ctx) {
    const { plan } = await planFile(ctx, opts.file);
    ctx.io.stdout.write(`${driftLines(plan).join('\n')}\n`);
    if (plan.changes.length && !opts.exitZero) throw new PendingChanges(plan.changes.length);
  },
});
