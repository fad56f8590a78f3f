/**
 * `users create` over a transport that carries batches (the embedded organization this process opened): the
 * rows' POST /users requests go a batch at a time (`ChatClient.callEach`), each batch answered in one write
 * transaction, every request checked and answered as alone, through the same bulk runner, so per-row
 * outcomes, --fail-fast, Ctrl-C accounting and exit 3 are the same as over a server.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CallParamsOf } from '../../api/operation.js';
import { createUser } from '../../api/operations/users.js';
import type { ChatClient } from '../../client/client.js';
import { NotSentError } from '../../client/transport.js';
import { type BulkFlags, failedOutcome, type Outcome, type RowCall, runBulk, type RunRefusedError, unchangedOutcome } from '../bulk/runner.js';
import type { Context } from '../command/context.js';
import { Refusal } from '../core/refusal.js';

/** Rows a batch holds at most: its transaction stays a few milliseconds, so other writers of the data dir barely wait. */
const BATCH_ROWS = 500;

/**
 * Rows with their own password a batch holds at most: each costs ~50 ms of scrypt, so a batch with passwords
 * still reports its rows, and lets Ctrl-C stop the run, within about a second. Rows without one carry the
 * run's one throwaway password, which a batch hashes once.
 */
const BATCH_PASSWORDS = 16;

/** A row of the run as planned (unchanged, refused before the run, or to create), and its request's parameters. */
export interface AccountCall {
  call: RowCall;
  params: CallParamsOf<typeof createUser>;
  /** Whether the row carries its own password (not the run's throwaway one). */
  ownPassword: boolean;
}

/** Consecutive rows in batches; with --fail-fast one row a batch, so no row is written after the first failure. */
function batchesOf(calls: readonly AccountCall[], failFast: boolean): AccountCall[][] {
  const batches: AccountCall[][] = [];
  let batch: AccountCall[] = [];
  let passwords = 0;
  for (const c of calls) {
    const password = c.ownPassword ? 1 : 0;
    if (batch.length && (failFast || batch.length >= BATCH_ROWS || passwords + password > BATCH_PASSWORDS)) {
      batches.push(batch);
      batch = [];
      passwords = 0;
    }
    batch.push(c);
    passwords += password;
  }
  if (batch.length) batches.push(batch);
  return batches;
}

/**
 * Creates the planned rows, batch by batch. `refusal` recognizes a refusal of the caller that every row
 * would meet alike (it ends the run, as over a server); any other refusal fails its row.
 */
export async function createInBatches(
  ctx: Context,
  flags: BulkFlags,
  client: ChatClient,
  calls: readonly AccountCall[],
  refusal: (e: unknown) => RunRefusedError | undefined,
): Promise<void> {
  await runBulk(ctx, flags, {
    units: batchesOf(calls, flags.failFast === true),
    verb: 'created',
    failFast: flags.failFast,
    rows: (batch) => batch.map(({ call }) => ({ row: call.row, target: call.target })),
    act: async (batch) => {
      // A turn of the event loop between batches, as the embedded transport gives between requests, so a
      // run without passwords (nothing else to wait for) still sees Ctrl-C and SIGTERM.
      await nextTurn();
      if (ctx.signal.aborted) throw new NotSentError(ctx.signal.reason);
      const sent = batch.filter(({ call }) => call.call && !call.inPlace);
      const results = sent.length
        ? await client.callEach(
            createUser,
            sent.map((c) => c.params),
            { signal: ctx.signal },
          )
        : [];
      const byRow = new Map(sent.map((c, i) => [c.call.row, results[i]!]));
      // No second look for a row refused as already in use (RowCall.inPlaceAfter): a killed run has no request
      // left in flight here, what it wrote had committed before this run looked; a repeated address stays a failure.
      return batch.map(({ call }): Outcome => {
        const ref = { row: call.row, target: call.target };
        if (call.inPlace) return unchangedOutcome(ref, call.inPlace.id);
        const result = byRow.get(call.row);
        if (!result) return failedOutcome(ref, call.error ?? new Refusal('cannot be sent'));
        if (result.ok) return { ...ref, ok: true, status: call.status, id: result.value.user_id };
        const refused = refusal(result.error);
        if (refused) throw refused;
        return failedOutcome(ref, result.error);
      });
    },
  });
}
