import { createInviteLink, getInvites, type Invite, resendInvite, revokeInvite, revokeInviteLink } from '../../api/operations/invites.js';
import type { WireRequest } from '../../api/wire.js';
import type { ChatClient } from '../../client/client.js';
import { argumentsOrRows, describeColumns, fromFileFlags, type FromFile, type InputRow } from '../bulk/input.js';
import {
  BULK_FLAGS,
  OUTCOME_FIELDS,
  planCall,
  printPlan,
  runBulk,
  runCalls,
  unchangedOutcome,
  duplicateOutcome,
  type PlannedCall,
  type RowCall,
} from '../bulk/runner.js';
import { defineCommand } from '../command/command.js';
import { confirmOrExit, namingQuestion } from '../bulk/confirm.js';
import type { Context } from '../command/context.js';
import { printDryRun } from '../bulk/dry-run.js';
import { arg, flag, type Values } from '../core/flags.js';
import { deliver, type DailyLimit } from '../invites/deliver.js';
import { inviteFlags } from '../invites/options.js';
import { displayRow, inviteLabel, matchInviteRef, REF_FORMS, type RefMatch } from '../invites/refs.js';
import {
  INVITE_CHUNK,
  INVITE_COLUMNS,
  planInvites,
  prepareBatch,
  INVITE_LABELS,
  specOfRow,
  type InviteBatch,
  type InPlaceRow,
  type InviteSpec,
  type Recipient,
  type SendableBatch,
  type UnsendableRow,
} from '../invites/plan.js';
import type { OutputSpec } from '../output/output.js';
import { Refusal, unknownRef } from '../core/refusal.js';
import { requireResolved, resolveChannels, resolveGroups } from '../lookup/resolve.js';

/**
 * The fields of an invitation: `ref` (how invite revoke names it: the ID, or link:ID), `kind` (email or
 * link), `address` (the invited address, or the link's URL) and `role` (by name) are chatctl's; the others
 * are GET /invites' own.
 */
const INVITE_FIELDS = [
  'ref',
  'id',
  'kind',
  'address',
  'role',
  'invited',
  'expiry_date',
  'invited_by_user_id',
  'invited_as',
  'email',
  'link_url',
  'is_multiuse',
  'notify_referrer_on_join',
] as const;
const INVITE_OUTPUT: OutputSpec = {
  fields: INVITE_FIELDS,
  columns: ['ref', 'kind', 'address', 'role', 'invited', 'expiry_date'],
  times: { invited: 's', expiry_date: 's' },
  roles: ['invited_as'],
  key: ['ref', 'kind', 'address'],
};

/** What `invite send` takes besides its rows: the defaults of every row. */
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

export const commands = [
  defineCommand({
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
  }),

  defineCommand({
    path: ['invite', 'list'],
    aliases: ['ls'],
    summary: 'list pending invitations: e-mail invitations and reusable links',
    description:
      'Lists the invitations that are neither accepted, revoked nor expired (GET /invites), e-mail invitations ' +
      'and reusable invitation links together: all of them for administrators, your own otherwise. ref is ' +
      'how invite revoke and resend name it: the ID of an e-mail invitation, link:ID for a link (the two kinds ' +
      'number their IDs apart, so an ID may be both); kind is email or link, and address the invited address ' +
      "or the link's URL. Times are UNIX seconds in JSON, and RFC 3339 (UTC) " +
      'in tables, TSV and CSV; expiry_date is empty for invitations that never expire. --json prints the ' +
      'objects as the server sent them (with --fields, any of the fields above).',
    examples: [
      'chatctl invite list',
      "chatctl invite list --json | jq -r '.[] | select(.expiry_date == null) | .email // .link_url'",
      'chatctl invite list --fields ref,kind,address --format csv',
    ],
    output: INVITE_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const { invites } = await (await ctx.client()).call(getInvites, {});
      const rows = out.isJson && opts.fields === undefined ? invites : invites.map(displayRow);
      if (!(await out.list(rows)) && ctx.io.stdoutIsTTY && !out.isJson) ctx.info('no pending invitations');
    },
  }),

  defineCommand({
    path: ['invite', 'revoke'],
    summary: 'revoke pending invitations and links, by ID, address or URL',
    description:
      'Revokes invitations so they stop working: e-mail invitations with DELETE /invites/{id}, reusable links ' +
      `with DELETE /invites/multiuse/{id}. Each argument is ${REF_FORMS}. The two kinds number their IDs apart, ` +
      'so a bare ID only ever names an e-mail invitation and a link is named link:ID (the forms invite list ' +
      'prints in its ref column) or by its URL. An address revokes every pending e-mail invitation to it, never ' +
      'a link. What is no longer pending (revoked, used or expired) is reported unchanged, so a run can be ' +
      'repeated: it never revokes another invitation in its place. Asks for confirmation on a terminal, naming ' +
      'what it revokes; elsewhere --yes is required.',
    examples: [
      'chatctl invite revoke 12',
      'chatctl invite revoke link:3 12 --yes',
      'chatctl invite revoke 12 13 ada@example.com --yes --json',
      'chatctl invite revoke ada@example.com --dry-run',
    ],
    args: { invites: arg.variadic('IDs, email:ID, link:ID, invited addresses or link URLs', { required: true }) },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const client = await ctx.client();
      const calls = await callsFor(client, opts.invites, 'revoked', {
        callOf: (invite) =>
          invite.is_multiuse
            ? planCall(revokeInviteLink, { invite_id: invite.id }, { id: invite.id })
            : planCall(revokeInvite, { invite_id: invite.id }, { id: invite.id }),
        gone: (m, ref) => {
          // The ID a link has too is not the link's: say how to name the link, and revoke nothing in its place.
          if (m.otherKind) ctx.warn(`chatctl: ${ref} names e-mail invitation ${m.id}, which is not pending; to revoke link ${m.id}, say link:${m.id}`);
          return { inPlace: { id: m.id ?? null } };
        },
      });
      const sendable = calls.filter((c) => c.call && !c.inPlace);
      if (sendable.length && !opts.dryRun) {
        await confirmOrExit(
          ctx,
          opts.yes,
          namingQuestion(
            'Revoke',
            sendable.map((c) => c.label ?? c.target),
            'invitations',
          ),
        );
      }
      await runCalls(ctx, opts, client, calls, 'revoked');
    },
  }),

  defineCommand({
    path: ['invite', 'resend'],
    summary: 'send pending e-mail invitations again, by ID or address',
    description:
      'Sends e-mail invitations again (POST /invites/{id}/resend), with their link and expiry unchanged. Each ' +
      'argument is an ID or email:ID (see invite list) or an invited address; links are not sent by e-mail. A ' +
      "resent invitation counts against a server's daily limit.",
    examples: ['chatctl invite resend 12', 'chatctl invite resend ada@example.com grace@example.com --json'],
    args: { invites: arg.variadic('IDs, email:ID or invited addresses', { required: true }) },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      const client = await ctx.client();
      const calls = await callsFor(client, opts.invites, 'resent', {
        callOf: (invite) =>
          invite.is_multiuse
            ? `link ${invite.id} is a reusable link: only e-mail invitations are resent`
            : planCall(resendInvite, { invite_id: invite.id }, { id: invite.id }),
        gone: (m, ref) => ({
          status: 'failed',
          error: unknownRef(`No such invitation: ${ref}${m.otherKind ? ` (link ${m.id} is a reusable link: only e-mail invitations are resent)` : ''}`),
        }),
      });
      await runCalls(ctx, opts, client, calls, 'resent');
    },
  }),

  defineCommand({
    path: ['invite', 'link', 'create'],
    summary: 'create a reusable invitation link',
    description:
      'Creates a reusable invitation link (POST /invites/multiuse) and prints it: whoever follows it may join, ' +
      'with the role, channels and groups given here, until it expires or is revoked (invite revoke link:ID). ' +
      'With --json, the server\'s answer ({"invite_link": ...}). By default only administrators may create ' +
      'links, and only administrators make links for moderators or administrators (owners for owners).',
    examples: [
      'chatctl invite link create',
      'chatctl invite link create --as guest --expires 7d --channel design',
      'chatctl invite link create --expires never --group engineering --default-channels --json',
    ],
    options: inviteFlags("how long the link works: 7d, 12h, 30m or never (default: the server's, 10 days)"),
    output: { fields: ['invite_link'] },
    mutating: true,
    async run(opts, ctx) {
      const { channel: channels, group: groups } = opts;
      const client = await ctx.client();
      const streamIds = requireResolved(await resolveChannels(client, channels), channels);
      const groupIds = requireResolved(await resolveGroups(client, groups), groups);
      // Only what was asked for is sent, so an older server is not handed parameters it would ignore.
      const params = {
        invite_as: opts.as,
        stream_ids: streamIds.length ? [...new Set(streamIds)] : undefined,
        group_ids: groupIds.length ? [...new Set(groupIds)] : undefined,
        include_realm_default_subscriptions: opts.defaultChannels || undefined,
        invite_expires_in_minutes: opts.expires,
      };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(createInviteLink, params, { labels: INVITE_LABELS }));
        return;
      }
      const created = await client.call(createInviteLink, params, { signal: ctx.signal, labels: INVITE_LABELS });
      await ctx.output(opts).item({ invite_link: created.invite_link });
    },
  }),
];

/**
 * One row call per invitation each argument names (an address may name several), after one GET /invites.
 * `callOf` says what to send for a pending invitation, or why it cannot be acted on; `gone` what an argument
 * naming nothing pending is.
 */
async function callsFor(
  client: ChatClient,
  refs: readonly string[],
  status: string,
  o: { callOf: (invite: Invite) => PlannedCall | string; gone: (match: RefMatch, ref: string) => Partial<RowCall> },
): Promise<RowCall[]> {
  const { invites } = await client.call(getInvites, {});
  const calls: RowCall[] = [];
  for (const ref of refs) {
    const match = matchInviteRef(ref, invites);
    if (!match.invites.length) {
      calls.push({ row: calls.length + 1, target: ref, status, label: match.label, ...o.gone(match, ref) });
      continue;
    }
    for (const invite of match.invites) {
      const call = o.callOf(invite);
      const row = { row: calls.length + 1, target: ref, status, label: inviteLabel(invite) };
      calls.push(typeof call === 'string' ? { ...row, status: 'failed', error: new Refusal(call) } : { ...row, call });
    }
  }
  return calls;
}
