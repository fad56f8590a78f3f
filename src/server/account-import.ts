/**
 * Creating many accounts at once in the embedded organization (EmbeddedOrganization.createUsers): what POST
 * /users does for each row, with the caller's credentials and checks, but a batch written in one transaction
 * and its events sent in one pass. Passwords are hashed only for rows that carry one, off the event loop.
 */
import { ApiError } from '../api/errors.js';
import { createUser } from '../api/operations/users.js';
import { nowSeconds } from '../time.js';
import { authenticateKey, checkAccess } from './auth.js';
import type { EventSink } from './context.js';
import { emitEvent } from './model/event-queues.js';
import { getSetting } from './model/realm.js';
import { checkCanCreateUsers, type NewAccount } from './model/user-changes.js';
import { type AccountRow, checkAccountRow, type ImportOutcome, importAccounts } from './model/user-import.js';
import { hashPassword } from './secrets.js';
import type { Db } from './store/db.js';

/**
 * Creates the accounts of `rows` as the account `as` (email and API key), each row's outcome in order. What
 * refuses the caller (credentials, role, the can_create_users permission) refuses the batch: it is thrown, as
 * every row would meet it. Nothing is written when `signal` aborts before the write.
 */
export async function createAccounts(
  db: Db,
  as: { email: string; apiKey: string },
  rows: readonly AccountRow[],
  signal?: AbortSignal,
): Promise<ImportOutcome[]> {
  const caller = authenticateKey(db, as.email, as.apiKey);
  checkAccess(caller, createUser.access, createUser.bots ?? true);
  checkCanCreateUsers(caller);
  // Checked before the hashing, as POST /users does, so a refused row costs no hash.
  const refusals = rows.map((row) => {
    try {
      checkAccountRow(db, row);
      return undefined;
    } catch (e) {
      if (e instanceof ApiError) return e;
      throw e;
    }
  });
  // Without a password an account gets none (NULL): it cannot log in with any password until one is set
  // (server reset-password), like a Zulip account created without one. The hashes queue for secrets.ts's
  // slots, so a batch takes as many cores as a server would give logins and no more.
  const prepared = await Promise.all(
    rows.map(
      async (row, i): Promise<NewAccount | ApiError> =>
        refusals[i] ?? { email: row.email, full_name: row.full_name, password_hash: row.password === undefined ? null : await hashPassword(row.password) },
    ),
  );
  signal?.throwIfAborted();
  const now = nowSeconds();
  const sink: EventSink = { emit: (event, userIds) => emitEvent(db, event, userIds, now) };
  return db
    .transaction(() => {
      checkCanCreateUsers(caller);
      return importAccounts(db, sink, getSetting(db, 'url'), prepared, now);
    })
    .immediate();
}
