import { ApiError } from '../../api/errors.js';
import { classify } from '../../api/server-messages.js';
import { deactivateBot } from '../../api/operations/bots.js';
import { createUser, deactivateUser, getUser, getUserByEmail, getUsers, reactivateUser, updateUser } from '../../api/operations/users.js';
import type { Role } from '../../api/roles.js';
import type { User } from '../../api/types.js';
import { type AccountCall, createInBatches } from '../users/account-batches.js';
import { cell, fileRows, fromFileFlags, type ColumnRules, type Columns, type FromFile, type InputRow } from '../bulk/input.js';
import { BULK_FLAGS, confirmAndRun, OUTCOME_FIELDS, planCall, type RowCall, runCalls, RunRefusedError } from '../bulk/runner.js';
import { defineCommand } from '../command/command.js';
import type { Context } from '../command/context.js';
import { questionAbout } from '../bulk/confirm.js';
import { usageError } from '../core/errors.js';
import { arg, flag, parseRole, roleProblem } from '../core/flags.js';
import { readSecret } from '../core/io.js';
import type { OutputSpec } from '../output/output.js';
import { Refusal, refusalOf } from '../core/refusal.js';
import { resolveUsers, userIndex } from '../lookup/resolve.js';
import { FIXED_WINDOW_DAYS, INACTIVE_FIELDS, inactiveRows, readPresence, type Inactivity } from '../users/inactivity.js';
import { randomAlphanumeric } from '../../random.js';

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

const USER_COLUMNS = ['user_id', 'full_name', 'email', 'delivery_email', 'role', 'is_active', 'is_bot', 'date_joined'] as const;
/** How users show in text: roles by name and date_joined as every other time, in tables. */
const USER_DISPLAY = { times: { date_joined: 'iso' }, roles: ['role'], key: ['user_id', 'email', 'full_name'] } as const;

/** What `users list` may print: users, or with --inactive-since the report's rows. */
const LIST_FIELDS = [...USER_FIELDS, ...INACTIVE_FIELDS.filter((f) => !(USER_FIELDS as readonly string[]).includes(f))];

/** The inactivity report's output: its own columns, last_active shown as a time. */
const REPORT_OUTPUT: OutputSpec = { fields: LIST_FIELDS, columns: INACTIVE_FIELDS, times: { last_active: 's' }, key: ['user_id', 'email', 'full_name'] };

const INACTIVE_HELP =
  'With --inactive-since DURATION it prints instead the active humans last active before then: user_id, email, ' +
  'full_name, last_active (RFC 3339 in text, UNIX seconds in JSON) and status, rows that users deactivate ' +
  '--from-file - takes as they are. Presence (last active time) is read once for the whole organization, from ' +
  'the initial state of an event queue (POST /register; the queue is deleted at once, your own presence is not ' +
  'touched). status is inactive when presence says the user was last active before the cutoff; unknown when it ' +
  'cannot say: no presence data at all (never used a Zulip app, only the API, e-mail replies or integrations; or ' +
  'presence disabled for the organization) or presence turned off by the user ("Display my availability": their ' +
  'data stops when they turn it off). Unknown users are never listed as inactive; --include-unknown lists them ' +
  'too (do not pipe those into deactivate unseen). Limits of the heuristic: presence counts only Zulip apps that ' +
  'are open (web, desktop, mobile), not sending by API or e-mail; a user you cannot see (can_access_all_users_group) ' +
  `has no presence for you; servers before feature level 288 return presence only for users connected in the ` +
  `last ${FIXED_WINDOW_DAYS} days, so anyone away longer is unknown there. Bots (no presence), deactivated users and ` +
  'users who joined after the cutoff are never listed.';

/** The options of every users command that takes rows from a file as well as from arguments. */
const USER_BULK_FLAGS = { ...fromFileFlags(), ...BULK_FLAGS };

/** A user named by ID or e-mail, from an argument or a file row. */
interface UserRef {
  user: string;
}

/** Rows from --from-file (each read by `fromRow`), or the ones given as arguments; never both. */
async function rowsOf<R>(
  ctx: Context,
  source: FromFile,
  columns: Columns,
  args: readonly R[],
  fromRow: (row: InputRow) => R,
  rules?: ColumnRules,
): Promise<R[]> {
  if (source.fromFile && args.length) throw usageError('give users as arguments or with --from-file, not both');
  const rows = await fileRows(ctx, source, columns, rules);
  if (rows) return rows.map(fromRow);
  if (!args.length) throw usageError('name at least one user (ID or e-mail), or pass --from-file');
  return [...args];
}

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
const listedUserRows = (ctx: Context, opts: FromFile & { users: readonly string[] }): Promise<UserRef[]> =>
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
async function planForUsers<R extends UserRef>(
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

export const commands = [
  defineCommand({
    path: ['users', 'list'],
    aliases: ['ls'],
    summary: 'list the users of the organization',
    description:
      'Lists active and deactivated users and bots (GET /users). Filters apply on top; --ids asks the server for ' +
      'just those users (filtered by chatctl on servers before feature level 384).\n\n' +
      INACTIVE_HELP,
    examples: [
      'chatctl users list',
      'chatctl users list --inactive-since 90d',
      'chatctl users list --inactive-since 90d --format ndjson | chatctl users deactivate --from-file - --dry-run',
      'chatctl users list --role admin --active',
      "chatctl users list --json | jq -r '.[] | select(.is_bot) | .email'",
      'chatctl users list --fields user_id,delivery_email,role --format csv',
    ],
    options: {
      role: flag.role('--role <role>', 'only users with this role (owner, admin, moderator, member, guest)'),
      active: flag.bool('--active', 'only active users'),
      deactivated: flag.bool('--deactivated', 'only deactivated users'),
      bots: flag.bool('--bots', 'only bots'),
      humans: flag.bool('--humans', 'only human users'),
      ids: flag.ids('--ids <ids>', 'only these user IDs (comma-separated)'),
      customFields: flag.bool('--custom-fields', 'include custom profile fields (profile_data)'),
      inactiveSince: flag.duration('--inactive-since <duration>', 'only active humans last active before this long ago (e.g. 90d), from presence'),
      includeUnknown: flag.bool('--include-unknown', 'with --inactive-since: also users whose activity presence cannot tell'),
    },
    output: {
      fields: LIST_FIELDS,
      columns: USER_COLUMNS,
      ...USER_DISPLAY,
      addedBy: { last_active: 'inactiveSince', status: 'inactiveSince', profile_data: 'customFields' },
    },
    check(opts) {
      if (opts.active && opts.deactivated) throw usageError('--active and --deactivated exclude each other');
      if (opts.bots && opts.humans) throw usageError('--bots and --humans exclude each other');
      if (opts.includeUnknown && opts.inactiveSince === undefined) throw usageError('--include-unknown goes with --inactive-since');
      if (opts.inactiveSince !== undefined && (opts.deactivated || opts.bots || opts.customFields)) {
        throw usageError('--inactive-since lists active humans: not with --deactivated, --bots or --custom-fields');
      }
    },
    async run(opts, ctx) {
      const out = ctx.output(opts, opts.inactiveSince !== undefined ? REPORT_OUTPUT : undefined);
      const client = await ctx.client();
      if (opts.inactiveSince !== undefined) {
        const presence = await readPresence(client, ctx.nowMs() / 1000);
        if (presence.windowDays !== undefined) {
          ctx.warn(
            `chatctl: this server (before feature level 288) returns presence only for users connected in the last ${presence.windowDays} days: users away longer are unknown, not inactive`,
          );
        }
        const users = await client.stream(getUsers, { user_ids: opts.ids }, 'members');
        const counts: Record<Inactivity, number> = { inactive: 0, unknown: 0 };
        const kept = users.filter((u) => opts.role === undefined || u.role === opts.role);
        const cutoff = presence.now - opts.inactiveSince;
        await out.stream(inactiveRows(kept, presence, cutoff, { includeUnknown: opts.includeUnknown, counts }));
        const unknown = opts.includeUnknown ? 'listed' : 'not listed; --include-unknown lists them';
        ctx.info(`chatctl: ${counts.inactive} inactive; ${counts.unknown} unknown (presence cannot tell; ${unknown})`);
        return;
      }
      // The API's default (client_gravatar) leaves Gravatar URLs to the client; compute them only when asked.
      const wantsAvatars = opts.fields?.includes('avatar_url') === true;
      // Read as it comes: 100,000 users are printed a page at a time, never held whole.
      const members = await client.stream(
        getUsers,
        {
          client_gravatar: wantsAvatars ? false : undefined,
          include_custom_profile_fields: opts.customFields || undefined,
          user_ids: opts.ids,
        },
        'members',
      );
      const keep = (u: User) =>
        (opts.role === undefined || u.role === opts.role) &&
        (!opts.active || u.is_active) &&
        (!opts.deactivated || !u.is_active) &&
        (!opts.bots || u.is_bot) &&
        (!opts.humans || !u.is_bot);
      await out.stream(members.filter(keep));
    },
  }),

  defineCommand({
    path: ['users', 'get'],
    summary: 'show one user, by ID or e-mail address',
    description: 'Reads GET /users/{id} (or /users/{email}). Deactivated users and bots are shown too.',
    examples: ['chatctl users get 8', 'chatctl users get iago@example.com --json', 'chatctl users get 8 --custom-fields --fields profile_data'],
    args: { user: arg.required('user ID or e-mail address') },
    options: { customFields: flag.bool('--custom-fields', 'include custom profile fields (profile_data)') },
    output: { fields: USER_FIELDS, ...USER_DISPLAY, addedBy: { profile_data: 'customFields' } },
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const ref = opts.user.trim();
      const common = { client_gravatar: false, include_custom_profile_fields: opts.customFields || undefined };
      const { user } = /^\d+$/.test(ref)
        ? await client.call(getUser, { user_id: Number(ref), ...common })
        : await client.call(getUserByEmail, { email: ref, ...common });
      await out.item(user);
    },
  }),

  defineCommand({
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
        refusal,
      );
    },
  }),

  defineCommand({
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
  }),

  defineCommand({
    path: ['users', 'deactivate'],
    summary: 'deactivate user accounts (administrators)',
    description:
      'Deactivates the named users (IDs or e-mails), or one per row of --from-file (column user, user_id or ' +
      'email; other columns are ignored, so users list output, such as an --inactive-since report, goes in as ' +
      'it is). They can no ' +
      'longer log in or use the API; their data stays, and users reactivate brings them back. A bot is ' +
      'deactivated through DELETE /bots/{id}, as a server requires (its owner may, too; --comment is for people). ' +
      'A user already deactivated is reported unchanged, so a run can be repeated. Asks for confirmation on a ' +
      'terminal; elsewhere --yes is required.',
    examples: [
      'chatctl users deactivate polonius@example.com',
      'chatctl users deactivate 12 13 14 --yes --json',
      'chatctl users deactivate --from-file leavers.csv --yes',
      'chatctl users list --inactive-since 90d --format ndjson | chatctl users deactivate --from-file - --yes',
    ],
    args: { users: arg.variadic('user IDs or e-mail addresses') },
    options: { comment: flag.string('--comment <text>', 'a note for the notification e-mail'), ...USER_BULK_FLAGS },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const rows = await listedUserRows(ctx, opts);
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
            : planCall(deactivateUser, { user_id: userId, deactivation_notification_comment: opts.comment }, { id: userId }),
        }),
        { users: true },
      );
      const question = questionAbout(
        'Deactivate',
        calls,
        'users',
        rows.map((r) => r.user),
      );
      await confirmAndRun(ctx, opts, calls, 'deactivated', question);
    },
  }),

  defineCommand({
    path: ['users', 'reactivate'],
    summary: 'reactivate deactivated user accounts (administrators)',
    description:
      'Reactivates the named users (IDs or e-mails), or one per row of --from-file (column user, user_id or ' +
      'email; other columns are ignored), so the file users deactivate took, or what users list prints in any ' +
      'format, brings them back as it is. A user already active is reported unchanged, so a run can be repeated.',
    examples: ['chatctl users reactivate polonius@example.com', 'chatctl users reactivate --from-file returning.csv --json'],
    args: { users: arg.variadic('user IDs or e-mail addresses') },
    options: USER_BULK_FLAGS,
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      const rows = await listedUserRows(ctx, opts);
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
      await runCalls(ctx, opts, await ctx.client(), calls, 'reactivated');
    },
  }),
];
