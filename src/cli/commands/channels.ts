import { createChannel, getStream, getStreams, updateStream } from '../../api/operations/channels.js';
import type { ChatClient } from '../../client/client.js';
import { converted } from '../core/args.js';
import { fileRows, fromFileFlags, cell, type FromFile } from '../bulk/input.js';
import { requireChannels } from '../channels/find.js';
import { namedPeople, type Named } from '../channels/people.js';
import { quietRows, subscribedIds } from '../channels/quiet.js';
import { CHANNEL_OUTPUT, channelRows, needsLastMessage, PRIVACY, privacyParams } from '../channels/rows.js';
import type { OutputSpec } from '../output/output.js';
import { defineCommand } from '../command/command.js';
import type { Context } from '../command/context.js';
import { printDryRun } from '../bulk/dry-run.js';
import { usageError } from '../core/errors.js';
import { arg, flag, type Flag } from '../core/flags.js';
import { isId, resolveFolder, userIndex } from '../lookup/resolve.js';

/** A channel's new name: not blank (the server checks the rest). */
function channelName(name: string): string {
  if (name.trim() === '') throw usageError('a channel needs a name');
  return name;
}

/** `--folder F` moves a channel to a folder, `--no-folder` out of any: the reference, null, or undefined for neither. */
const FOLDER_CHANGE: Flag<string | null | undefined> = {
  kind: 'flag',
  flags: '--folder <folder>',
  description: 'move it to this channel folder (ID or name)',
  negation: { flags: '--no-folder', description: 'take it out of its folder' },
  parse: (raw) => (raw === false ? null : typeof raw === 'string' ? raw : Array.isArray(raw) ? raw.at(-1) : undefined),
};

/** What `channels list` may print: channels, and with --quiet-since why each is listed. */
const LIST_OUTPUT: OutputSpec = { ...CHANNEL_OUTPUT, fields: [...CHANNEL_OUTPUT.fields, 'status'], addedBy: { status: 'quietSince' } };

/** With --archived, which channels are archived is a column of its own: the list mixes both. */
const WITH_ARCHIVED_OUTPUT: OutputSpec = {
  ...LIST_OUTPUT,
  columns: ['stream_id', 'name', 'is_archived', 'privacy', 'subscriber_count', 'folder', 'description'],
};

/** The quiet-channel report's columns. */
const QUIET_OUTPUT: OutputSpec = { ...LIST_OUTPUT, columns: ['stream_id', 'name', 'privacy', 'subscriber_count', 'last_message_time', 'status'] };

const QUIET_HELP =
  'With --quiet-since DURATION it lists only the channels with no message since then (status quiet), rows that ' +
  'channels archive --from-file - takes as they are; add --all to see private channels too. It reads each ' +
  "channel's newest message you can read (as last_message_time above). A channel is unknown, never quiet, when " +
  'you cannot tell: its messages could not be read, or it is private and you are not subscribed (you see none of ' +
  'its messages); --include-unknown lists those too. Limits: messages removed by a retention policy or deleted ' +
  'do not count; in a private channel with protected history you see only messages since you joined; reactions, ' +
  'edits and reading are not activity. Archived channels and channels created after the cutoff are not listed.';

const LAST_MESSAGE_NOTE =
  'last_message_time (UNIX seconds in JSON; empty when no message is left, or when you cannot read the ' +
  "channel's messages) is not part of a channel: it is read only when --fields names it, with one " +
  'GET /messages per channel, at most 4 at once and paced by the server’s rate limits.';

/** Who a new channel starts with: --user, --group and the `user` column of --from-file, each once. */
async function initialMembers(ctx: Context, client: ChatClient, o: { user: readonly string[]; group: readonly string[] } & FromFile): Promise<number[]> {
  const rows = await fileRows(ctx, o, { user: { required: true, description: 'user ID or e-mail', json: 'id' } });
  const users = [...o.user, ...(rows ?? []).map((r) => cell(r, 'user'))];
  if (!users.length && !o.group.length) return [];
  const named = await namedPeople(client, await userIndex(client), { users, groups: o.group });
  // One request creates the channel with all of them: one that cannot be subscribed stops it.
  const refused = named.find((n): n is Extract<Named, { ok: false }> => !n.ok);
  if (refused) throw refused.error;
  return named.flatMap((n) => (n.ok ? [n.person.id] : []));
}

export const commands = [
  defineCommand({
    path: ['channels', 'list'],
    aliases: ['ls'],
    summary: 'list channels: privacy, subscribers, folder, last message',
    description:
      'Lists the channels you can see (GET /streams): public ones and those you are subscribed to; with --all, ' +
      'every channel you may administer (administrators: all of them, private ones included). Archived channels ' +
      'only with --archived (servers before feature level 315 never list them), which adds the is_archived column. privacy is public, private or ' +
      'web-public; folder is the channel folder’s name; subscriber_count counts active subscribers (servers ' +
      'before feature level 394 lack it: each channel’s members are counted then, one request per channel). ' +
      LAST_MESSAGE_NOTE +
      '\n\n' +
      QUIET_HELP,
    examples: [
      'chatctl channels list',
      'chatctl channels list --all --quiet-since 180d',
      'chatctl channels list --all --quiet-since 180d --format ndjson | chatctl channels archive --from-file - --dry-run',
      'chatctl channels list --all --archived --fields stream_id,name,privacy,is_archived',
      'chatctl channels list --fields name,subscriber_count,last_message_time --format csv',
      "chatctl channels list --json | jq -r '.[] | select(.subscriber_count == 0) | .name'",
    ],
    options: {
      all: flag.bool('--all', 'every channel you may administer (administrators: private ones too)'),
      archived: flag.bool('--archived', 'include archived channels'),
      quietSince: flag.duration('--quiet-since <duration>', 'only channels with no message since this long ago (e.g. 180d)'),
      includeUnknown: flag.bool('--include-unknown', 'with --quiet-since: also channels whose last message you cannot tell'),
    },
    output: LIST_OUTPUT,
    check(opts) {
      if (opts.includeUnknown && opts.quietSince === undefined) throw usageError('--include-unknown goes with --quiet-since');
    },
    async run(opts, ctx) {
      const out = ctx.output(opts, opts.quietSince !== undefined ? QUIET_OUTPUT : opts.archived ? WITH_ARCHIVED_OUTPUT : undefined);
      const client = await ctx.client();
      const { streams } = await client.call(getStreams, {
        include_all: opts.all || undefined,
        include_default: true,
        exclude_archived: opts.archived ? false : undefined,
      });
      if (opts.quietSince === undefined) {
        await out.list(await channelRows(ctx, client, streams, { lastMessage: needsLastMessage(opts.fields) }));
        return;
      }
      const cutoff = Math.floor(ctx.nowMs() / 1000) - opts.quietSince;
      const rows = await channelRows(ctx, client, streams, { lastMessage: true });
      const subscribed = await subscribedIds(client);
      const all = quietRows(rows, cutoff, subscribed);
      const unknown = all.filter((r) => r.status === 'unknown').length;
      await out.list(opts.includeUnknown ? all : all.filter((r) => r.status === 'quiet'));
      const listed = opts.includeUnknown ? 'listed' : 'not listed; --include-unknown lists them';
      ctx.info(`chatctl: ${all.length - unknown} quiet; ${unknown} unknown (last message cannot be read; ${listed})`);
    },
  }),

  defineCommand({
    path: ['channels', 'get'],
    summary: 'show one channel, by ID or name',
    description:
      'Shows one channel (GET /streams/{id} for an ID, from servers of feature level 132; a name is looked up in ' +
      'GET /streams) with its privacy, folder, subscriber count and the time of its last message.',
    examples: ['chatctl channels get general', 'chatctl channels get 12 --json', 'chatctl channels get "#design" --fields name,last_message_time'],
    args: { channel: arg.required('channel ID or name') },
    output: { fields: CHANNEL_OUTPUT.fields, times: CHANNEL_OUTPUT.times, key: CHANNEL_OUTPUT.key },
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const ref = opts.channel.trim();
      const channel = isId(ref) ? (await client.call(getStream, { stream_id: Number(ref) })).stream : (await requireChannels(client, [ref]))[0]!;
      const [row] = await channelRows(ctx, client, [channel], { lastMessage: true });
      await out.item(row!);
    },
  }),

  defineCommand({
    path: ['channels', 'create'],
    summary: 'create a channel, with its privacy, folder and first members',
    description:
      'Creates a channel (POST /channels/create from feature level 417) with a description, a privacy (public, ' +
      'private or web-public), a folder (ID or name) and its first members: --user (IDs or e-mails), --group (every ' +
      'member, through subgroups) and the user column of --from-file, in one request. A private channel’s new ' +
      'subscribers do not see its earlier messages (protected history), as on a Zulip server. Without members ' +
      'nobody is subscribed. Servers before feature level 417 create channels by subscribing to them: there the ' +
      'members given (or, with none, you) are subscribed, and a channel of that name that exists already is joined, ' +
      'not refused. Prints the new channel’s ID.',
    examples: [
      'chatctl channels create design --description "Design reviews" --group designers',
      'chatctl channels create leadership --privacy private --user ada@example.com --user 12',
      'chatctl channels create announcements --folder Company --default',
      'chatctl channels create support --from-file support-team.csv --dry-run',
    ],
    args: { name: converted(arg.required("the channel's name"), channelName) },
    options: {
      description: flag.string('--description <text>', 'what the channel is for (Markdown; default empty)'),
      privacy: flag.choice('--privacy <privacy>', 'who can see and join it', PRIVACY, { default: 'public' }),
      folder: flag.string('--folder <folder>', 'channel folder, by ID or name'),
      default: flag.bool('--default', 'make it a default channel, which new users join (administrators)'),
      user: flag.list('--user <user>', 'a first member, by ID or e-mail (repeatable)'),
      group: flag.list('--group <group>', 'every member of a user group, by ID or name (repeatable)'),
      ...fromFileFlags('first members from a CSV file with a user column, or JSON lines (- for stdin)'),
    },
    output: { fields: ['stream_id', 'name'] },
    mutating: true,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const params = {
        name: opts.name,
        description: opts.description,
        ...privacyParams(opts.privacy),
        is_default_stream: opts.default || undefined,
        folder_id: opts.folder === undefined ? undefined : await resolveFolder(client, opts.folder),
        subscribers: await initialMembers(ctx, client, opts),
      };
      const labels = { folder_id: '--folder', is_default_stream: '--default', is_web_public: '--privacy web-public' };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(createChannel, params, { labels }));
        return;
      }
      const { id } = await client.call(createChannel, params, { signal: ctx.signal, labels });
      await out.item({ stream_id: id, name: opts.name.trim() });
    },
  }),

  defineCommand({
    path: ['channels', 'update'],
    summary: "change a channel's description, privacy, folder or default status",
    description:
      'Changes a channel (PATCH /streams/{id}), named by ID or name: its description, its privacy (public, private ' +
      'or web-public; a channel made private keeps earlier messages from new subscribers, as on a Zulip server), ' +
      'its folder (--no-folder takes it out of any; feature level 389) and whether new users join it (--default, ' +
      '--no-default; administrators). To rename it, use channels rename.',
    examples: [
      'chatctl channels update design --description "Design reviews, Tuesdays"',
      'chatctl channels update 12 --privacy private',
      'chatctl channels update general --folder Company --default',
      'chatctl channels update old-team --no-folder --dry-run',
    ],
    args: { channel: arg.required('channel ID or name') },
    options: {
      description: flag.string('--description <text>', 'new description (Markdown)'),
      privacy: flag.choice('--privacy <privacy>', 'public, private or web-public', PRIVACY),
      folder: FOLDER_CHANGE,
      default: flag.toggle('--default', 'make it a default channel (administrators)', {
        flags: '--no-default',
        description: 'stop making it a default channel',
      }),
    },
    mutating: true,
    check(o) {
      if (o.description === undefined && o.privacy === undefined && o.folder === undefined && o.default === undefined) {
        throw usageError('nothing to change: pass --description, --privacy, --folder, --no-folder or --default/--no-default');
      }
    },
    async run(opts, ctx) {
      const client = await ctx.client();
      const [channel] = await requireChannels(client, [opts.channel]);
      const params = {
        stream_id: channel!.stream_id,
        description: opts.description,
        ...(opts.privacy === undefined ? {} : { is_private: opts.privacy === 'private', is_web_public: opts.privacy === 'web-public' }),
        folder_id: typeof opts.folder === 'string' ? await resolveFolder(client, opts.folder) : opts.folder,
        is_default_stream: opts.default,
      };
      const labels = { folder_id: opts.folder === null ? '--no-folder' : '--folder', is_default_stream: '--default', is_web_public: '--privacy web-public' };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(updateStream, params, { labels }));
        return;
      }
      await client.call(updateStream, params, { signal: ctx.signal, labels });
      ctx.info(`chatctl: channel ${channel!.name} updated`);
    },
  }),

  defineCommand({
    path: ['channels', 'rename'],
    summary: 'rename a channel',
    description: 'Renames a channel (PATCH /streams/{id} with new_name), named by ID or name. Links to the channel keep ' + 'working: they carry its ID.',
    examples: ['chatctl channels rename design product-design', 'chatctl channels rename 12 "Design reviews" --dry-run'],
    args: { channel: arg.required('channel ID or name'), newName: converted(arg.required('the new name'), channelName) },
    mutating: true,
    async run(opts, ctx) {
      const client = await ctx.client();
      const [channel] = await requireChannels(client, [opts.channel]);
      const params = { stream_id: channel!.stream_id, new_name: opts.newName };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(updateStream, params));
        return;
      }
      await client.call(updateStream, params, { signal: ctx.signal });
      ctx.info(`chatctl: channel ${channel!.name} renamed to ${opts.newName.trim()}`);
    },
  }),
];
