import { getSubscriptions, SUBSCRIPTION_PROPERTIES, updateSubscriptionSettings, type SubscriptionProperty } from '../../api/operations/channels.js';
import { converted } from '../core/args.js';
import { BULK_FLAGS, OUTCOME_FIELDS, planCall, type RowCall, runCalls } from '../bulk/runner.js';
import { defineCommand } from '../command/command.js';
import { usageError } from '../core/errors.js';
import { arg, flag } from '../core/flags.js';
import type { OutputSpec } from '../output/output.js';
import { resolveChannels } from '../lookup/resolve.js';

const SUBSCRIPTION_FIELDS = [
  'stream_id',
  'name',
  ...SUBSCRIPTION_PROPERTIES,
  'description',
  'invite_only',
  'is_web_public',
  'is_archived',
  'folder_id',
  'date_created',
  'creator_id',
  'stream_weekly_traffic',
  'subscribers',
] as const;
const SUBSCRIPTION_COLUMNS = [
  'stream_id',
  'name',
  'color',
  'is_muted',
  'pin_to_top',
  'desktop_notifications',
  'push_notifications',
  'email_notifications',
] as const;
const SUBSCRIPTION_OUTPUT: OutputSpec = {
  fields: SUBSCRIPTION_FIELDS,
  columns: SUBSCRIPTION_COLUMNS,
  times: { date_created: 's' },
  key: ['stream_id', 'name'],
};

/** `PROPERTY=VALUE`: a colour as #rrggbb, every other property true or false. */
export function parseSetting(text: string): { property: SubscriptionProperty; value: string | boolean } {
  const m = /^([a-z_]+)=(.*)$/s.exec(text.trim());
  if (!m) throw usageError(`settings are PROPERTY=VALUE, not "${text}"`, `properties: ${SUBSCRIPTION_PROPERTIES.join(', ')}`);
  const [, name = '', value = ''] = m;
  const property = SUBSCRIPTION_PROPERTIES.find((p) => p === name);
  if (property === undefined) throw usageError(`unknown subscription property "${name}"`, `properties: ${SUBSCRIPTION_PROPERTIES.join(', ')}`);
  if (property === 'color') {
    if (!/^#[0-9a-f]{6}$/i.test(value)) throw usageError(`color is a hex colour such as #76ce90, not "${value}"`);
    return { property, value: value.toLowerCase() };
  }
  if (value !== 'true' && value !== 'false') throw usageError(`${property} is true or false, not "${value}"`);
  return { property, value: value === 'true' };
}

export const commands = [
  defineCommand({
    path: ['subscriptions', 'list'],
    aliases: ['ls'],
    summary: 'list your subscriptions and their personal settings',
    description:
      'Lists the channels you are subscribed to (GET /users/me/subscriptions) with your settings for each: ' +
      'colour, muted, pinned, and the notification settings (empty: the organization default applies). ' +
      '--json prints the subscription objects as the server gives them.',
    examples: [
      'chatctl subscriptions list',
      'chatctl subscriptions list --fields name,is_muted --format csv',
      'chatctl subscriptions list --subscribers --json',
    ],
    options: { subscribers: flag.bool('--subscribers', 'include the subscriber IDs of each channel') },
    output: SUBSCRIPTION_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const { subscriptions } = await client.call(getSubscriptions, { include_subscribers: opts.subscribers || undefined });
      await out.list(subscriptions);
    },
  }),

  defineCommand({
    path: ['subscriptions', 'set'],
    summary: 'change personal settings of your subscriptions, several at once',
    description:
      'Sets each PROPERTY=VALUE on each --channel: one request per channel (POST /users/me/subscriptions/properties), ' +
      'and one outcome row per channel, as bulk commands report (exit 3 when some channels failed). A server applies ' +
      "a request's entries one by one, each kept as it is applied, and stops at the first it refuses (not subscribed, " +
      "no such channel): a request per channel keeps every channel's outcome known. Properties: color (#rrggbb), " +
      'is_muted, pin_to_top, desktop_notifications, audible_notifications, push_notifications, email_notifications, ' +
      'wildcard_mentions_notify (true or false), and in_home_view (the legacy inverse of is_muted).',
    examples: [
      'chatctl subscriptions set --channel general is_muted=true',
      'chatctl subscriptions set --channel design --channel 12 color=#76ce90 pin_to_top=true --json',
      'chatctl subscriptions set --channel general push_notifications=false --dry-run',
    ],
    args: { settings: converted(arg.variadic('PROPERTY=VALUE pairs'), (values) => values.map(parseSetting)) },
    options: {
      channel: flag.list('--channel <channel>', 'a channel, by ID or name (repeatable)'),
      ...BULK_FLAGS,
    },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    check(opts) {
      if (!opts.channel.length) throw usageError('name at least one channel with --channel');
      if (!opts.settings.length) throw usageError('nothing to change: give PROPERTY=VALUE settings', `properties: ${SUBSCRIPTION_PROPERTIES.join(', ')}`);
    },
    async run(opts, ctx) {
      const { channel: channels, settings } = opts;
      const client = await ctx.client();
      const resolved = await resolveChannels(client, channels);
      const seen = new Set<number>();
      const calls: RowCall[] = [];
      for (const ref of channels) {
        const r = resolved.get(ref)!;
        if (r.ok && seen.has(r.id)) continue;
        const base = { row: calls.length + 1, target: ref, status: 'updated' };
        if (!r.ok) {
          calls.push({ ...base, error: r.error });
          continue;
        }
        seen.add(r.id);
        const streamId = r.id;
        calls.push({
          ...base,
          call: planCall(updateSubscriptionSettings, { subscription_data: settings.map((s) => ({ stream_id: streamId, ...s })) }, { id: streamId }),
        });
      }
      await runCalls(ctx, opts, client, calls, 'updated');
    },
  }),
];
