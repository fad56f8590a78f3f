/**
 * Running a bulk command: one outcome per input row, printed as it is known (a JSON line with --json or
 * --format ndjson, a table or TSV row otherwise), processing past failures unless --fail-fast, one summary on stderr at the end, and exit 3 when
 * any row failed, whatever the number of rows: one row, some or all of them (a command that names one thing
 * by its nature, `single`, exits as its one request's error would instead). Errors every row would meet
 * alike end the run with their own code (4, 75 ...). A run of one row is a person's single change: on a terminal table it prints no row, and
 * its summary is a sentence ("Deactivated user 8 (iago@example.com)."); machine formats keep the row. A run that the server's longest rate-limit rule (an hour on current servers) cannot take
 * within --max-wait sends what it can, reports the other rows as skipped and exits 75, so it can be resumed.
 *
 * Ctrl-C, SIGINT or SIGTERM stop it starting rows: the rows done are reported as they went, those whose
 * request was in flight `unknown` (the server may have acted on them), the rest `skipped`; the summary says
 * so, and the exit is 130. A second signal ends the process at once with the same accounting (its last words).
 * A row whose effect was already in place is `unchanged` and counts as done, so a run can be repeated after
 * any interruption.
 */
import { ApiError } from '../../api/errors.js';
import type { CallParamsOf, Operation, ResponseOf } from '../../api/operation.js';
import type { WireRequest } from '../../api/wire.js';
import type { ChatClient } from '../../client/client.js';
import type { ParamLabels } from '../../client/shape.js';
import type { Context } from '../command/context.js';
import { type PlannedRequest, printDryRun } from './dry-run.js';
import { DEFAULT_CONCURRENCY, runPool } from '../../client/pool.js';
import type { Pacer } from '../../client/pacing.js';
import { NotSentError } from '../../client/transport.js';
import { confirmOrExit } from './confirm.js';
import { ChatctlError, exitKindOf, type ExitKind, RowsFailedError } from '../core/errors.js';
import { flag, type Values } from '../core/flags.js';
import type { OutputFlags, OutputSpec, Row } from '../output/output.js';
import { startProgress } from '../output/progress.js';
import { Refusal } from '../core/refusal.js';
import { formatDuration } from '../core/units.js';

export interface Outcome {
  /** 1-based position in the input. */
  row: number;
  /** What the row names (an e-mail, a user, an ID). */
  target: string;
  ok: boolean;
  /** What happened: created, updated, invited, deactivated, failed, skipped ... */
  status: string;
  /** The ID of what was created or changed, when there is one. */
  id?: number | string | null;
  error?: string | null;
  code?: string | null;
  /** The error behind a failed row, never printed: a one-row run says it (and a `single` one exits as it would). */
  cause?: unknown;
  /** What the row names, for a person ("user 8 (iago@example.com)"; default: the target), never printed in rows. */
  label?: string;
}

export const OUTCOME_FIELDS = ['row', 'target', 'ok', 'status', 'id', 'error', 'code'] as const;

type RowRef = { row: number; target: string };

/** A row whose request was in flight when the run was interrupted: the server may or may not have acted on it. */
export const unknownOutcome = (r: RowRef): Outcome => ({
  ...r,
  ok: false,
  status: 'unknown',
  error: 'interrupted while its request was in flight: it may or may not have taken effect',
  code: null,
});

/** A row whose effect was already in place (a re-run): nothing was sent for it, and it counts as done. */
export const unchangedOutcome = (r: RowRef & { label?: string }, id: number | string | null): Outcome => ({
  row: r.row,
  target: r.target,
  ok: true,
  status: 'unchanged',
  id,
  error: null,
  code: null,
  label: r.label,
});

/** A row repeating an earlier row of the same run (the same address twice): nothing was sent for it, and it counts as done. */
export const duplicateOutcome = (r: RowRef): Outcome => ({
  row: r.row,
  target: r.target,
  ok: true,
  status: 'duplicate',
  id: null,
  error: null,
  code: null,
});

/** The line printed for a row: every field, null where there is nothing, so a script reads one shape. */
const lineOf = (r: Outcome): Outcome => ({
  row: r.row,
  target: r.target,
  ok: r.ok,
  status: r.status,
  id: r.id ?? null,
  error: r.error ?? null,
  code: r.code ?? null,
});

async function* oneByOne<T>(items: AsyncIterable<T>): AsyncGenerator<readonly T[]> {
  for await (const item of items) yield [item];
}

/** The summary on stderr: `chatctl: 40 created, 10 unchanged, 0 failed`, and what an interruption left. */
function summaryOf(outcomes: readonly Outcome[], verb: string, interrupted: boolean): string {
  const count = (status: string) => outcomes.filter((r) => r.status === status).length;
  const unchanged = count('unchanged');
  const duplicates = count('duplicate');
  const done = outcomes.filter((r) => r.ok).length - unchanged - duplicates;
  const head = `${done} ${verb}${unchanged ? `, ${unchanged} unchanged` : ''}${duplicates ? `, ${duplicates} duplicate${duplicates > 1 ? 's' : ''} (not sent)` : ''}`;
  if (!interrupted) {
    const skips = count('skipped');
    return `${head}, ${outcomes.filter((r) => !r.ok).length} failed${skips ? ` (${skips} skipped)` : ''}`;
  }
  const unknown = outcomes.filter((r) => r.status === 'unknown').map((r) => r.row);
  const rows = unknown.length ? ` (row${unknown.length > 1 ? 's' : ''} ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ' ...' : ''})` : '';
  return `interrupted: ${head}, ${count('failed')} failed, ${unknown.length} unknown${rows}, ${count('skipped')} skipped`;
}

/**
 * A sentence's first word with a capital, when it is chatctl's own word ("user 8 ..."): a word that names
 * something of the user's (an e-mail address, a channel or file name given as the row's target) keeps its
 * case, since `Alice@zulip.test` or `General` is not what they typed.
 */
function sentenceStart(r: Outcome, text: string): string {
  if (r.label === undefined || /^\S*@/.test(text)) return text;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The summary of a one-row run that succeeded, as a sentence: `Deactivated user 8 (iago@example.com).` */
function sentenceOf(r: Outcome, verb: string): string {
  if (r.status !== 'unchanged') return `${r.status.charAt(0).toUpperCase()}${r.status.slice(1)} ${r.label ?? r.target}.`;
  return `${sentenceStart(r, r.label ?? r.target)} unchanged: already ${verb}.`;
}

/**
 * How a command whose rows are its results (the files `attachments clean` deleted) reports a run, instead
 * of outcome lines and their counts. Everything else (order, pacing, Ctrl-C, exit codes) is the runner's.
 */
export interface BulkReport {
  /** The command's own output for the rows; absent, no rows are printed (-q, when rows are results). */
  output?: OutputSpec;
  /** The row an outcome prints, or undefined for none: a failed row is then warned, as `failed` says it. */
  row(o: Outcome): Row | undefined;
  failed(o: Outcome): string;
  /** The summary, in place of the counts and of a one-row run's sentence; said once, as the error when rows failed. */
  summary(outcomes: readonly Outcome[], interrupted: boolean): string;
}

export interface BulkOptions<U> {
  /** Units of work; a unit may stand for several rows (one request inviting many addresses). */
  units: readonly U[];
  /** Performs one unit and says how each of its rows went; throwing fails all its rows. */
  act(unit: U): Promise<Outcome[]>;
  /** The rows of a unit, for reporting a unit that threw or was skipped. */
  rows(unit: U): { row: number; target: string }[];
  failFast?: boolean;
  /** Past tense for the summary: "invited", "deactivated". */
  verb: string;
  /**
   * The client's rate-limit pacer, consulted before each unit starts, and once the first response has shown
   * the server's longest rule, for whether the whole run fits it. Each unit is one request.
   */
  pacer?: Pick<Pacer, 'ready' | 'outlook' | 'maxWaitMs'>;
  /** Default: a line per outcome (OUTCOME_FIELDS) and the counts. */
  report?: BulkReport;
}

/**
 * Failures that end a bulk run at once instead of failing one row: every row would fail the same way. A
 * temporary failure (the server still unreachable or rate-limited after the retries) ends it with exit 75,
 * so cron reschedules the job rather than reading a partial failure.
 */
const FATAL: ReadonlySet<ExitKind> = new Set(['auth', 'interrupted', 'usage', 'temporary']);

/** A refusal every row would meet alike (a permission the caller lacks): it ends the run like the kinds above. */
export class RunRefusedError extends ChatctlError {}

export const endsRun = (e: unknown): boolean => e instanceof RunRefusedError || FATAL.has(exitKindOf(e));

/** The options every bulk command takes besides its own. */
export const BULK_FLAGS = {
  failFast: flag.bool('--fail-fast', 'stop at the first failed row (the rest are reported as skipped)'),
  concurrency: flag.int('--concurrency <n>', `requests in flight at once (default ${DEFAULT_CONCURRENCY}; 1 with --fail-fast)`, { min: 1, max: 32 }),
};

/**
 * What a bulk run is told: how to print, the bulk options (parsed), and whether the command names one thing
 * by its nature (`linkifiers add`, `users update USER`; not `users deactivate USERS...` given one): such a
 * run is one request, and fails with that request's exit code (6, 5 ...) rather than 3.
 */
export type BulkFlags = Partial<Values<typeof BULK_FLAGS>> & OutputFlags & { single?: boolean };

/** Messages and codes of a failure, for an outcome. */
export function failure(e: unknown): Pick<Outcome, 'error' | 'code'> {
  if (e instanceof ApiError) return { error: e.msg, code: e.code };
  return { error: e instanceof Error ? e.message : String(e), code: null };
}

/** A row that failed with `e`: its message and code printed, `e` kept so a one-row run says it. */
export const failedOutcome = (r: RowRef, e: unknown): Outcome => ({ ...r, ok: false, status: 'failed', ...failure(e), cause: e });

export async function runBulk<U>(ctx: Context, flags: BulkFlags, o: BulkOptions<U>): Promise<Outcome[]> {
  const { report } = o;
  // Outcomes stream: --json means one JSON object a line, printed as each row is done.
  const out = report
    ? report.output && ctx.output(flags, report.output)
    : ctx.output(flags.json ? { ...flags, json: false, format: 'ndjson' } : flags, { fields: OUTCOME_FIELDS });
  const rowOf = (r: Outcome): Row | undefined => (report ? report.row(r) : lineOf(r));
  const summary = (list: readonly Outcome[], interrupted: boolean): string =>
    report ? report.summary(list, interrupted) : summaryOf(list, o.verb, interrupted);
  const concurrency = o.failFast ? 1 : (flags.concurrency ?? DEFAULT_CONCURRENCY);
  const outcomes: Outcome[] = [];
  const total = o.units.reduce((n, u) => n + o.rows(u).length, 0);
  const progress = startProgress(ctx, total);
  const skipped = (unit: U, why: string): Outcome[] => o.rows(unit).map((r) => ({ ...r, ok: false, status: 'skipped', error: why, code: null }));
  const INTERRUPTED = 'not attempted: interrupted';
  // Units started and not yet settled, and every unit's outcomes once settled: what last words report.
  const inFlight = new Set<number>();
  const results = new Map<number, Outcome[]>();
  let failedFast = false;

  // Units from `cutoff` on are not sent: the server's longest rule would not take them within --max-wait.
  let cutoff = Number.POSITIVE_INFINITY;
  let notSent = '';
  let unsent = 0;
  let started = 0;
  let outlookRead = false;
  /** Once a response has reported the longest rule: says up front whether the rest of the run fits it. */
  const checkOutlook = () => {
    const look = outlookRead ? undefined : o.pacer?.outlook(o.units.length - started);
    if (!look) return;
    outlookRead = true;
    if (look.waitMs === 0) return;
    const rest = o.units.length - started;
    const wait = formatDuration(look.waitMs / 1000);
    const said = `chatctl: ${rest} more requests to send, but the server's rate limit (${look.rule.calls} per ${formatDuration(look.rule.seconds)}) takes ${look.allowed} now; the rest would wait about ${wait}`;
    if (look.waitMs <= o.pacer!.maxWaitMs) {
      ctx.info(`${said}: waiting as needed (--max-wait)`);
      return;
    }
    cutoff = started + look.allowed;
    notSent = `not sent: the server's rate limit is used up for about ${wait}`;
    ctx.info(`${said}, more than --max-wait: sending ${look.allowed || 'no'} more, then stopping`);
  };

  /** One unit's outcomes. Failures become outcomes, except those that end the whole run (credentials, Ctrl-C). */
  const perform = async (unit: U, index: number): Promise<Outcome[]> => {
    if (failedFast) return skipped(unit, 'not attempted after an earlier failure (--fail-fast)');
    if (index >= cutoff) {
      unsent += o.rows(unit).length;
      return skipped(unit, notSent);
    }
    started = Math.max(started, index + 1);
    inFlight.add(index);
    try {
      const results = await o.act(unit);
      if (o.failFast && results.some((r) => !r.ok)) failedFast = true;
      return results;
    } catch (e) {
      // Whatever a request in flight failed with after Ctrl-C (the abort, mostly) says nothing of whether
      // the server acted on it, unless the transport knows it never handed it over.
      if (ctx.signal.aborted) return e instanceof NotSentError ? skipped(unit, INTERRUPTED) : o.rows(unit).map(unknownOutcome);
      if (endsRun(e)) throw e;
      if (o.failFast) failedFast = true;
      return o.rows(unit).map((r) => failedOutcome(r, e));
    } finally {
      inFlight.delete(index);
      checkOutlook();
    }
  };

  // Units run in a bounded pool over the keep-alive connections, paced by the rate-limit headers. With
  // --fail-fast they run one at a time, so nothing after the first failure has started. Outcomes are
  // released in input order (a row waits only for the rows before it), so runs are diffable.
  const ready: Outcome[][] = [];
  let released = 0;
  const settle = (index: number, outcomes: Outcome[]) => {
    results.set(index, outcomes);
    for (let next = results.get(released); next; next = results.get(released)) {
      released++;
      ready.push(next);
    }
  };
  let wake: (() => void) | undefined;
  let finished = false;
  let fatal: unknown;
  const pool = runPool(o.units, perform, {
    concurrency,
    pacer: o.pacer,
    signal: ctx.signal,
    stopWhen: endsRun,
    onProgress: ({ result }) => {
      if (result.ok) settle(result.index, result.value);
      else if (result.skipped) settle(result.index, skipped(result.item, ctx.signal.aborted ? INTERRUPTED : 'not attempted after an earlier error'));
      else {
        fatal ??= result.error;
        settle(result.index, []);
      }
      wake?.();
    },
  }).finally(() => {
    finished = true;
    wake?.();
  });

  // Units whose rows were all printed: the first `printedUnits`, since they are released in order.
  let printedUnits = 0;
  async function* produce(): AsyncGenerator<Row> {
    for (;;) {
      for (let batch = ready.shift(); batch; batch = ready.shift()) {
        for (const r of batch) {
          outcomes.push(r);
          // The count is of rows done: one not attempted (skipped) or left in flight (unknown) is not.
          if (r.status !== 'skipped' && r.status !== 'unknown') progress.tick();
          const row = rowOf(r);
          if (row) yield row;
          else if (report && r.status === 'failed') ctx.warn(report.failed(r));
        }
        printedUnits++;
      }
      if (finished) {
        // The count ends on its own line before a table, printed once every row is known, starts below it.
        progress.done();
        return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  }
  // A second Ctrl-C ends the process before the pool settles: the rows not printed yet are said then, as
  // they stand (done, in flight, not started), with the summary.
  const unsay = ctx.lastWords(() => {
    progress.done();
    const rest: Outcome[] = [];
    o.units.forEach((unit, index) => {
      if (index < printedUnits) return;
      const known = results.get(index);
      rest.push(...(known ?? (inFlight.has(index) ? o.rows(unit).map(unknownOutcome) : skipped(unit, INTERRUPTED))));
    });
    for (const r of rest) {
      const row = rowOf(r);
      if (row) out?.rowNow(row);
    }
    ctx.info(`chatctl: ${summary([...outcomes, ...rest], true)}`);
  });
  // One row on a terminal table: its sentence says it all, a table of one row would repeat it.
  const single = !report && total === 1 && out?.format === 'table';
  try {
    if (single || !out) for await (const _ of produce());
    // A command's own rows are written as they are released in every format (a JSON array too), so a killed
    // run has printed what it did; outcome lines are NDJSON or TSV, which a list writes as they come.
    else if (report) await out.stream(oneByOne(produce()));
    else await out.list(produce());
    await pool;
  } finally {
    unsay();
    progress.done();
  }
  if (fatal !== undefined && !ctx.signal.aborted) throw fatal;
  const only = !report && total === 1 && !ctx.signal.aborted ? outcomes[0] : undefined;
  const failed = outcomes.filter((r) => !r.ok).length;
  // One summary a run: where rows failed, the summary is the run's error (exit 3), said once.
  const failedRun = !only && failed > 0 && !ctx.signal.aborted && !unsent;
  // A single row that failed is said once, by its error; one that succeeded, by a sentence.
  if (only?.ok) ctx.info(sentenceOf(only, o.verb));
  else if (!only && !failedRun) ctx.info(`chatctl: ${summary(outcomes, ctx.signal.aborted)}`);
  if (ctx.signal.aborted) throw new ChatctlError('interrupted', 'interrupted');
  if (unsent) throw new ChatctlError(`${unsent} rows not sent: the server's rate limit is used up`, 'temporary', 'run the skipped rows again later');
  if (failed === 0) return outcomes;
  // A report has warned each failed row already: its summary is the error.
  const one = !report && outcomes.length === 1 ? (outcomes[0]!.cause ?? new ChatctlError(outcomes[0]!.error ?? 'failed')) : undefined;
  if (one !== undefined && flags.single) throw one;
  throw new RowsFailedError(summary(outcomes, false), one);
}

/**
 * --dry-run of a bulk command: a note for each row already in place (nothing would be sent for it), the
 * requests that would be sent, and a warning for each row that could not be: exit 3, as the run would, or 6
 * when the command names one thing (`single`) and it does not exist.
 */
export function printPlan(
  ctx: Context,
  requests: readonly PlannedRequest[],
  unsendable: readonly { row: number; target: string; error: string }[],
  totalRows: number,
  inPlace: readonly RowRef[] = [],
  single = false,
): void {
  for (const r of inPlace) ctx.info(`row ${r.row} (${r.target}): unchanged, already in place`);
  for (const u of unsendable) ctx.warn(`row ${u.row} (${u.target}): ${u.error}`);
  printDryRun(ctx, requests);
  if (unsendable.length) throw new ChatctlError(`${unsendable.length} of ${totalRows} rows cannot be sent`, single ? 'notFound' : 'partial');
}

/** A request planned for a row, typed by its operation; what the run prepares, prints or sends. */
export interface PlannedCall {
  /** The wire requests it would send (for --dry-run, and to refuse what the server cannot do before anything is sent). */
  prepare(client: ChatClient): Promise<WireRequest[]>;
  /** Sends it; the ID to report for the row. */
  send(client: ChatClient, signal: AbortSignal): Promise<number | string | null>;
}

/**
 * Plans `op` with `params`. The row reports `id`, or what `idOf` picks from the response (default: none);
 * `labels` name parameters after the flags that set them, in refusals.
 */
export function planCall<O extends Operation>(
  op: O,
  params: CallParamsOf<O>,
  o: { labels?: ParamLabels; id?: number | string; idOf?: (response: ResponseOf<O>) => number | string | null } = {},
): PlannedCall {
  const { labels, idOf } = o;
  return {
    prepare: (client) => client.prepare(op, params, { labels }),
    send: async (client, signal) => {
      const res = await client.call(op, params, { signal, labels });
      return o.id ?? idOf?.(res) ?? null;
    },
  };
}

/** One row's request, planned before anything is sent (so --dry-run can print it instead). */
export interface RowCall {
  row: number;
  target: string;
  /** The request; absent when the row failed before a request (an unknown user). */
  call?: PlannedCall;
  /** Why the row cannot be sent. */
  error?: Refusal;
  /**
   * The row's effect is already in place (found in what was looked up before the run: a re-run): nothing
   * is sent for it, and it is reported `unchanged`, with this ID.
   */
  inPlace?: { id: number | string | null };
  /**
   * Whether a refusal of the request means the effect is in place after all: a request of a run killed
   * earlier that reached the server after this run looked. Undefined: the refusal stands.
   */
  inPlaceAfter?: (error: unknown) => Promise<{ id: number | string | null } | undefined>;
  /** Past tense for the outcome: created, updated, deactivated ... */
  status: string;
  /** What the row names, for a person's sentence ("user 8 (iago@example.com)"); default: the target. */
  label?: string;
}

/**
 * Sends planned calls one row at a time (or prints them under --dry-run), reporting each row (as `report`
 * says, when given). `refusal` recognizes an error that every row would meet alike and explains it; it
 * then ends the run.
 */
export async function runCalls(
  ctx: Context,
  flags: BulkFlags & { dryRun?: boolean },
  client: ChatClient,
  calls: readonly RowCall[],
  verb: string,
  { refusal, report }: { refusal?: (e: unknown) => RunRefusedError | undefined; report?: BulkReport } = {},
): Promise<void> {
  if (flags.dryRun) {
    printPlan(
      ctx,
      // Each request line names its row's target for a person, so a plan of IDs can be reviewed.
      (
        await Promise.all(
          calls.flatMap((c) => (c.call && !c.inPlace ? [c.call.prepare(client).then((rs) => rs.map((r) => (c.label ? { ...r, target: c.label } : r)))] : [])),
        )
      ).flat(),
      calls.filter((c) => !c.call && !c.inPlace).map((c) => ({ row: c.row, target: c.target, error: c.error?.msg ?? 'cannot be sent' })),
      calls.length,
      calls.filter((c) => c.inPlace),
      flags.single,
    );
    return;
  }
  // What the server cannot do is refused for the whole run before anything is sent, not row by row.
  for (const c of calls) if (c.call) await c.call.prepare(client);
  await runBulk(ctx, flags, {
    units: calls,
    verb,
    report,
    pacer: client.pacer,
    failFast: flags.failFast,
    rows: (c) => [{ row: c.row, target: c.target }],
    act: async (c) => {
      if (c.inPlace) return [unchangedOutcome(c, c.inPlace.id)];
      if (!c.call) throw c.error ?? new Refusal('cannot be sent');
      let id: number | string | null;
      try {
        id = await c.call.send(client, ctx.signal);
      } catch (e) {
        const found = ctx.signal.aborted ? undefined : await c.inPlaceAfter?.(e);
        if (found) return [unchangedOutcome(c, found.id)];
        throw refusal?.(e) ?? e;
      }
      return [{ row: c.row, target: c.target, ok: true, status: c.status, id, label: c.label }];
    },
  });
}

/**
 * One row per target, each with its planned call: what a command that acts on the things it names sends.
 * `noun` names them in a one-row run's sentence ("Removed linkifier 3.").
 */
export const rowCalls = <T>(targets: readonly T[], status: string, plan: (target: T) => PlannedCall, noun?: string): RowCall[] =>
  targets.map((target, i) => ({ row: i + 1, target: String(target), status, call: plan(target), ...(noun ? { label: `${noun} ${String(target)}` } : {}) }));

/** A destructive run: asks first on a terminal (not for --dry-run; --yes answers), then runs the calls. */
export async function confirmAndRun(
  ctx: Context,
  flags: BulkFlags & { dryRun: boolean; yes: boolean },
  calls: readonly RowCall[],
  verb: string,
  question: string,
): Promise<void> {
  if (!flags.dryRun) await confirmOrExit(ctx, flags.yes, question);
  await runCalls(ctx, flags, await ctx.client(), calls, verb);
}
