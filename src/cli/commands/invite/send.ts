import type { WireRequest } from '../../../api/wire.js';
import { argumentsOrRows, describeColumns, fromFileFlags, type FromFile, type InputRow } from '../../bulk/input.js';
import { BULK_FLAGS, OUTCOME_FIELDS, printPlan, runBulk, unchangedOutcome, duplicateOutcome } from '../../bulk/runner.js';
import { defineCommand } from '../../command/command.js';
import type { Context } from '../../command/context.js';
import { arg, flag, type Values } from '../../core/flags.js';
import { deliver, type DailyLimit } from '../../invites/deliver.js';
import { inviteFlags } from '../../invites/options.js';
import {
  INVITE_CHUNK,
  INVITE_COLUMNS,
  planInvites,
  prepareBatch,
  specOfRow,
  type InviteBatch,
  type InPlaceRow,
  type InviteSpec,
  type Recipient,
  type SendableBatch,
  type UnsendableRow,
} from '../../invites/plan.js';

const SEND_FLAGS = {
  ...inviteFlags("how long the invitation is valid: 7d, 12h, 30m or never (default: the server's, 10 days)"),
  notify: flag.bool('--no-notify', 'do not tell you when they create their account'),
  welcomeText: flag.string('--welcome-text <text>', 'custom welcome message (administrators; "" sends none)'),
};

/** The defaults every row gets from the flags (already checked: bad values were usage errors before anything ran). */
function specOfFlags(opts: Values<typeof SEND_FLAGS>): InviteSpec {
  return {
    channels: opts.channel,
    groups: opts.group,
    as: opts.as,
    expires: opts.expires,
    defaultChannels: opts.defaultChannels || undefined,
    notify: opts.notify ? undefined : false,
    welcomeText: opts.welcomeText,
  };
}

/** Rows with their specs: one per EMAIL argument, or one per --from-file row; never both. */
async function rowsOf(
  ctx: Context,
  source: FromFile,
  emails: readonly string[],
  defaults: InviteSpec,
): Promise<{ recipient: Recipient; spec: InviteSpec | Error }[]> {
  const file = source.fromFile;
  const given: InputRow[] = emails.map((email) => ({ email }));
  const rows = await argumentsOrRows(ctx, source, given, { many: 'addresses', one: 'e-mail address' }, INVITE_COLUMNS, (row) => row);
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
  for (const b of batches)
    if ('duplicateOf' in b) ctx.info(`row ${b.recipients[0].row} (${b.recipients[0].email}): duplicate of row ${b.duplicateOf}, not sent`);
  printPlan(
    ctx,
    requests,
    batches.filter((b): b is UnsendableRow => 'error' in b).map((b) => ({ row: b.recipients[0].row, target: b.recipients[0].email, error: b.error.msg })),
    batches.reduce((n, b) => n + b.recipients.length, 0),
    batches.filter((b): b is InPlaceRow => 'inPlace' in b).map((b) => ({ row: b.recipients[0].row, target: b.recipients[0].email })),
  );
}

export const sendCommand = defineCommand({
  path: ['invite', 'send'],
  summary: 'invite people by e-mail, with their role, channels and groups',
  description:
    'Sends invitations (POST /invites) to the EMAIL arguments, or to one address per row of --from-file: a ' +
    'CSV file with a header or JSON lines, with the columns email (required), channels, groups, as, expires, ' +
    'default_channels, notify and welcome_text. Channels and groups are IDs or names, comma-separated in a ' +
    "cell (a JSON array in JSON lines). The flags give every row its defaults; a row's own cells win. Rows " +
    `asking for the same things go out together, ${INVITE_CHUNK} addresses a request. Each address gets its own ` +
    'outcome: an address the server refuses (already has an account, not valid) fails on its own, and the ' +
    "others are still invited. When a server's daily limit refuses a request, the addresses that still fit " +
    "are invited and only those over the limit fail, with the server's reason (with --concurrency 1, the " +
    'first rows of the file are the ones invited). ' +
    'Safe to run again (after Ctrl-C or a crash): an address with a pending invitation for the same role is ' +
    'reported unchanged without a request; one pending with another role fails until that invitation is ' +
    'revoked. An address on several rows (compared without regard to case) is invited once, by its first row; ' +
    'the others are reported duplicate and sent nothing, or fail when they ask for other options. ' +
    'With --json each outcome is one JSON line; exit 3 when some failed.',
  examples: [
    'chatctl invite send ada@example.com grace@example.com --channel general --channel design',
    'chatctl invite send guest@partner.test --as guest --expires 12h --no-notify',
    'chatctl invite send new@example.com --group engineering --default-channels --welcome-text "Welcome aboard!"',
    'chatctl invite send --from-file invites.csv --json | jq -r \'select(.ok | not) | "\\(.target): \\(.error)"\'',
    'chatctl invite send --from-file invites.csv --expires never --dry-run',
  ],
  args: { emails: arg.variadic('e-mail addresses to invite') },
  options: {
    ...SEND_FLAGS,
    ...fromFileFlags(`read rows from CSV with a header or JSON lines (- for stdin); columns: ${describeColumns(INVITE_COLUMNS)}`),
    ...BULK_FLAGS,
  },
  output: { fields: OUTCOME_FIELDS },
  mutating: true,
  async run(opts, ctx) {
    const rows = await rowsOf(ctx, opts, opts.emails, specOfFlags(opts));
    const client = await ctx.client();
    const batches = await planInvites(client, rows);
    // Built for every batch before anything is sent: what the server cannot do stops the run here.
    const requests = (await Promise.all(batches.filter((b): b is SendableBatch => 'params' in b).map((b) => prepareBatch(client, b)))).flat();
    if (opts.dryRun) {
      printPlanned(ctx, batches, requests);
      return;
    }
    const limit: DailyLimit = {};
    await runBulk(ctx, opts, {
      units: batches,
      verb: 'invited',
      pacer: client.pacer,
      failFast: opts.failFast,
      rows: (b) => b.recipients.map((r) => ({ row: r.row, target: r.email })),
      act: async (b) => {
        if ('inPlace' in b) return [unchangedOutcome({ row: b.recipients[0].row, target: b.recipients[0].email }, b.inPlace.id)];
        if ('duplicateOf' in b) return [duplicateOutcome({ row: b.recipients[0].row, target: b.recipients[0].email })];
        if ('error' in b) throw b.error;
        return deliver(client, b, limit, ctx.signal);
      },
    });
  },
});
