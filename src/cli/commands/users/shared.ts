/** What the users commands share: the user object's fields and how they show, and users named by arguments or --from-file rows. */
import type { User } from '../../../api/types.js';
import { argumentsOrRows, cell, fromFileFlags, type ColumnRules, type Columns, type FromFile, type InputRow } from '../../bulk/input.js';
import { BULK_FLAGS, type RowCall } from '../../bulk/runner.js';
import type { Context } from '../../command/context.js';
import { Refusal, refusalOf } from '../../core/refusal.js';
import { resolveUsers } from '../../lookup/resolve.js';

/** Every field of the 2.1 user object, in display order. */
export const USER_FIELDS = [
  'user_id',
  'email',
  'delivery_email',
  'full_name',
  'role',
  'is_active',
  'is_owner',
  'is_admin',
  'is_guest',
  'is_bot',
  'bot_type',
  'bot_owner_id',
  'date_joined',
  'timezone',
  'avatar_url',
  'avatar_version',
  'is_imported_stub',
  'is_deleted',
  'profile_data',
] as const;

export const USER_COLUMNS = ['user_id', 'full_name', 'email', 'delivery_email', 'role', 'is_active', 'is_bot', 'date_joined'] as const;
/** How users show in text: roles by name and date_joined as every other time, in tables. */
export const USER_DISPLAY = { times: { date_joined: 'iso' }, roles: ['role'], key: ['user_id', 'email', 'full_name'] } as const;

/** The options of every users command that takes rows from a file as well as from arguments. */
export const USER_BULK_FLAGS = { ...fromFileFlags(), ...BULK_FLAGS };

/** A user named by ID or e-mail, from an argument or a file row. */
export interface UserRef {
  user: string;
}

/** Rows from --from-file (each read by `fromRow`), or the ones given as arguments; never both. */
export const rowsOf = <R>(
  ctx: Context,
  source: FromFile,
  columns: Columns,
  args: readonly R[],
  fromRow: (row: InputRow) => R,
  rules?: ColumnRules,
): Promise<R[]> => argumentsOrRows(ctx, source, args, { many: 'users', one: 'user (ID or e-mail)' }, columns, fromRow, rules);

/**
 * The columns of `users deactivate` and `reactivate`: a user named by `user`, else `user_id`, else `email`,
 * so the rows `users list` prints (an inactivity report, say) and either command's file are taken as they
 * are, their other columns ignored.
 */
const LISTED_USER_COLUMNS: Columns = {
  user: { description: 'user ID or e-mail (this, user_id or email)', json: 'id' },
  user_id: { description: 'user ID (this, user or email)', json: 'id' },
  email: { description: 'e-mail (this, user or user_id)' },
};

/** The users `users deactivate` or `reactivate` acts on: its arguments, or a reference per --from-file row. */
export const listedUserRows = (ctx: Context, opts: FromFile & { users: readonly string[] }): Promise<UserRef[]> =>
  rowsOf(
    ctx,
    opts,
    LISTED_USER_COLUMNS,
    opts.users.map((user) => ({ user })),
    (row) => ({ user: cell(row, 'user') || cell(row, 'user_id') || cell(row, 'email') }),
    { otherColumns: 'ignore' },
  );

/** A user for a person, from the user list already read: `user 70 (alice@example.com, Alice)`. */
const userLabel = (id: number, user: User | undefined): string => `user ${id}${user ? ` (${user.delivery_email ?? user.email}, ${user.full_name})` : ''}`;

/** Plans one call per row for commands that act on existing users (the `user` column). */
export async function planForUsers<R extends UserRef>(
  ctx: Context,
  rows: readonly R[],
  plan: (row: R, userId: number, user: User | undefined) => Omit<RowCall, 'row' | 'target'>,
  o: { users?: boolean; customFields?: boolean } = {},
): Promise<RowCall[]> {
  const client = await ctx.client();
  const resolved = await resolveUsers(
    client,
    rows.map((r) => r.user).filter((u) => u.trim() !== ''),
    o,
  );
  return rows.map((r, i) => {
    const found = resolved.get(r.user);
    const base = { row: i + 1, target: r.user };
    if (!found) return { ...base, status: 'failed', error: new Refusal('no user, user_id or email') };
    if (!found.ok) return { ...base, status: 'failed', error: found.error };
    const label = userLabel(found.id, found.user);
    try {
      return { ...base, label, ...plan(r, found.id, found.user) };
    } catch (e) {
      return { ...base, status: 'failed', error: refusalOf(e) };
    }
  });
}
