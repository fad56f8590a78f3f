import { createInviteLink } from '../../../api/operations/invites.js';
import { defineCommand } from '../../command/command.js';
import { printDryRun } from '../../bulk/dry-run.js';
import { inviteFlags } from '../../invites/options.js';
import { INVITE_LABELS } from '../../invites/plan.js';
import { requireResolved, resolveChannels, resolveGroups } from '../../lookup/resolve.js';

export const linkCreateCommand = defineCommand({
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
});
