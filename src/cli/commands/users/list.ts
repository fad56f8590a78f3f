/** `chatctl users list`. */
import { getUsers } from '../../../api/operations/users.js';
import type { User } from '../../../api/types.js';
import { defineCommand } from '../../command/command.js';
import { usageError } from '../../core/errors.js';
import { flag } from '../../core/flags.js';
import type { OutputSpec } from '../../output/output.js';
import { FIXED_WINDOW_DAYS, INACTIVE_FIELDS, inactiveRows, readPresence, type Inactivity } from '../../users/inactivity.js';
import { USER_FIELDS, USER_COLUMNS, USER_DISPLAY } from './shared.js';

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

export const listCommand = defineCommand({
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
});
