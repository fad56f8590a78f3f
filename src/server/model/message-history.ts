/**
 * A message's edit history as GET /messages/{id}/history gives it: snapshots oldest first, each with the
 * values after that edit and, where content changed, an HTML diff against the previous version.
 *
 * The diff is computed word by word with the `diff` package (loaded on first use) and shown as a Zulip
 * server shows it: inserted words in `highlight_text_inserted` spans, then deleted ones in
 * `highlight_text_deleted` spans, markup of the new version kept, the whole in a `<div>`.
 */
import { createRequire } from 'node:module';
import type { HistorySnapshot } from '../../api/operations/messages.js';
import type { Db } from '../store/db.js';
import type { MessageRow } from './message-access.js';
import { displayTopic, type EditRow } from './messages.js';

type DiffLib = typeof import('diff');
let diffLib: DiffLib | undefined;
const lib = (): DiffLib => (diffLib ??= createRequire(import.meta.url)('diff') as DiffLib);

/** Tags, words with their trailing space, and stray spaces. */
const tokenize = (html: string): string[] => html.match(/<[^>]*>|[^\s<]+\s*|\s+/g) ?? [];

const isTag = (token: string): boolean => token.startsWith('<');

/** Wraps each run of text tokens in a span of `cls`, keeping the run's surrounding space outside it. */
function highlightRuns(tokens: readonly string[], cls: string, keepTags: boolean): string {
  let out = '';
  let run = '';
  const flush = () => {
    const body = run.trim();
    if (body === '') out += run;
    else {
      const lead = run.length - run.trimStart().length;
      out += `${run.slice(0, lead)}<span class="${cls}">${body}</span>${run.slice(lead + body.length)}`;
    }
    run = '';
  };
  for (const t of tokens) {
    if (isTag(t)) {
      flush();
      if (keepTags) out += t;
    } else {
      run += t;
    }
  }
  flush();
  return out;
}

const isOpeningTag = (token: string): boolean => isTag(token) && !token.startsWith('</');

/** The HTML diff between two renderings of a message. */
export function htmlDiff(before: string, after: string): string {
  let out = '';
  let inserted: string[] = [];
  let deleted: string[] = [];
  const flush = () => {
    // Deleted words go before markup the insertion opens, so they are not shown inside it.
    let open = inserted.length;
    while (open > 0 && isOpeningTag(inserted[open - 1]!)) open--;
    out +=
      highlightRuns(inserted.slice(0, open), 'highlight_text_inserted', true) +
      highlightRuns(deleted, 'highlight_text_deleted', false) +
      inserted.slice(open).join('');
    inserted = [];
    deleted = [];
  };
  for (const change of lib().diffArrays(tokenize(before), tokenize(after))) {
    if (change.added) inserted.push(...change.value);
    else if (change.removed) deleted.push(...change.value);
    else {
      flush();
      out += change.value.join('');
    }
  }
  flush();
  return `<div>${out}</div>`;
}

/** Snapshots, oldest first, walking back from the message's current state through its edits. */
export function messageHistory(db: Db, message: MessageRow, allowEmptyTopicName: boolean): HistorySnapshot[] {
  const topicOf = (t: string) => displayTopic(db, t, allowEmptyTopicName);
  const edits = db.prepare('SELECT * FROM message_edits WHERE message_id = ? ORDER BY id DESC').all(message.id) as EditRow[];
  let content = message.content;
  let rendered = message.rendered_content;
  let topic = message.topic;
  const newestFirst: HistorySnapshot[] = [];
  for (const e of edits) {
    const snapshot: HistorySnapshot = { content, rendered_content: rendered, timestamp: e.timestamp, topic: topicOf(topic), user_id: e.user_id };
    if (e.prev_topic !== null) {
      topic = e.prev_topic;
      snapshot.prev_topic = topicOf(topic);
    }
    if (e.prev_content !== null) {
      snapshot.prev_content = e.prev_content;
      snapshot.prev_rendered_content = e.prev_rendered_content ?? '';
      snapshot.content_html_diff = htmlDiff(snapshot.prev_rendered_content, rendered);
      content = e.prev_content;
      rendered = snapshot.prev_rendered_content;
    }
    if (e.prev_stream !== null) {
      snapshot.prev_stream = e.prev_stream;
      snapshot.stream = e.stream!;
    }
    newestFirst.push(snapshot);
  }
  newestFirst.push({ content, rendered_content: rendered, timestamp: message.date_sent, topic: topicOf(topic), user_id: message.sender_id });
  return newestFirst.reverse();
}
