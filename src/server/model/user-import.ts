/**
 * Accounts created in batches (`users create --from-file` into the embedded organization): every row checked
 * and written as POST /users writes one, a batch in one transaction, and its `realm_user` add events (one per
 * account, as Zulip clients expect) sent after one read of the users they can reach, not one per account.
 */
import { ApiError } from '../../api/errors.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { announceAccount, insertAccount, newAccountFields, type NewAccount } from './user-changes.js';
import type { UserRow } from './users.js';
import { listeningViewers } from './event-queues.js';
import { checkNewPassword } from './validation.js';

/** A row to create: the password in clear, absent for an account without one (it cannot log in until one is set). */
export interface AccountRow {
  email: string;
  full_name: string;
  password?: string;
}

/** How a row went: the new account's ID, or the refusal POST /users would have answered with. */
export type ImportOutcome = { ok: true; id: number } | { ok: false; error: ApiError };

/** Checks a row as POST /users does before it hashes the password: name, address, then the password's strength. */
export function checkAccountRow(db: Db, row: AccountRow): void {
  newAccountFields(db, row);
  if (row.password !== undefined) checkNewPassword(row.password);
}

/**
 * Writes a batch inside the caller's transaction: each row checked again (an earlier row of the batch, or
 * another writer, may have taken its address meanwhile), in order, and a refused row refused alone. A row
 * that is already a refusal (from the checks before hashing) is reported as it is.
 */
export function importAccounts(db: Db, sink: EventSink, realmUrl: string, rows: readonly (NewAccount | ApiError)[], now: number): ImportOutcome[] {
  const created: UserRow[] = [];
  const outcomes = rows.map((row): ImportOutcome => {
    if (row instanceof ApiError) return { ok: false, error: row };
    try {
      const user = insertAccount(db, { ...newAccountFields(db, row), password_hash: row.password_hash }, now);
      created.push(user);
      return { ok: true, id: user.id };
    } catch (e) {
      if (e instanceof ApiError) return { ok: false, error: e };
      throw e;
    }
  });
  const viewers = listeningViewers(db);
  for (const user of created) announceAccount(db, sink, realmUrl, user, viewers);
  return outcomes;
}
