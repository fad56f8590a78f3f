/**
 * `users create` into the embedded organization this process opened: rows go to it in batches
 * (EmbeddedOrganization.createUsers: one transaction and one pass over the event queues a batch, passwords
 * hashed only for rows that carry one) instead of one POST /users each, through the same bulk runner, so
 * per-row outcomes, --fail-fast, Ctrl-C accounting and exit 3 are the same as over a server.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChatClient, Credentials } from '../client/client.js';
import { NotSentError } from '../client/transport.js';
import type { AccountRow, EmbeddedOrganization } from '../server/embedded.js';
import { type BulkFlags, failedOutcome, type Outcome, type RowCall, runBulk, type RunRefusedError, unchangedOutcome } from './bulk.js';
import type { Context } from './context.js';
import { Refusal } from './refusal.js';

/** Rows a batch holds at most: its transaction stays a few milliseconds, so other writers of the data dir barely wait. */
const BATCH_ROWS = 500;

/**
 * Passwords a batch hashes at most: each costs ~50 ms of scrypt, so a batch with passwords still reports its
 * rows, and lets Ctrl-C stop the run, within about a second.
 */
const BATCH_PASSWORDS = 16;

/** A row of the run as planned (unchanged, refused before the run, or to create), and the account it asks for. */
export interface AccountCall {
  call: RowCall;
  account: AccountRow;
}

/** The embedded organization behind `client`, when the target is one this process opened. */
export async function organizationOf(client: ChatClient): Promise<EmbeddedOrganization | undefined> {
  const { OrganizationTransport } = await import('./data-dir.js');
  return client.transport instanceof OrganizationTransport ? client.transport.organization : undefined;
}

/** Consecutive rows in batches; with --fail-fast one row a batch, so no row is written after the first failure. */
function batchesOf(calls: readonly AccountCall[], failFast: boolean): AccountCall[][] {
  const batches: AccountCall[][] = [];
  let batch: AccountCall[] = [];
  let passwords = 0;
  for (const c of calls) {
    const password = c.account.password === undefined ? 0 : 1;
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
 * Creates the planned rows as `as`, batch by batch. `refusal` recognizes a refusal of the caller that every
 * row would meet alike (it ends the run); any other refusal of the caller fails the batch's rows.
 */
export async function createInBatches(
  ctx: Context,
  flags: BulkFlags,
  organization: EmbeddedOrganization,
  as: Credentials,
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
        ? await organization
            .createUsers(
              as,
              sent.map((c) => c.account),
              ctx.signal,
            )
            .catch((e: unknown) => {
              // Nothing was written: the write is a batch's last step, in one transaction.
              if (ctx.signal.aborted) throw new NotSentError(e);
              throw refusal(e) ?? e;
            })
        : [];
      const byRow = new Map(sent.map((c, i) => [c.call.row, results[i]!]));
      return batch.map(({ call }): Outcome => {
        const ref = { row: call.row, target: call.target };
        if (call.inPlace) return unchangedOutcome(ref, call.inPlace.id);
        const result = byRow.get(call.row);
        if (!result) return failedOutcome(ref, call.error ?? new Refusal('cannot be sent'));
        return result.ok ? { ...ref, ok: true, status: call.status, id: result.id } : failedOutcome(ref, result.error);
      });
    },
  });
}
