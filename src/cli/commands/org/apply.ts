import { confirmOrExit } from '../../bulk/confirm.js';
import { tryOrganizationLock } from '../../bulk/lock.js';
import { BULK_FLAGS, OUTCOME_FIELDS } from '../../bulk/runner.js';
import { defineCommand } from '../../command/command.js';
import { notFound } from '../../../errors.js';
import { ChatctlError, usageError } from '../../core/errors.js';
import { flag } from '../../core/flags.js';
import {
  asPlan,
  checkRemovals,
  DEFAULT_MAX_REMOVALS,
  journalPath,
  keptBack,
  loadJournal,
  parseMaxRemovals,
  parsePrune,
  runJournal,
  saveJournal,
} from '../../org/apply.js';
import { readValue } from '../../org/file.js';
import { fingerprint } from '../../org/plan.js';
import { planText } from '../../org/render.js';
import { type Planned, planFile, readFor, siteOf } from '../../org/session.js';
import type { Context } from '../../command/context.js';

/** A plan saved by org plan --out, refused when an object it changes changed since. */
async function savedPlan(ctx: Context, file: string): Promise<Omit<Planned, 'doc'>> {
  const plan = asPlan(await readValue(ctx, file));
  // The fingerprint covers only the objects the plan touches: a plan that only creates fingerprints the same
  // in any organization lacking those objects, so the organization itself is checked first.
  const site = siteOf(ctx);
  if (plan.server.site !== site)
    throw new ChatctlError(
      `the saved plan was made for ${plan.server.site}, not ${site}`,
      'failure',
      'make a plan against this organization with chatctl org plan --out',
    );
  const client = await ctx.client();
  const live = await readFor(ctx, client, plan);
  if (fingerprint(live, plan.changes) !== plan.base_fingerprint) {
    throw new ChatctlError('the saved plan is stale: objects it changes changed since it was made', 'failure', 'make a new plan with chatctl org plan --out');
  }
  return { plan, live, client };
}

export const applyCommand = defineCommand({
  path: ['org', 'apply'],
  summary: 'make the live organization what a file (or a saved plan) says',
  description:
    'Plans the file (as org plan does), or takes a plan saved with org plan --out (refused as stale, exit 1, when an object ' +
    'it touches changed since), and sends its changes in dependency order: folders, groups and users before what names them, ' +
    'objects before their memberships, removals last. One outcome row per change; exit 0 when all were made, 3 when some ' +
    'failed or cannot be made, 75 when the rate limit or retries ran out, 130 when interrupted.\n\n' +
    'Removals are sent only for the sections --prune names (all: every managed section), and always in their reversible form: ' +
    'a channel is archived, a user deactivated, a member removed. A plan removing more than --max-removals in a section is ' +
    'refused before anything is sent (default 10% of its objects and memberships, at least 1). Never changed: your own role ' +
    'and account, the last owner, system groups, bots the file does not name, anything the file lists under protect:.\n\n' +
    "Requests go one at a time, paced under the server's rate limits; a journal (0600, in the data dir or the config dir, one " +
    'per organization) is written after each, and --resume continues an apply that stopped (exit 75 or 130) without sending ' +
    'again what was done. One apply runs at a time per organization. On a terminal it shows the plan and asks first; ' +
    'elsewhere it needs --yes when it removes anything.',
  examples: [
    'chatctl org apply -f org.yaml',
    'chatctl org plan -f org.yaml --out plan.json && chatctl org apply --plan plan.json --yes',
    'chatctl org apply -f org.yaml --prune channels --max-removals 5',
    'chatctl org apply --resume',
  ],
  options: {
    file: flag.string('-f, --file <file>', 'the organization file (YAML or JSON)', { complete: 'files' }),
    plan: flag.string('--plan <plan>', 'a plan saved with org plan --out', { complete: 'files' }),
    prune: flag.custom('--prune <sections>', 'also remove (reversibly) what these sections hold and the file does not: a list, or all', parsePrune),
    maxRemovals: flag.custom('--max-removals <n|p%>', 'refuse a plan removing more than this per section (default 10%, at least 1)', parseMaxRemovals),
    resume: flag.bool('--resume', 'continue the apply that stopped (its journal), sending nothing it already sent'),
    failFast: BULK_FLAGS.failFast,
  },
  output: { fields: OUTCOME_FIELDS },
  destructive: true,
  check(opts) {
    const given = [opts.file, opts.plan].filter((v) => v !== undefined).length;
    if (opts.resume ? given > 0 : given !== 1)
      throw usageError(opts.resume ? '--resume takes no -f or --plan: it continues the journal' : 'give one of -f FILE or --plan PLAN');
  },
  async run(opts, ctx) {
    const path = journalPath(ctx);
    const lock = tryOrganizationLock(ctx, 'org-apply');
    if ('heldBy' in lock)
      throw new ChatctlError(`another org apply${lock.heldBy > 0 ? ` (pid ${lock.heldBy})` : ''} is running on this organization`, 'temporary');
    try {
      const pending = loadJournal(path);
      if (opts.resume) {
        if (!pending) throw notFound(`no unfinished org apply to resume (${path})`);
        const client = await ctx.client();
        ctx.info(`chatctl: resuming: ${pending.done.length} requests were done before`);
        return await runJournal(ctx, { ...opts, fields: undefined }, client, path, pending);
      }
      if (pending)
        throw new ChatctlError(
          `an org apply of this organization did not finish (${path})`,
          'failure',
          'continue it with chatctl org apply --resume, or remove the journal to start over',
        );
      const prune = opts.prune ?? [];
      const { plan, live, client } = opts.plan ? await savedPlan(ctx, opts.plan) : await planFile(ctx, opts.file ?? '');
      if (!plan.changes.length) return void ctx.info('chatctl: in sync: nothing to apply');
      checkRemovals(plan, live, prune, opts.maxRemovals ?? DEFAULT_MAX_REMOVALS);
      const removes = plan.changes.some((c) => c.action === 'remove' && !keptBack(c, prune));
      if (ctx.prompter.interactive && !opts.yes) {
        ctx.io.stderr.write(planText(plan));
        await confirmOrExit(ctx, false, 'Apply this plan?');
      } else if (removes && !opts.yes) throw usageError('the plan removes things: not running interactively; pass --yes', 'see it first with chatctl org plan');
      const journal = { plan, prune, done: [], created: {} };
      saveJournal(path, journal);
      await runJournal(ctx, { ...opts, fields: undefined }, client, path, journal);
    } finally {
      lock.release();
    }
  },
});
