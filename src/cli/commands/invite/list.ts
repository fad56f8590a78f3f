import { getInvites } from '../../../api/operations/invites.js';
import { defineCommand } from '../../command/command.js';
import { displayRow } from '../../invites/refs.js';
import { INVITE_OUTPUT } from './shared.js';

export const listCommand = defineCommand({
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
});
