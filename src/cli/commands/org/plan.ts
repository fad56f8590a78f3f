import { defineCommand } from '../../command/command.js';
import type { Context } from '../../command/context.js';
import type { Plan } from '../../org/model.js';
import { flag } from '../../core/flags.js';
import { writeWhole } from '../../org/file.js';
import { driftLines, planText, summaryLine } from '../../org/render.js';
import { planRehearsal } from '../../org/rehearsal.js';
import { PendingChanges, planFile } from '../../org/session.js';
import { usageError } from '../../core/errors.js';
import { fileFlag } from './validate.js';

/** How a plan is printed and saved (org plan, org rehearse). */
export const PLAN_OUTPUT = {
  format: flag.choice('--format <format>', 'text (default), json or ndjson', ['text', 'json', 'ndjson'] as const),
  out: flag.string('--out <plan>', 'also save the plan as JSON, for org apply --plan', { complete: 'files' }),
};

export const EXIT_ZERO = flag.bool('--exit-zero', 'exit 0 when changes are pending (not 10), for pipelines that only want the plan');

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
    'before anything is sent.\n\n' +
    '--desired DIR (a copy made by org mirror) --against PROFILE plans three ways instead of a file: the base saved in DIR, the ' +
    'copy now and the organization of PROFILE now (default: the one DIR was mirrored from). It proposes only what changed on ' +
    'the copy since the mirror, against the IDs production has now (what the copy made is created, or matched by name when ' +
    'production made it meanwhile), and where production changed the same field since the mirror it shows a conflict (!) instead, ' +
    "never reverting production's change; org apply --plan refuses conflicts.\n\n" +
    'Exit 0 in sync, 10 when changes are pending (--exit-zero: 0), 2 for a bad file.',
  examples: [
    'chatctl org plan -f org.yaml',
    'chatctl org plan -f org.yaml --out plan.json',
    'chatctl org plan -f org.yaml --format ndjson --exit-zero',
    'chatctl org plan --desired ./rehearsal --against prod --out plan.json',
  ],
  options: {
    file: flag.string('-f, --file <file>', 'the organization file (YAML or JSON)', { complete: 'files' }),
    desired: flag.string('--desired <dir>', 'plan what changed on this copy (org mirror) since it was made, instead of a file', { complete: 'files' }),
    against: flag.string('--against <profile>', 'with --desired: the profile of production (default: the one the copy came from)', { complete: 'profiles' }),
    ...PLAN_OUTPUT,
    exitZero: EXIT_ZERO,
  },
  check(opts) {
    if ((opts.file === undefined) === (opts.desired === undefined)) throw usageError('give one of -f FILE or --desired DIR');
    if (opts.against !== undefined && opts.desired === undefined) throw usageError('--against goes with --desired DIR');
  },
  async run(opts, ctx) {
    const plan = opts.desired ? await planRehearsal(ctx, opts.desired, opts.against) : (await planFile(ctx, opts.file ?? '')).plan;
    await showPlan(ctx, plan, opts);
  },
});

/** Prints a plan as org plan does (and saves it with `out`); PendingChanges (exit 10) when it has changes. */
export async function showPlan(ctx: Context, plan: Plan, opts: { format?: 'text' | 'json' | 'ndjson'; out?: string; exitZero: boolean }): Promise<void> {
  if (opts.out) await writeWhole(opts.out, `${JSON.stringify(plan, null, 2)}\n`);
  if (opts.format === 'json') ctx.io.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
  else if (opts.format === 'ndjson') for (const c of plan.changes) ctx.io.stdout.write(`${JSON.stringify(c)}\n`);
  else ctx.io.stdout.write(planText(plan));
  if (opts.format === 'json' || opts.format === 'ndjson') ctx.info(`chatctl: ${summaryLine(plan)}`);
  if (plan.changes.length && !opts.exitZero) throw new PendingChanges(plan.changes.length);
}

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
