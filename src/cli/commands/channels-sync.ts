import { BULK_FLAGS } from '../bulk/runner.js';
import { requireChannels } from '../channels/find.js';
import { currentMembers, orderedChanges, runMemberChanges } from '../channels/membership.js';
import { groupMembers } from '../channels/people.js';
import { readMap } from '../channels/sync-map.js';
import { syncPlan, type SyncChange } from '../org/channel-sync.js';
import { defineCommand } from '../command/command.js';
import { confirmOrExit, requireYesUnlessInteractive } from '../bulk/confirm.js';
import type { Context } from '../command/context.js';
import { ChatctlError } from '../core/errors.js';
import { flag } from '../core/flags.js';
import { tryOrganizationLock } from '../bulk/lock.js';
import type { OutputFlags, OutputSpec } from '../output/output.js';
import { userIndex } from '../lookup/resolve.js';
import { plural } from '../core/units.js';

/** One line per change of the plan (--dry-run). */
const PLAN_OUTPUT: OutputSpec = {
  fields: ['row', 'action', 'channel', 'stream_id', 'user', 'user_id', 'rule', 'error'],
  columns: ['row', 'action', 'channel', 'user', 'rule', 'error'],
  key: ['row', 'action', 'channel', 'user'],
};

/** `3 to subscribe, 1 to unsubscribe, 1 that cannot be made, in 2 channels`. */
function planSummary(plan: readonly SyncChange[]): string {
  const count = (f: (s: SyncChange) => boolean) => plan.filter(f).length;
  const subs = count((s) => s.change.action === 'subscribe' && !s.change.error);
  const unsubs = count((s) => s.change.action === 'unsubscribe');
  const bad = count((s) => s.change.error !== undefined);
  const channels = new Set(plan.map((s) => s.change.channel.stream_id)).size;
  return `${subs} to subscribe, ${unsubs} to unsubscribe${bad ? `, ${bad} that cannot be made` : ''}, in ${plural(channels, 'channel')}`;
}

/** --dry-run: the plan itself, one record per change, in the order (and with the row numbers) a run would report. */
async function printPlan(ctx: Context, flags: OutputFlags, plan: readonly SyncChange[]): Promise<void> {
  const out = ctx.output(flags.json ? { ...flags, json: false, format: 'ndjson' } : flags, PLAN_OUTPUT);
  const rule = new Map(plan.map((s) => [s.change, s.rule]));
  await out.list(
    orderedChanges(plan.map((s) => s.change)).map(({ row, change: c }) => ({
      row,
      action: c.action,
      channel: c.channel.name,
      stream_id: c.channel.stream_id,
      user: c.user.label,
      user_id: c.error ? null : c.user.id,
      rule: rule.get(c) ?? null,
      error: c.error?.msg ?? null,
    })),
  );
  ctx.info(`chatctl: dry run: ${planSummary(plan)}; nothing changed`);
  const bad = plan.filter((s) => s.change.error).length;
  if (bad) throw new ChatctlError(`${bad} of ${plan.length} changes cannot be made`, 'partial');
}

export const commands = [
  defineCommand({
    path: ['channels', 'sync'],
    summary: 'keep channel membership in step with groups, e-mail domains or a list (for cron)',
    description:
      'Reads a map of who belongs in which channels, compares it with the server, and subscribes whoever is ' +
      'missing; with --remove, it also unsubscribes whoever the map does not put there. Run it again and it ' +
      'changes nothing: it says "in sync" and exits 0.\n\n' +
      'The map (--map FILE), by extension. A .json file holds rules, each a source of users and its channels:\n' +
      '  {"rules": [\n' +
      '    {"group": "engineering", "channels": ["engineering", "deploys"]},\n' +
      '    {"domain": "partner.example", "channels": ["partners"]},\n' +
      '    {"users": ["ada@example.com", 12], "channels": ["design"]}]}\n' +
      'group: a user group by name or ID, counted through its subgroups as the server counts it ' +
      '(GET /user_groups/{id}/members); domain: active human users whose address is in that domain exactly, ' +
      'never bots; users: IDs or e-mails. Any other file (.csv, or JSON lines in .ndjson/.jsonl) has a row per ' +
      'user, columns user and channels (names or IDs, comma-separated). Channels are named by name or ID.\n\n' +
      'The plan: each channel the map names should hold every active user some rule maps to it. Deactivated ' +
      'users are never subscribed. With --remove the map owns those channels: every other subscriber is ' +
      'unsubscribed (you too), except bots, which integrations subscribe themselves. Channels the map does not ' +
      'name are never touched. A map naming a channel or group that does not exist changes nothing (exit 6); a ' +
      'user it names who does not exist fails that row alone.\n\n' +
      'It reads the users (GET /users), each group’s members, and each channel’s subscribers ' +
      '(GET /streams/{id}/members), then applies the plan one request per channel for up to 500 users, paced ' +
      'by the server’s rate limits. --dry-run prints the plan (action, channel, user, the rule that wants it; ' +
      'one JSON line per change with --json; --fields picks among its fields) and changes nothing. Otherwise each change gets its outcome line ' +
      '(target CHANNEL: +USER or CHANNEL: -USER; the same row numbers as the plan) and a summary on stderr; exit 3 ' +
      'when some failed, 0 when all were made or nothing was to do. With --remove it asks on a terminal before ' +
      'unsubscribing anyone, and elsewhere needs --yes. One sync runs at a time per organization (a lock, as for ' +
      'attachments clean): a second says so on stderr and exits 0.',
    examples: [
      'chatctl channels sync --map channels.json --dry-run',
      'chatctl channels sync --map channels.json',
      'chatctl channels sync --map people.csv --remove --yes --json',
      '17 2 * * *  chatctl channels sync --map /etc/chatctl/channels.json --remove --yes --quiet   # crontab',
    ],
    options: {
      map: flag.required(
        flag.string('--map <file>', 'the map: rules in .json, or rows of user,channels in .csv/.ndjson', { complete: 'files' }),
        '--map FILE is required',
      ),
      remove: flag.bool('--remove', 'also unsubscribe whoever the map does not put in its channels (bots excepted)'),
      ...BULK_FLAGS,
    },
    output: PLAN_OUTPUT,
    mutating: true,
    dryRunHelp: 'print the plan, change nothing',
    destructive: true,
    async run(opts, ctx) {
      if (opts.remove) requireYesUnlessInteractive(ctx, opts, 'channels sync --remove unsubscribes users');
      const rules = await readMap(ctx, opts.map);
      const client = await ctx.client();
      const lock = opts.dryRun ? null : tryOrganizationLock(ctx, 'channels-sync');
      if (lock && 'heldBy' in lock) {
        ctx.info(`chatctl: another channels sync${lock.heldBy > 0 ? ` (pid ${lock.heldBy})` : ''} is running on this organization; leaving it to finish`);
        return;
      }
      try {
        const channelRefs = [...new Set(rules.flatMap((r) => r.channels))];
        const channels = await requireChannels(client, channelRefs);
        const groupRefs = [...new Set(rules.flatMap((r) => (r.source.kind === 'group' ? [r.source.group] : [])))];
        const state = {
          channels: new Map(channelRefs.map((ref, i) => [ref, channels[i]!])),
          index: await userIndex(client),
          groups: groupRefs.length ? await groupMembers(client, groupRefs) : new Map<string, number[]>(),
          current: await currentMembers(
            ctx,
            client,
            channels.map((c) => c.stream_id),
          ),
        };
        const plan = syncPlan(rules, state, { remove: opts.remove });
        if (!plan.length) {
          ctx.info(
            `chatctl: in sync: ${plural(state.current.size, 'channel')}, ${plural(
              [...state.current.values()].reduce((n, s) => n + s.size, 0),
              'subscription',
            )}`,
          );
          return;
        }
        if (opts.dryRun) return await printPlan(ctx, opts, plan);
        const removals = plan.filter((s) => s.change.action === 'unsubscribe').length;
        if (removals) await confirmOrExit(ctx, opts.yes, `Remove ${plural(removals, 'subscription')} the map does not want?`);
        await runMemberChanges(
          ctx,
          { ...opts, fields: undefined },
          client,
          plan.map((s) => s.change),
        );
      } finally {
        lock?.release();
      }
    },
  }),
];
