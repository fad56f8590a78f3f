import { ApiError } from '../../api/errors.js';
import { classify } from '../../api/server-messages.js';
import { deactivateBot } from '../../api/operations/bots.js';
import { createUser, deactivateUser, getUser, getUserByEmail, getUsers, reactivateUser, updateUser } from '../../api/operations/users.js';
import { ROLE_NAMES, type Role, type User } from '../../api/types.js';
import { cell, fileRows, fromFileFlags, type Columns, type InputRow } from '../bulk-input.js';
import { BULK_FLAGS, type BulkFlags, OUTCOME_FIELDS, planCall, type RowCall, runCalls, RunRefusedError } from '../bulk.js';
import { defineLegacyCommand, opt, type CommandOptions, type OptionSpec } from '../legacy-command.js';
import { confirmOrExit } from '../confirm.js';
import type { Context } from '../context.js';
import { usageError } from '../errors.js';
import { readSecret } from '../io.js';
import type { OutputFlags } from '../output/output.js';
import { Refusal, refusalOf } from '../refusal.js';
import { resolveUsers, userIndex } from '../resolve.js';
import { randomAlphanumeric } from '../../random.js';

/** Every field of the 2.1 user object, in display order. */
export const USER_FIELDS = [
  'user_id', 'email', 'delivery_email', 'full_name', 'role', 'is_active', 'is_owner', 'is_admin', 'is_guest', 'is_bot',
  'bot_type', 'bot_owner_id', 'date_joined', 'timezone', 'avatar_url', 'avatar_version', 'is_imported_stub', 'is_deleted',
  'profile_data',
] as const;

const USER_COLUMNS = ['user_id', 'full_name', 'email', 'delivery_email', 'role', 'is_active', 'is_bot', 'date_joined'] as const;

export const ROLE_BY_NAME: Record<string, Role> = Object.fromEntries(
  Object.entries(ROLE_NAMES).map(([code, name]) => [name, Number(code) as Role]),
);

/** `owner`, `admin` ... or a wire value (`100`). */
export function parseRole(value: string): Role {
  const role = ROLE_BY_NAME[value.toLowerCase()] ?? (Object.keys(ROLE_NAMES).includes(value) ? (Number(value) as Role) : undefined);
  if (role === undefined) throw usageError(`unknown role "${value}"`, `roles: ${Object.values(ROLE_NAMES).join(', ')}`);
  return role;
}

/** `1,2,3` into user IDs. */
export function parseIds(value: string, flag: string): number[] {
  const ids = value.split(',').map((v) => v.trim()).filter(Boolean);
  if (!ids.length || ids.some((v) => !/^\d+$/.test(v))) throw usageError(`${flag} takes comma-separated user IDs, not "${value}"`);
  return ids.map(Number);
}

/** Options of every bulk-capable users command. */
const BULK_OPTIONS: OptionSpec[] = [];

/** Rows from --from-file, or the positional references; never both. */
async function rowsOf(ctx: Context, opts: CommandOptions, columns: Columns, fromArgs: () => InputRow[]): Promise<InputRow[]> {
  const file = opt.str(opts, 'fromFile');
  const args = fromArgs();
  if (file && args.length) throw usageError('give users as arguments or with --from-file, not both');
  const rows = await fileRows(ctx, { fromFile: opt.str(opts, 'fromFile'), encoding: opt.str(opts, 'encoding') }, columns);
  if (rows) return rows;
  if (!args.length) throw usageError('name at least one user (ID or e-mail), or pass --from-file');
  return args;
}

/** Plans one call per row for commands that act on existing users (the `user` column). */
async function planForUsers(
  ctx: Context,
  rows: InputRow[],
  plan: (row: InputRow, userId: number, user: User | undefined) => Omit<RowCall, 'row' | 'target'>,
  o: { users?: boolean } = {},
): Promise<RowCall[]> {
  const client = await ctx.client();
  const resolved = await resolveUsers(client, rows.map((r) => cell(r, 'user')), o);
  return rows.map((r, i) => {
    const ref = cell(r, 'user');
    const found = resolved.get(ref)!;
    const base = { row: i + 1, target: ref };
    if (!found.ok) return { ...base, status: 'failed', error: found.error };
    try {
      return { ...base, ...plan(r, found.id, found.user) };
    } catch (e) {
      return { ...base, status: 'failed', error: refusalOf(e) };
    }
  });
}

/** `ID=VALUE` options into profile_data entries; `ID=` clears the field. */
function parseProfileFields(values: string[]): { id: number; value: string | null }[] {
  return values.map((v) => {
    const m = /^(\d+)=(.*)$/s.exec(v);
    if (!m) throw usageError(`--profile-field takes ID=VALUE (a custom profile field ID), not "${v}"`);
    return { id: Number(m[1]), value: m[2] === '' ? null : m[2]! };
  });
}

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
  if (!user.is_active) return { status: 'failed', call: undefined, error: new Refusal(`${who}, deactivated: reactivate it instead (chatctl users reactivate ${user.user_id})`) };
  if (user.full_name !== fullName.trim()) return { status: 'failed', call: undefined, error: new Refusal(`${who} named "${user.full_name}", not "${fullName.trim()}"`) };
  return { inPlace: { id: user.user_id } };
}

export const commands = [
  defineLegacyCommand({
    path: ['users', 'list'],
    aliases: ['ls'],
    summary: 'list the users of the organization',
    description:
      'Lists active and deactivated users and bots (GET /users). Filters apply on top; --ids asks the server for ' +
      'just those users (filtered by chatctl on servers before feature level 384).',
    examples: [
      'chatctl users list',
      'chatctl users list --role admin --active',
      'chatctl users list --json | jq -r \'.[] | select(.is_bot) | .email\'',
      'chatctl users list --fields user_id,delivery_email,role --format csv',
    ],
    options: [
      { flags: '--role <role>', description: 'only users with this role (owner, admin, moderator, member, guest)' },
      { flags: '--active', description: 'only active users' },
      { flags: '--deactivated', description: 'only deactivated users' },
      { flags: '--bots', description: 'only bots' },
      { flags: '--humans', description: 'only human users' },
      { flags: '--ids <ids>', description: 'only these user IDs (comma-separated)' },
      { flags: '--custom-fields', description: 'include custom profile fields (profile_data)' },
    ],
    output: { fields: USER_FIELDS, columns: USER_COLUMNS },
    async run(opts, ctx) {
      if (opt.bool(opts, 'active') && opt.bool(opts, 'deactivated')) throw usageError('--active and --deactivated exclude each other');
      if (opt.bool(opts, 'bots') && opt.bool(opts, 'humans')) throw usageError('--bots and --humans exclude each other');
      const role = opt.str(opts, 'role') !== undefined ? parseRole(opt.str(opts, 'role')!) : undefined;
      const ids = opt.str(opts, 'ids') !== undefined ? parseIds(opt.str(opts, 'ids')!, '--ids') : undefined;
      const out = ctx.output(opts as OutputFlags);
      const client = await ctx.client();
      // The API's default (client_gravatar) leaves Gravatar URLs to the client; compute them only when asked.
      const wantsAvatars = opt.list(opts, 'fields').includes('avatar_url');
      const { members } = await client.call(getUsers, {
        client_gravatar: wantsAvatars ? false : undefined,
        include_custom_profile_fields: opt.bool(opts, 'customFields') || undefined,
        user_ids: ids,
      });
      const keep = (u: User) =>
        (role === undefined || u.role === role) &&
        (!opt.bool(opts, 'active') || u.is_active) &&
        (!opt.bool(opts, 'deactivated') || !u.is_active) &&
        (!opt.bool(opts, 'bots') || u.is_bot) &&
        (!opt.bool(opts, 'humans') || !u.is_bot);
      await out.list(members.filter(keep));
    },
  }),

  defineLegacyCommand({
    path: ['users', 'get'],
    summary: 'show one user, by ID or e-mail address',
    description: 'Reads GET /users/{id} (or /users/{email}). Deactivated users and bots are shown too.',
    examples: ['chatctl users get 8', 'chatctl users get iago@example.com --json', 'chatctl users get 8 --custom-fields --fields profile_data'],
    args: [{ name: 'user', description: 'user ID or e-mail address', required: true }],
    options: [{ flags: '--custom-fields', description: 'include custom profile fields (profile_data)' }],
    output: { fields: USER_FIELDS },
    async run(opts, ctx) {
      const out = ctx.output(opts as OutputFlags);
      const client = await ctx.client();
      const ref = opt.str(opts, 'user')!.trim();
      const common = { client_gravatar: false, include_custom_profile_fields: opt.bool(opts, 'customFields') || undefined };
      const { user } = /^\d+$/.test(ref)
        ? await client.call(getUser, { user_id: Number(ref), ...common })
        : await client.call(getUserByEmail, { email: ref, ...common });
      await out.item(user);
    },
  }),

  defineLegacyCommand({
    path: ['users', 'create'],
    summary: 'create user accounts (administrators)',
    description:
      'Creates one account (EMAIL --name NAME), or one per row of --from-file (columns email, full_name, and ' +
      'optionally password). Without a password the account gets a random one nobody sees; the person sets ' +
      'their own through the password reset flow. With --json each row\'s outcome is one JSON line. Besides being an ' +
      'administrator, it needs the per-user permission can_create_users, which a Zulip server gives no one until its ' +
      'operator grants it (chatctl server grant on the embedded organization, whose creator holds it); without it, ' +
      'invite people instead (invite send). Safe to run again (after Ctrl-C or a crash): a row whose address already ' +
      'has an active account with the same full name is reported unchanged, without a request (the password is not ' +
      'compared); one whose account has another name, or is deactivated, fails saying so.',
    examples: [
      'chatctl users create ada@example.com --name "Ada Lovelace"',
      'printf %s "$PW" | chatctl users create ada@example.com --name "Ada Lovelace" --password-stdin',
      'chatctl users create --from-file people.csv --json',
      'chatctl users create --from-file people.csv --dry-run',
    ],
    args: [{ name: 'email', description: 'the new user\'s e-mail address' }],
    options: [
      { flags: '--name <name>', description: 'full name (with EMAIL)' },
      { flags: '--password-stdin', description: 'read the password from stdin (with EMAIL)' },
      ...BULK_OPTIONS,
    ],
    flags: { ...fromFileFlags(), ...BULK_FLAGS },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      const columns: Columns = { email: { required: true, description: 'e-mail address' }, full_name: { required: true, description: 'full name' }, password: { description: 'initial password' } };
      const email = opt.str(opts, 'email');
      if (email && !opt.str(opts, 'name')) throw usageError('--name is required with EMAIL');
      if (opt.bool(opts, 'passwordStdin') && !email) throw usageError('--password-stdin goes with EMAIL, not --from-file');
      const rows = await rowsOf(ctx, opts, columns, () => (email ? [{ email, full_name: opt.str(opts, 'name')! }] : []));
      const password = opt.bool(opts, 'passwordStdin') ? await readSecret(ctx.io.stdin) : undefined;
      const client = await ctx.client();
      // One GET /users finds the rows an earlier run already created, so a run can be repeated.
      const { byEmail } = await userIndex(client);
      const calls: RowCall[] = rows.map((r, i) => {
        const call: RowCall = {
          row: i + 1,
          target: cell(r, 'email'),
          status: 'created',
          call: planCall(
            createUser,
            { email: cell(r, 'email'), full_name: cell(r, 'full_name'), password: password ?? (cell(r, 'password') || randomAlphanumeric(24)) },
            { idOf: (res) => res.user_id },
          ),
        };
        const existing = byEmail.get(cell(r, 'email').trim().toLowerCase());
        return existing ? { ...call, ...createdBefore(existing, cell(r, 'full_name')) } : call;
      });
      await runCalls(ctx, opts as BulkFlags, client, calls, 'created', (e) => createRefusal(ctx, client.credentials?.email ?? 'EMAIL', e));
    },
  }),

  defineLegacyCommand({
    path: ['users', 'update'],
    summary: "change a user's name, role, custom profile fields or e-mail (administrators)",
    description:
      'Changes one user (USER is an ID or e-mail), or one per row of --from-file (columns user, and any of ' +
      'full_name, role, new_email). Roles: owner, admin, moderator, member, guest. Only owners may grant or ' +
      'remove the owner role. Changing e-mails needs an owner holding the per-user permission ' +
      'can_change_user_emails (the owner chatctl init creates holds it; chatctl server grant gives it on the embedded ' +
      'organization; on a Zulip server, an administrator its operator granted it to).',
    examples: [
      'chatctl users update iago@example.com --role admin',
      'chatctl users update 8 --name "King Hamlet" --profile-field 3=Denmark',
      'chatctl users update 8 --new-email hamlet@elsinore.test',
      'chatctl users update --from-file roles.csv --fail-fast',
    ],
    args: [{ name: 'user', description: 'user ID or e-mail address' }],
    options: [
      { flags: '--name <name>', description: 'new full name' },
      { flags: '--role <role>', description: 'new role: owner, admin, moderator, member, guest' },
      { flags: '--profile-field <id=value>', description: 'set a custom profile field; ID= clears it (repeatable)', repeatable: true },
      { flags: '--new-email <email>', description: 'new e-mail address' },
      ...BULK_OPTIONS,
    ],
    flags: { ...fromFileFlags(), ...BULK_FLAGS },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      const columns: Columns = {
        user: { required: true, description: 'user ID or e-mail' },
        full_name: { description: 'new full name' },
        role: { description: 'new role' },
        new_email: { description: 'new e-mail' },
      };
      const user = opt.str(opts, 'user');
      const profile = parseProfileFields(opt.list(opts, 'profileField'));
      const fromArgs = (): InputRow[] => {
        if (!user) return [];
        const row: InputRow = { user };
        if (opt.str(opts, 'name') !== undefined) row.full_name = opt.str(opts, 'name');
        if (opt.str(opts, 'role') !== undefined) row.role = ROLE_NAMES[parseRole(opt.str(opts, 'role')!)];
        if (opt.str(opts, 'newEmail') !== undefined) row.new_email = opt.str(opts, 'newEmail');
        if (Object.keys(row).length === 1 && !profile.length) throw usageError('nothing to change: pass --name, --role, --profile-field or --new-email');
        return [row];
      };
      const rows = await rowsOf(ctx, opts, columns, fromArgs);
      const calls = await planForUsers(ctx, rows, (r, userId) => {
        const params = {
          user_id: userId,
          ...(cell(r, 'full_name') ? { full_name: cell(r, 'full_name') } : {}),
          ...(cell(r, 'role') ? { role: parseRole(cell(r, 'role')) } : {}),
          ...(cell(r, 'new_email') ? { new_email: cell(r, 'new_email') } : {}),
          ...(user && profile.length ? { profile_data: profile } : {}),
        };
        if (Object.keys(params).length === 1) throw new Error('nothing to change in this row');
        return { status: 'updated', call: planCall(updateUser, params, { labels: { new_email: '--new-email (new_email)' }, id: userId }) };
      });
      await runCalls(ctx, opts as BulkFlags, await ctx.client(), calls, 'updated');
    },
  }),

  defineLegacyCommand({
    path: ['users', 'deactivate'],
    summary: 'deactivate user accounts (administrators)',
    description:
      'Deactivates the named users (IDs or e-mails), or one per row of --from-file (column user). They can no ' +
      'longer log in or use the API; their data stays, and users reactivate brings them back. A bot is ' +
      'deactivated through DELETE /bots/{id}, as a server requires (its owner may, too; --comment is for people). ' +
      'A user already deactivated is reported unchanged, so a run can be repeated. Asks for confirmation on a ' +
      'terminal; elsewhere --yes is required.',
    examples: ['chatctl users deactivate polonius@example.com', 'chatctl users deactivate 12 13 14 --yes --json', 'chatctl users deactivate --from-file leavers.csv --yes'],
    args: [{ name: 'users', description: 'user IDs or e-mail addresses', variadic: true }],
    options: [{ flags: '--comment <text>', description: 'a note for the notification e-mail' }, ...BULK_OPTIONS],
    flags: { ...fromFileFlags(), ...BULK_FLAGS },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const rows = await rowsOf(ctx, opts, { user: { required: true, description: 'user ID or e-mail' } }, () => opt.list(opts, 'users').map((u) => ({ user: u })));
      // A server deactivates bots through DELETE /bots/{id} only (DELETE /users/{id} says "No such user").
      const calls = await planForUsers(
        ctx,
        rows,
        (_r, userId, user) => ({
          status: 'deactivated',
          // Already deactivated (an earlier run, or by hand): nothing to send.
          inPlace: user && !user.is_active ? { id: userId } : undefined,
          call: user?.is_bot
            ? planCall(deactivateBot, { bot_id: userId }, { id: userId })
            : planCall(deactivateUser, { user_id: userId, deactivation_notification_comment: opt.str(opts, 'comment') }, { id: userId }),
        }),
        { users: true },
      );
      if (!opt.bool(opts, 'dryRun')) {
        await confirmOrExit(ctx, opt.bool(opts, 'yes'), `Deactivate ${rows.length === 1 ? cell(rows[0]!, 'user') : `${rows.length} users`}?`);
      }
      await runCalls(ctx, opts as BulkFlags, await ctx.client(), calls, 'deactivated');
    },
  }),

  defineLegacyCommand({
    path: ['users', 'reactivate'],
    summary: 'reactivate deactivated user accounts (administrators)',
    description:
      'Reactivates the named users (IDs or e-mails), or one per row of --from-file (column user). A user already ' +
      'active is reported unchanged, so a run can be repeated.',
    examples: ['chatctl users reactivate polonius@example.com', 'chatctl users reactivate --from-file returning.csv --json'],
    args: [{ name: 'users', description: 'user IDs or e-mail addresses', variadic: true }],
    options: BULK_OPTIONS,
    flags: { ...fromFileFlags(), ...BULK_FLAGS },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      const rows = await rowsOf(ctx, opts, { user: { required: true, description: 'user ID or e-mail' } }, () => opt.list(opts, 'users').map((u) => ({ user: u })));
      const calls = await planForUsers(
        ctx,
        rows,
        (_r, userId, user) => ({
          status: 'reactivated',
          // Already active (an earlier run, or never deactivated): nothing to send.
          inPlace: user?.is_active ? { id: userId } : undefined,
          call: planCall(reactivateUser, { user_id: userId }, { id: userId }),
        }),
        { users: true },
      );
      await runCalls(ctx, opts as BulkFlags, await ctx.client(), calls, 'reactivated');
    },
  }),
];
