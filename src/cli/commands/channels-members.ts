import { getSubscribers, type Channel } from '../../api/operations/channels.js';
import type { ChatClient } from '../../client/client.js';
import { cell, describeColumns, fileRows, fromFileFlags, type Columns } from '../bulk/input.js';
import { BULK_FLAGS, OUTCOME_FIELDS } from '../bulk/runner.js';
import { findChannels, requireChannels } from '../channels/find.js';
import { currentMembers, type MemberAction, type MemberChange, runMemberChanges } from '../channels/membership.js';
import { namedPeople, namedUser, type Named } from '../channels/people.js';
import { defineCommand } from '../command/command.js';
import { confirmOrExit, requireYesUnlessInteractive } from '../bulk/confirm.js';
import type { Context } from '../command/context.js';
import { usageError } from '../core/errors.js';
import { arg, flag, type Values } from '../core/flags.js';
import { MEMBER_OUTPUT, memberRows } from '../lookup/members.js';
import { userIndex } from '../lookup/resolve.js';

const MEMBERSHIP_COLUMNS: Columns = {
  user: { required: true, description: 'user ID or e-mail', json: 'id' },
  channel: { description: 'channel ID or name (default: the --channel flags)', json: 'id' },
};

const MEMBERSHIP_FLAGS = {
  channel: flag.list('--channel <channel>', 'a channel, by ID or name (repeatable)'),
  user: flag.list('--user <user>', 'a user, by ID or e-mail (repeatable)'),
  group: flag.list('--group <group>', 'every member of a user group through its subgroups, by ID or name (repeatable)'),
  ...fromFileFlags(`users from CSV with a header or JSON lines (- for stdin); columns: ${describeColumns(MEMBERSHIP_COLUMNS)}`),
  ...BULK_FLAGS,
};

type MembershipOptions = Values<typeof MEMBERSHIP_FLAGS> & { readonly dryRun: boolean };

function checkMembership(o: Values<typeof MEMBERSHIP_FLAGS>): void {
  if (!o.user.length && !o.group.length && !o.fromFile) throw usageError('say who: pass --user, --group or --from-file');
  if (!o.channel.length && !o.fromFile) throw usageError('name at least one channel with --channel');
}

/** Who goes where: each user of --user and --group in each --channel, and each file row in its own channel (or the --channel ones). */
async function planMembership(ctx: Context, client: ChatClient, action: MemberAction, o: MembershipOptions): Promise<MemberChange[]> {
  const rows = (await fileRows(ctx, o, MEMBERSHIP_COLUMNS)) ?? [];
  const fileChannels = rows.map((r) => cell(r, 'channel'));
  if (!o.channel.length && fileChannels.some((c) => c === '')) throw usageError('some rows name no channel: add a channel column, or pass --channel');
  const index = await userIndex(client);
  const everywhere = await namedPeople(client, index, { users: o.user, groups: o.group });
  const fromRows = rows.map((r) => namedUser(index, cell(r, 'user')));
  const found = await findChannels(client, [...new Set([...o.channel, ...fileChannels.filter(Boolean)])]);
  const channelOf = (ref: string): Channel => {
    const f = found.get(ref)!;
    if (!f.ok) throw f.error;
    return f.channel;
  };
  // A channel that does not exist ends the run before anything is sent (exit 6): every row in it would fail.
  const pairs: { channel: Channel; named: Named }[] = [
    ...o.channel.flatMap((ref) => everywhere.map((named) => ({ channel: channelOf(ref), named }))),
    ...fromRows.flatMap((named, i) => (fileChannels[i] ? [fileChannels[i]!] : o.channel).map((ref) => ({ channel: channelOf(ref), named }))),
  ];
  const current = await currentMembers(
    ctx,
    client,
    pairs.map((p) => p.channel.stream_id),
  );
  const seen = new Set<string>();
  const changes: MemberChange[] = [];
  for (const { channel, named } of pairs) {
    const c = { stream_id: channel.stream_id, name: channel.name };
    if (!named.ok) {
      changes.push({ action, channel: c, user: { id: 0, label: named.label }, error: named.error });
      continue;
    }
    const key = `${channel.stream_id} ${named.person.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const member = current.get(channel.stream_id)!.has(named.person.id);
    changes.push({ action, channel: c, user: named.person, inPlace: action === 'subscribe' ? member : !member });
  }
  return changes;
}

/** How many users and channels a plan unsubscribes, for the question asked first. */
function unsubscribeQuestion(changes: readonly MemberChange[]): string {
  const sent = changes.filter((c) => !c.inPlace && !c.error);
  const users = new Set(sent.map((c) => c.user.id)).size;
  const channels = [...new Set(sent.map((c) => c.channel.name))];
  return `Unsubscribe ${users === 1 ? sent[0]!.user.label : `${users} users`} from ${channels.length === 1 ? channels[0] : `${channels.length} channels`}?`;
}

const MEMBERSHIP_NOTE =
  'Users are named by ID or e-mail (--user), by user group (--group: every member through its subgroups, as the ' +
  'server counts them; deactivated members are left out), or by the user column of --from-file, whose channel ' +
  'column, where given, names the row’s channel instead of the --channel flags. One request per channel carries ' +
  'up to 500 users (principals), paced by the server’s rate limits; each user and channel gets its own outcome ' +
  'line (target CHANNEL: +USER or CHANNEL: -USER), exit 3 when some failed. What is already so is read first ' +
  '(GET /streams/{id}/members) and reported unchanged without a request, so a run can be repeated.';

export const commands = [
  defineCommand({
    path: ['channels', 'members'],
    summary: "list a channel's subscribers",
    description: 'Lists the active users subscribed to a channel (GET /streams/{id}/members), named by ID or name, with their names and addresses.',
    examples: ['chatctl channels members general', 'chatctl channels members 12 --json', 'chatctl channels members design --fields email --format csv'],
    args: { channel: arg.required('channel ID or name') },
    output: MEMBER_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const [channel] = await requireChannels(client, [opts.channel]);
      const { subscribers } = await client.call(getSubscribers, { stream_id: channel!.stream_id });
      await out.list(await memberRows(client, subscribers));
    },
  }),

  defineCommand({
    path: ['channels', 'subscribe'],
    summary: 'subscribe users, or whole groups, to channels',
    description: `Subscribes users to each --channel (POST /users/me/subscriptions with principals). ${MEMBERSHIP_NOTE}`,
    examples: [
      'chatctl channels subscribe --channel design --channel general --user ada@example.com --user 12',
      'chatctl channels subscribe --channel engineering --group backend --group frontend --json',
      'chatctl channels subscribe --channel onboarding --from-file new-hires.csv --dry-run',
      'chatctl channels subscribe --from-file user-channel-pairs.csv',
    ],
    options: MEMBERSHIP_FLAGS,
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    check: checkMembership,
    async run(opts, ctx) {
      const client = await ctx.client();
      await runMemberChanges(ctx, opts, client, await planMembership(ctx, client, 'subscribe', opts));
    },
  }),

  defineCommand({
    path: ['channels', 'unsubscribe'],
    summary: 'unsubscribe users, or whole groups, from channels',
    description:
      `Unsubscribes users from each --channel (DELETE /users/me/subscriptions with principals). ${MEMBERSHIP_NOTE} ` +
      'Asks for confirmation on a terminal; elsewhere --yes is required.',
    examples: [
      'chatctl channels unsubscribe --channel design --user ada@example.com',
      'chatctl channels unsubscribe --channel contractors --group former-contractors --yes',
      'chatctl channels unsubscribe --channel general --from-file leavers.csv --yes --json',
    ],
    options: MEMBERSHIP_FLAGS,
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    check: checkMembership,
    async run(opts, ctx) {
      requireYesUnlessInteractive(ctx, opts, 'channels unsubscribe removes users from channels');
      const client = await ctx.client();
      const changes = await planMembership(ctx, client, 'unsubscribe', opts);
      if (!opts.dryRun && changes.some((c) => !c.inPlace && !c.error)) await confirmOrExit(ctx, opts.yes, unsubscribeQuestion(changes));
      await runMemberChanges(ctx, opts, client, changes);
    },
  }),
];
