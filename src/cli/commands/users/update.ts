/** `chatctl users update`. */
import { updateUser } from '../../../api/operations/users.js';
import type { Role } from '../../../api/roles.js';
import type { User } from '../../../api/types.js';
import { cell, type ColumnRules, type Columns, type InputRow } from '../../bulk/input.js';
import { OUTCOME_FIELDS, planCall, runCalls } from '../../bulk/runner.js';
import { defineCommand } from '../../command/command.js';
import { usageError } from '../../core/errors.js';
import { arg, flag, parseRole, roleProblem } from '../../core/flags.js';
import { USER_BULK_FLAGS, type UserRef, rowsOf, planForUsers } from './shared.js';

type ProfileEntry = { id: number; value: string | null };

/** `ID=VALUE` into a profile_data entry; `ID=` clears the field. */
function parseProfileField(v: string): ProfileEntry {
  const m = /^(\d+)=(.*)$/s.exec(v);
  if (!m) throw usageError(`--profile-field takes ID=VALUE (a custom profile field ID), not "${v}"`);
  return { id: Number(m[1]), value: m[2] === '' ? null : m[2]! };
}

/** What `users update` changes for one user. */
interface UserChanges {
  full_name?: string;
  role?: Role;
  new_email?: string;
  profile_data?: ProfileEntry[];
}

/** A user to update and the changes. */
interface UpdateRow extends UserRef {
  changes: UserChanges;
}

/** The columns of `users update --from-file`, every cell checked with the file, before anything is sent. */
const UPDATE_COLUMNS: Columns = {
  user: { required: true, description: 'user ID or e-mail', json: 'id' },
  full_name: { description: 'new full name' },
  role: { description: 'new role', check: roleProblem, json: 'id' },
  new_email: { description: 'new e-mail' },
};

const UPDATE_RULES: ColumnRules = {
  checkRow: (row) => (['full_name', 'role', 'new_email'].some((c) => cell(row, c).trim()) ? undefined : 'nothing to change (no full_name, role or new_email)'),
};

/** A row of a file already checked: its role is one. */
function updateRowOf(row: InputRow): UpdateRow {
  const role = cell(row, 'role').trim();
  return {
    user: cell(row, 'user'),
    changes: { full_name: cell(row, 'full_name'), role: role ? parseRole(role) : undefined, new_email: cell(row, 'new_email') },
  };
}

/** The changes that change something: an empty name or address (an empty cell, `--name ""`) is left out. */
function effectiveChanges(c: UserChanges): UserChanges {
  return {
    ...(c.full_name ? { full_name: c.full_name } : {}),
    ...(c.role !== undefined ? { role: c.role } : {}),
    ...(c.new_email ? { new_email: c.new_email } : {}),
    ...(c.profile_data?.length ? { profile_data: c.profile_data } : {}),
  };
}

/**
 * The changes `user` does not have yet, so a run repeated sends nothing for what is already so (all of them
 * when the user list did not show the user). A profile field absent from profile_data has no value.
 */
function pendingChanges(c: UserChanges, user: User | undefined): UserChanges {
  if (!user) return c;
  const address = (user.delivery_email ?? user.email).toLowerCase();
  const profile = c.profile_data?.filter((p) => (user.profile_data?.[String(p.id)]?.value ?? null) !== p.value);
  return {
    ...(c.full_name !== undefined && c.full_name.trim() !== user.full_name ? { full_name: c.full_name } : {}),
    ...(c.role !== undefined && c.role !== user.role ? { role: c.role } : {}),
    ...(c.new_email !== undefined && c.new_email.trim().toLowerCase() !== address ? { new_email: c.new_email } : {}),
    ...(profile?.length ? { profile_data: profile } : {}),
  };
}

export const updateCommand = defineCommand({
  path: ['users', 'update'],
  summary: "change a user's name, role, custom profile fields or e-mail (administrators)",
  description:
    'Changes one user (USER is an ID or e-mail), or one per row of --from-file (columns user, and any of ' +
    'full_name, role, new_email). Roles: owner, admin, moderator, member, guest. Only owners may grant or ' +
    'remove the owner role. Changing e-mails needs an owner holding the per-user permission ' +
    'can_change_user_emails (the owner chatctl init creates holds it; chatctl server grant gives it on the embedded ' +
    'organization; on a Zulip server, an administrator its operator granted it to). Every row of the file is ' +
    'checked before anything is sent (a role that is no role, a row with nothing to change: exit 2). Only what ' +
    'differs from the user as the server lists them is sent; a user who already has every change is reported ' +
    'unchanged, so a run can be repeated.',
  examples: [
    'chatctl users update iago@example.com --role admin',
    'chatctl users update 8 --name "King Hamlet" --profile-field 3=Denmark',
    'chatctl users update 8 --new-email hamlet@elsinore.test',
    'chatctl users update --from-file roles.csv --fail-fast',
  ],
  args: { user: arg.optional('user ID or e-mail address') },
  options: {
    name: flag.string('--name <name>', 'new full name'),
    role: flag.role('--role <role>', 'new role: owner, admin, moderator, member, guest'),
    profileField: flag.list('--profile-field <id=value>', 'set a custom profile field; ID= clears it (repeatable)', parseProfileField),
    newEmail: flag.string('--new-email <email>', 'new e-mail address'),
    ...USER_BULK_FLAGS,
  },
  output: { fields: OUTCOME_FIELDS },
  mutating: true,
  check(opts) {
    if (opts.user && opts.name === undefined && opts.role === undefined && opts.newEmail === undefined && !opts.profileField.length) {
      throw usageError('nothing to change: pass --name, --role, --profile-field or --new-email');
    }
  },
  async run(opts, ctx) {
    const given: UpdateRow[] = opts.user
      ? [{ user: opts.user, changes: { full_name: opts.name, role: opts.role, new_email: opts.newEmail, profile_data: opts.profileField } }]
      : [];
    const rows = await rowsOf(ctx, opts, UPDATE_COLUMNS, given, updateRowOf, UPDATE_RULES);
    const calls = await planForUsers(
      ctx,
      rows,
      (r, userId, user) => {
        const changes = effectiveChanges(r.changes);
        if (!Object.keys(changes).length) throw new Error('nothing to change in this row');
        const pending = pendingChanges(changes, user);
        return {
          status: 'updated',
          inPlace: Object.keys(pending).length ? undefined : { id: userId },
          call: planCall(updateUser, { user_id: userId, ...pending }, { labels: { new_email: '--new-email (new_email)' }, id: userId }),
        };
      },
      { users: true, customFields: rows.some((r) => r.changes.profile_data?.length) },
    );
    // USER names one account: its failure exits as its error would; rows of a file are a bulk run (exit 3).
    await runCalls(ctx, { ...opts, single: opts.user !== undefined }, await ctx.client(), calls, 'updated');
  },
});
