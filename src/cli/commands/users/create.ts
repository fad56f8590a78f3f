/** `chatctl users create`. */
import { ApiError } from '../../../api/errors.js';
import { classify } from '../../../api/server-messages.js';
import { createUser, getUserByEmail } from '../../../api/operations/users.js';
import type { User } from '../../../api/types.js';
import { type AccountCall, createInBatches } from '../../users/account-batches.js';
import { cell, type Columns, type InputRow } from '../../bulk/input.js';
import { OUTCOME_FIELDS, planCall, type RowCall, runCalls, RunRefusedError } from '../../bulk/runner.js';
import { defineCommand } from '../../command/command.js';
import type { Context } from '../../command/context.js';
import { usageError } from '../../core/errors.js';
import { arg, flag } from '../../core/flags.js';
import { readSecret } from '../../core/io.js';
import { Refusal } from '../../core/refusal.js';
import { userIndex } from '../../lookup/resolve.js';
import { randomAlphanumeric } from '../../../random.js';
import { USER_BULK_FLAGS, rowsOf } from './shared.js';

/** A new account: from EMAIL and --name, or a file row. */
interface NewUser {
  email: string;
  full_name: string;
  password?: string;
}

const newUserOf = (row: InputRow): NewUser => ({ email: cell(row, 'email'), full_name: cell(row, 'full_name'), password: cell(row, 'password') });

/**
 * `User not authorized to create users`: the caller is an administrator (the role gate passed) without the
 * per-user permission, which a stock server grants no one. Every row would be refused alike.
 */
function createRefusal(ctx: Context, email: string, e: unknown): RunRefusedError | undefined {
  if (!(e instanceof ApiError) || classify(e)?.meaning !== 'notAuthorizedToCreateUsers') return undefined;
  const grant =
    ctx.target().kind === 'embedded'
      ? `grant it: chatctl server grant ${email} can_create_users`
      : `only the server's operator can grant it: manage.py change_user_role ${email} can_create_users`;
  return new RunRefusedError(
    `${e.msg}: creating accounts needs the per-user permission can_create_users besides being an administrator, and a Zulip server gives it to no one by default`,
    'permission',
    `${grant}; without it, invite people instead: chatctl invite send EMAIL (they create their own accounts)`,
  );
}

/**
 * A create row whose address already has an account: in place when it is the same active person (an earlier
 * run made it; the password is not compared, no API shows it), a conflict otherwise, saying what differs.
 */
function createdBefore(user: User, fullName: string): Partial<Pick<RowCall, 'inPlace' | 'status' | 'error' | 'call'>> {
  const who = `already has an account (user ${user.user_id})`;
  if (!user.is_active)
    return { status: 'failed', call: undefined, error: new Refusal(`${who}, deactivated: reactivate it instead (chatctl users reactivate ${user.user_id})`) };
  if (user.full_name !== fullName.trim())
    return { status: 'failed', call: undefined, error: new Refusal(`${who} named "${user.full_name}", not "${fullName.trim()}"`) };
  return { inPlace: { id: user.user_id } };
}

export const createCommand = defineCommand({
  path: ['users', 'create'],
  summary: 'create user accounts (administrators)',
  description:
    'Creates one account (EMAIL --name NAME), or one per row of --from-file (columns email, full_name, and ' +
    'optionally password). Without a password the account cannot log in with one until it is set: it ' +
    'gets a random one nobody sees (one for the whole run), and the person sets their own through the password ' +
    'reset flow (in the embedded organization: chatctl server reset-password). The embedded organization takes ' +
    "the rows' requests in batches of up to 500, one transaction each. With --json each row's outcome is one JSON line. Besides being an " +
    'administrator, it needs the per-user permission can_create_users, which a Zulip server gives no one until its ' +
    'operator grants it (chatctl server grant on the embedded organization, whose creator holds it); without it, ' +
    'invite people instead (invite send). Safe to run again (after Ctrl-C or a crash): a row whose address already ' +
    'has an active account with the same full name is reported unchanged, without a request (the password is not ' +
    'compared), and so is one the server refuses as already in use when the account it finds then is that ' +
    "same person (a killed run's request that reached the server after this run looked); one whose account " +
    'has another name, or is deactivated, fails saying so.',
  examples: [
    'chatctl users create ada@example.com --name "Ada Lovelace"',
    'printf %s "$PW" | chatctl users create ada@example.com --name "Ada Lovelace" --password-stdin',
    'chatctl users create --from-file people.csv --json',
    'chatctl users create --from-file people.csv --dry-run',
  ],
  args: { email: arg.optional("the new user's e-mail address") },
  options: {
    name: flag.string('--name <name>', 'full name (with EMAIL)'),
    passwordStdin: flag.bool('--password-stdin', 'read the password from stdin (with EMAIL)'),
    ...USER_BULK_FLAGS,
  },
  output: { fields: OUTCOME_FIELDS },
  mutating: true,
  check(opts) {
    if (opts.email && !opts.name) throw usageError('--name is required with EMAIL');
    if (opts.passwordStdin && !opts.email) throw usageError('--password-stdin goes with EMAIL, not --from-file');
  },
  async run(opts, ctx) {
    const columns: Columns = {
      email: { required: true, description: 'e-mail address' },
      full_name: { required: true, description: 'full name' },
      password: { description: 'initial password' },
    };
    const given: NewUser[] = opts.email ? [{ email: opts.email, full_name: opts.name ?? '' }] : [];
    const rows = await rowsOf(ctx, opts, columns, given, newUserOf);
    const password = opts.passwordStdin ? await readSecret(ctx.io.stdin) : undefined;
    const client = await ctx.client();
    // One GET /users finds the rows an earlier run already created, so a run can be repeated.
    const { byEmail } = await userIndex(client);
    // POST /users needs a password: a random one nobody sees stands for none, one for the run, so that a
    // batch of rows without one costs the server one hash, not one a row.
    const throwaway = randomAlphanumeric(24);
    const planned = rows.map((r, i): AccountCall => {
      // An empty password cell is no password.
      const own = password ?? (r.password || undefined);
      const params = { email: r.email, full_name: r.full_name, password: own ?? throwaway };
      const call: RowCall = {
        row: i + 1,
        target: r.email,
        status: 'created',
        call: planCall(createUser, params, { idOf: (res) => res.user_id }),
      };
      const account = { params, ownPassword: own !== undefined };
      const existing = byEmail.get(r.email.trim().toLowerCase());
      if (existing) return { ...account, call: { ...call, ...createdBefore(existing, r.full_name) } };
      // A request of a killed run may reach the server after the look above: the account it made is this row's.
      const inPlaceAfter = async (e: unknown) => {
        if (!(e instanceof ApiError) || classify(e)?.meaning !== 'emailInUse') return undefined;
        const { user } = await client.call(getUserByEmail, { email: r.email.trim() }, { signal: ctx.signal }).catch(() => ({ user: undefined }));
        return user ? createdBefore(user, r.full_name).inPlace : undefined;
      };
      return { ...account, call: { ...call, inPlaceAfter } };
    });
    const refusal = (e: unknown) => createRefusal(ctx, client.credentials?.email ?? 'EMAIL', e);
    // EMAIL names one account: its failure exits as its error would; rows of a file are a bulk run (exit 3).
    const flags = { ...opts, single: opts.email !== undefined };
    // The embedded organization takes the rows' requests in batches, one write transaction each.
    if (!opts.dryRun && client.batches) return createInBatches(ctx, flags, client, planned, refusal);
    await runCalls(
      ctx,
      flags,
      client,
      planned.map((p) => p.call),
      'created',
      { refusal },
    );
  },
});
