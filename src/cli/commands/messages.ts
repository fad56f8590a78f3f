import { uploadFile } from '../../api/operations/attachments.js';
import { getMessageHistory, sendMessage, updateMessage, type HistorySnapshot } from '../../api/operations/messages.js';
import { getUsers } from '../../api/operations/users.js';
import type { UploadedFile } from '../../api/wire.js';
import type { ChatClient } from '../../client/client.js';
import { defineCommand } from '../command/command.js';
import type { Context } from '../command/context.js';
import { printDryRun } from '../bulk/dry-run.js';
import { usageError } from '../core/errors.js';
import { flag } from '../core/flags.js';
import { readAll } from '../core/io.js';
import { messageIdArg } from '../core/args.js';
import type { OutputSpec } from '../output/output.js';
import { resolveUserIds } from '../lookup/resolve.js';
import { readUploads, sendUpload, uploadLimit, uploadLink } from '../bulk/uploads.js';
import { topicName } from './topics.js';

const HISTORY_FIELDS = [
  'timestamp',
  'user_id',
  'user',
  'topic',
  'changes',
  'content',
  'rendered_content',
  'prev_topic',
  'stream',
  'prev_stream',
  'prev_content',
  'prev_rendered_content',
  'content_html_diff',
] as const;
const HISTORY_COLUMNS = ['timestamp', 'user', 'topic', 'changes'] as const;
const HISTORY_OUTPUT: OutputSpec = { fields: HISTORY_FIELDS, columns: HISTORY_COLUMNS, times: { timestamp: 's' }, key: ['timestamp', 'user'] };

/** What one snapshot changed, for a person: "sent" for the original, else the edited parts. */
export function changesOf(s: HistorySnapshot, first: boolean): string {
  if (first) return 'sent';
  const parts: string[] = [];
  if (s.prev_content !== undefined) parts.push('content');
  if (s.prev_topic !== undefined) parts.push(`topic: ${JSON.stringify(s.prev_topic)} → ${JSON.stringify(s.topic)}`);
  if (s.prev_stream !== undefined) parts.push(`channel: ${s.prev_stream} → ${s.stream ?? '?'}`);
  return parts.join('; ') || 'edited';
}

/** The wire's propagate_mode for each --propagate. */
const PROPAGATE_MODES = { one: 'change_one', later: 'change_later', all: 'change_all' } as const;

/** --content TEXT, or - for stdin (one trailing newline dropped: what `echo` adds). */
async function contentOf(ctx: Context, content: string): Promise<string> {
  if (content !== '-') return content;
  if (ctx.io.stdinIsTTY) ctx.info('chatctl: reading the content from stdin (end with Ctrl-D)');
  return (await readAll(ctx.io.stdin)).replace(/\r?\n$/, '');
}

/**
 * The content with a link to each --file appended, one a line, as Zulip's clients add them: the files are
 * uploaded first (under --dry-run, the links name the files and nothing is uploaded).
 */
async function withFiles(
  ctx: Context,
  client: ChatClient,
  text: string,
  paths: readonly string[],
  dryRun: boolean,
): Promise<{ content: string; files: UploadedFile[] }> {
  if (!paths.length) return { content: text, files: [] };
  const files = await readUploads(ctx, paths, dryRun ? null : await uploadLimit(client));
  const links: string[] = [];
  for (const file of files) {
    const url = dryRun ? `<URL of the upload of ${file.filename}>` : await sendUpload(client, file, ctx.signal).then((r) => r.url ?? r.uri);
    links.push(uploadLink(file, url));
  }
  return { content: [text, ...links].filter((line) => line !== '').join('\n'), files };
}

export const commands = [
  defineCommand({
    path: ['messages', 'history'],
    summary: "show a message's edit history",
    description:
      'Shows every version of a message (GET /messages/{id}/history), oldest first: when, by whom, its topic, ' +
      'and what the edit changed (content, topic, channel). --json prints the snapshots as the server gives ' +
      'them; --fields picks from the snapshot fields (content, prev_content, content_html_diff ...) and the ' +
      'added user and changes.',
    examples: [
      'chatctl messages history 1234',
      'chatctl messages history 1234 --json',
      'chatctl messages history 1234 --fields timestamp,content --format csv',
    ],
    args: { message: messageIdArg() },
    output: HISTORY_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const { message_history } = await client.call(getMessageHistory, { message_id: opts.message });
      if (out.isJson && opts.fields === undefined) {
        await out.list(message_history);
        return;
      }
      const { members } = await client.call(getUsers, {});
      const emails = new Map(members.map((u) => [u.user_id, u.email]));
      await out.list(
        message_history.map((s, i) => ({ ...s, user: s.user_id === null ? null : (emails.get(s.user_id) ?? null), changes: changesOf(s, i === 0) })),
      );
    },
  }),

  defineCommand({
    path: ['messages', 'send'],
    summary: 'send a message to a channel topic or a direct conversation',
    description:
      'Sends a message (POST /messages) to a channel topic (--channel and --topic) or to users (--to, by ID or ' +
      "e-mail). --content - reads the content from stdin. Prints the new message's ID. Meant for scripts and " +
      'tests: notifications from cron jobs, fixtures.\n\n' +
      '--file uploads a file first (POST /user_uploads) and ends the message with a link to it, [name](url), ' +
      "as Zulip's clients do; a file larger than the server's upload limit is refused before anything is sent " +
      '(exit 2). With --file, --content may be left out.',
    examples: [
      'chatctl messages send --channel general --topic "deploys" --content "v2.3 is live"',
      'chatctl messages send --to ada@example.com 12 --content "lunch?"',
      'git log -1 --format=%B | chatctl messages send --channel dev --topic commits --content -',
      'chatctl messages send --channel ops --topic backups --content "last night\'s log" --file backup.log',
    ],
    options: {
      channel: flag.string('--channel <channel>', 'the channel, by ID or name (with --topic)'),
      topic: flag.string('--topic <topic>', "the topic ('' for the general-chat topic)"),
      to: flag.list('--to <users...>', 'direct message recipients (IDs or e-mails)'),
      content: flag.string('--content <text>', 'the message (Markdown); - reads stdin'),
      file: flag.list('--file <path>', 'upload a file and link it at the end of the message (repeatable; - reads stdin)'),
    },
    output: { fields: ['id'] },
    mutating: true,
    // Where to send is said first: a bare `messages send` is missing that before its content.
    check({ channel, topic, to, content, file }) {
      if ((channel !== undefined) === to.length > 0) throw usageError('send to --channel C --topic T, or --to USER...');
      if (channel !== undefined && topic === undefined) throw usageError("--channel needs --topic ('' for the general-chat topic)");
      if (to.length && topic !== undefined) throw usageError('--topic goes with --channel');
      if (content === undefined && !file.length) throw usageError('--content is required (- reads stdin)');
      if (content === '-' && file.includes('-')) throw usageError('stdin (-) can be the content or a file, not both');
    },
    async run(opts, ctx) {
      const { channel, topic, to } = opts;
      const out = ctx.output(opts);
      // check() refused a send without --content or --file, and --channel without --topic.
      const text = await contentOf(ctx, opts.content ?? '');
      const client = await ctx.client();
      const { content, files } = await withFiles(ctx, client, text, opts.file, opts.dryRun);
      // A channel goes by name or ID as it is (the server resolves both); users become IDs.
      const params =
        channel !== undefined
          ? { type: 'stream' as const, to: channel.trim().replace(/^#/, ''), topic: topicName(topic ?? ''), content }
          : { type: 'direct' as const, to: JSON.stringify(await resolveUserIds(client, to)), content };
      if (opts.dryRun) {
        const uploads = await Promise.all(files.map((f) => client.prepare(uploadFile, {}, { files: [f] })));
        printDryRun(ctx, [...uploads.flat(), ...(await client.prepare(sendMessage, params))]);
        return;
      }
      const { id } = await client.call(sendMessage, params, { signal: ctx.signal });
      await out.item({ id });
    },
  }),

  defineCommand({
    path: ['messages', 'edit'],
    summary: "edit a message's content or topic",
    description:
      'Changes the content and/or the topic of a message (PATCH /messages/{id}). --content - reads the new ' +
      'content from stdin. A topic change applies to this message only unless --propagate later (this and ' +
      'the following messages of the topic) or all (the whole topic).',
    examples: [
      'chatctl messages edit 1234 --content "fixed typo"',
      'chatctl messages edit 1234 --topic "release notes" --propagate all',
      'cat note.md | chatctl messages edit 1234 --content -',
    ],
    args: { message: messageIdArg() },
    options: {
      content: flag.string('--content <text>', 'new content (Markdown); - reads stdin'),
      topic: flag.string('--topic <topic>', "new topic ('' for the general-chat topic)"),
      propagate: flag.choice('--propagate <which>', 'topic change for: one, later or all messages of the topic', ['one', 'later', 'all']),
    },
    mutating: true,
    check({ content, topic, propagate }) {
      if (content === undefined && topic === undefined) throw usageError('nothing to change: pass --content or --topic');
      if (propagate !== undefined && topic === undefined) throw usageError('--propagate goes with --topic');
    },
    async run(opts, ctx) {
      const { message: id, topic, propagate } = opts;
      const content = opts.content === undefined ? undefined : await contentOf(ctx, opts.content);
      const client = await ctx.client();
      const params = {
        message_id: id,
        content,
        topic: topic === undefined ? undefined : topicName(topic),
        propagate_mode: propagate === undefined ? undefined : PROPAGATE_MODES[propagate],
      };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(updateMessage, params));
        return;
      }
      await client.call(updateMessage, params, { signal: ctx.signal });
      ctx.info(`chatctl: message ${id} edited`);
    },
  }),
];
