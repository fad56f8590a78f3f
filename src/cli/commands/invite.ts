import { ApiError } from '../../api/errors.js';
import { getInvites, revokeInvite, type Invite } from '../../api/operations/invites.js';
import type { WireRequest } from '../../api/wire.js';
import { describeColumns, readRows, type InputRow } from '../bulk-input.js';
import { BULK_FLAGS, OUTCOME_FIELDS, printPlan, runBulk, runCalls, type BulkFlags, type RowCall } from '../bulk.js';
import { defineCommand, opt, type CommandOptions } from '../command.js';
import { confirmOrExit } from '../confirm.js';
import type { Context } from '../context.js';
import { usageError } from '../errors.js';
import { deliver } from '../invites/deliver.js';
import {
  INVITE_COLUMNS,
  parseExpires,
  planInvites,
  prepareBatch,
  specOfRow,
  type InviteBatch,
  type InviteSpec,
  type Recipient,
  type SendableBatch,
  type UnsendableRow,
} from '../invites/plan.js';
import type { OutputFlags, OutputSpec } from '../output/output.js';
import { isId } from '../resolve.js';
import { parseRole } from './users.js';

/** Every field of an invitation as GET /invites gives it, in display order. */
const INVITE_FIELDS = ['id', 'email', 'invited_by_user_id', 'invited', 'expiry_date', 'invited_as', 'is_multiuse'] as const;
const INVITE_OUTPUT: OutputSpec = { fields: INVITE_FIELDS, times: { invited: 's', expiry_date: 's' } };


/** The defaults every row gets from the flags; bad values are usage errors before anything is read or sent. */
function specOfFlags(opts: CommandOptions): InviteSpec {
  const as = opt.str(opts, 'as');
  const expires = opt.str(opts, 'expires');
  if (as !== undefined) parseRole(as);
  if (expires !== undefined) parseExpires(expires);
  return {
    channels: opt.list(opts, 'channel'),
    groups: opt.list(opts, 'group'),
    as,
    expires,
    defaultChannels: opt.bool(opts, 'defaultChannels') || undefined,
    notify: opts.notify === false ? false : undefined,
    welcomeText: opt.str(opts, 'welcomeText'),
  };
}

/** Rows with their specs: one per EMAIL argument, or one per --from-file row; never both. */
async function rowsOf(ctx: Context, opts: CommandOptions, defaults: InviteSpec): Promise<{ recipient: Recipient; spec: InviteSpec | Error }[]> {
  const file = opt.str(opts, 'fromFile');
  const emails = opt.list(opts, 'emails');
  if (file && emails.length) throw usageError('give addresses as arguments or with --from-file, not both');
  if (!file && !emails.length) throw usageError('name at least one e-mail address, or pass --from-file');
  const rows: InputRow[] = file ? await readRows(ctx, file, INVITE_COLUMNS) : emails.map((email) => ({ email }));
  return rows.map((row, i) => {
    const recipient = { row: i + 1, email: String(row.email).trim() };
    try {
      return { recipient, spec: file ? specOfRow(row, defaults) : defaults };
    } catch (e) {
      return { recipient, spec: e instanceof Error ? e : new Error(String(e)) };
    }
  });
}

/** --dry-run: the requests that would go out, and the rows that could not be sent (as runCalls reports them). */
function printPlanned(ctx: Context, batches: readonly InviteBatch[], requests: readonly WireRequest[]): void {
  printPlan(
    ctx,
    requests,
    batches.filter((b): b is UnsendableRow => 'error' in b).map((b) => ({ row: b.recipients[0].row, target: b.recipients[0].email, error: b.error })),
    batches.reduce((n, b) => n + b.recipients.length, 0),
  );
}

export const commands = [
  defineCommand({
    path: ['invite', 'send'],
    summary: 'invite people by e-mail, with their role, channels and groups',
    description:
      'Sends invitations (POST /invites) to the EMAIL arguments, or to one address per row of --from-file: a ' +
      'CSV file with a header or JSON lines, with the columns email (required), channels, groups, as, expires, ' +
      'default_channels, notify and welcome_text. Channels and groups are IDs or names, comma-separated in a ' +
      'cell (a JSON array in JSON lines). The flags give every row its defaults; a row\'s own cells win. Rows ' +
      'asking for the same things go out in one request. Each address gets its own outcome: an address the ' +
      'server refuses (already has an account, not valid) fails on its own, and the others are still invited. ' +
      'With --json each outcome is one JSON line; exit 3 when some failed.',
    examples: [
      'chatctl invite send ada@example.com grace@example.com --channel general --channel design',
      'chatctl invite send guest@partner.test --as guest --expires 12h --no-notify',
      'chatctl invite send new@example.com --group engineering --default-channels --welcome-text "Welcome aboard!"',
      'chatctl invite send --from-file invites.csv --json | jq -r \'select(.ok | not) | "\\(.target): \\(.error)"\'',
      'chatctl invite send --from-file invites.csv --expires never --dry-run',
    ],
    args: [{ name: 'emails', description: 'e-mail addresses to invite', variadic: true }],
    options: [
      { flags: '--channel <channel>', description: 'subscribe them to this channel, ID or name (repeatable)', repeatable: true },
      { flags: '--as <role>', description: 'their role: owner, admin, moderator, member (default), guest' },
      { flags: '--expires <duration>', description: 'how long the invitation is valid: 7d, 12h, 30m or never (default: the server\'s, 10 days)' },
      { flags: '--group <group>', description: 'add them to this user group, ID or name (repeatable)', repeatable: true },
      { flags: '--default-channels', description: "also subscribe them to the organization's default channels" },
      { flags: '--no-notify', description: 'do not tell you when they create their account' },
      { flags: '--welcome-text <text>', description: 'custom welcome message (administrators; "" sends none)' },
      { flags: '--from-file <file>', description: `read rows from CSV with a header or JSON lines (- for stdin); columns: ${describeColumns(INVITE_COLUMNS)}` },
      ...BULK_FLAGS,
    ],
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      const rows = await rowsOf(ctx, opts, specOfFlags(opts));
      const client = await ctx.client();
      const batches = await planInvites(client, rows);
      // Built for every batch before anything is sent: what the server cannot do stops the run here.
      const requests = (await Promise.all(batches.filter((b): b is SendableBatch => 'params' in b).map((b) => prepareBatch(client, b)))).flat();
      if (opt.bool(opts, 'dryRun')) {
        printPlanned(ctx, batches, requests);
        return;
      }
      await runBulk(ctx, opts as BulkFlags, {
        units: batches,
        verb: 'invited',
        pacer: client.pacer,
        failFast: opt.bool(opts, 'failFast'),
        rows: (b) => b.recipients.map((r) => ({ row: r.row, target: r.email })),
        act: async (b) => {
          if ('error' in b) throw new ApiError(b.error, 'BAD_REQUEST', 400);
          return deliver(client, b, ctx.signal);
        },
      });
    },
  }),

  defineCommand({
    path: ['invite', 'list'],
    aliases: ['ls'],
    summary: 'list pending invitations',
    description:
      'Lists the invitations that are neither accepted, revoked nor expired (GET /invites): all of them for ' +
      'administrators, your own otherwise. Times are UNIX seconds in JSON, and RFC 3339 (UTC) in tables, TSV and ' +
      'CSV; expiry_date is empty for invitations that never expire; invited_as is the role (100 owner, 200 admin, 300 moderator, 400 member, 600 guest).',
    examples: [
      'chatctl invite list',
      'chatctl invite list --json | jq -r \'.[] | select(.expiry_date == null) | .email\'',
      'chatctl invite list --fields id,email --format csv',
    ],
    output: INVITE_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts as OutputFlags);
      const { invites } = await (await ctx.client()).call(getInvites, {});
      if (!(await out.list(invites)) && ctx.io.stdoutIsTTY && !out.isJson) ctx.info('no pending invitations');
    },
  }),

  defineCommand({
    path: ['invite', 'revoke'],
    summary: 'revoke pending invitations, by ID or e-mail address',
    description:
      'Revokes invitations (DELETE /invites/{id}) so their links stop working. An invitation is named by its ' +
      'ID (see invite list) or by the invited address, which revokes every pending invitation to it. Asks for ' +
      'confirmation on a terminal; elsewhere --yes is required.',
    examples: ['chatctl invite revoke 12', 'chatctl invite revoke 12 13 ada@example.com --yes --json', 'chatctl invite revoke ada@example.com --dry-run'],
    args: [{ name: 'invites', description: 'invitation IDs or invited e-mail addresses', required: true, variadic: true }],
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const refs = opt.list(opts, 'invites');
      const client = await ctx.client();
      const pending: Invite[] = refs.some((r) => !isId(r)) ? (await client.call(getInvites, {})).invites : [];
      const calls: RowCall[] = [];
      for (const ref of refs) {
        const ids = isId(ref) ? [Number(ref)] : pending.filter((i) => i.email.toLowerCase() === ref.trim().toLowerCase()).map((i) => i.id);
        if (!ids.length) calls.push({ row: calls.length + 1, target: ref, status: 'failed', error: `No such invitation: ${ref}` });
        for (const id of ids) calls.push({ row: calls.length + 1, target: ref, status: 'revoked', idOf: () => id, call: { op: revokeInvite, params: { invite_id: id } } });
      }
      const sendable = calls.filter((c) => c.call);
      if (sendable.length && !opt.bool(opts, 'dryRun')) {
        const only = sendable.length === 1 ? sendable[0]! : undefined;
        const question = !only ? `Revoke ${sendable.length} invitations?` : isId(only.target) ? `Revoke invitation ${only.target}?` : `Revoke the invitation to ${only.target}?`;
        await confirmOrExit(ctx, opt.bool(opts, 'yes'), question);
      }
      await runCalls(ctx, opts as BulkFlags, client, calls, 'revoked');
    },
  }),
];
