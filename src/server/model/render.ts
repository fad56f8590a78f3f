/**
 * Zulip-flavoured Markdown: markdown-it (raw HTML escaped, bare URLs linked) plus the syntax a Zulip server
 * adds: user mentions `@**Full Name**` / `@**Full Name|id**` / silent `@_**...**`, wildcard mentions
 * `@**all**` (also everyone, channel, stream) and `@**topic**`, user-group mentions `@*group*`, channel and
 * topic links `#**channel**` / `#**channel>topic**`, emoji `:name:`, and the organization's linkifiers in
 * their order. None of it applies inside code spans or blocks, since those never reach the inline rules.
 *
 * markdown-it is loaded on first use, synchronously, so commands that never render do not pay for it.
 */
import { createRequire } from 'node:module';
import type { MarkdownIt, StateCore, StateInline, Token } from 'markdown-it';
import { type ApiError, badRequest } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { TopicLink } from '../../api/operations/messages.js';
import { escapeHtml } from '../../html.js';
import type { Db } from '../store/db.js';
import { realmEmojiSourceUrl, unicodeEmojiCode, ZULIP_EXTRA_EMOJI } from './emoji.js';
import { compilePattern } from './linkifiers.js';
import { compileRe2, type Re2 } from './re2.js';
import { statement } from '../store/statements.js';

export interface Rendered {
  html: string;
  /** Users mentioned by a non-silent `@**...**`. */
  mentionedUserIds: Set<number>;
  /** User groups mentioned by a non-silent `@*...*`. */
  mentionedGroupIds: Set<number>;
  /** `@**all**`, `@**everyone**`, `@**channel**` or `@**stream**`. */
  streamWildcard: boolean;
  /** `@**topic**`. */
  topicWildcard: boolean;
}

export interface RenderOptions {
  /** Who writes: `#**channel**` links private channels only for their subscribers. */
  senderId?: number;
}

/** The per-render state markdown-it carries through its rules as `env`. */
interface Env {
  db: Db;
  senderId: number | undefined;
  result: Rendered;
  linkifiers: CompiledLinkifier[];
  /** What is left of LIMITS.renderLinkifiersMs for this render. */
  budget: SearchBudget;
}

interface CompiledLinkifier {
  /** The pattern inside Zulip's boundaries: group 1 what stands before, group 2 the link's text. */
  regex: Re2;
  groups: string[];
  urlTemplate: string;
}

const STREAM_WILDCARDS = new Set(['all', 'everyone', 'channel', 'stream']);
// What may stand right before a mention or a channel link, as on a Zulip server.
const BEFORE_MENTION = /[\s'"({[/<]/;

let md: MarkdownIt | undefined;

function markdown(): MarkdownIt {
  if (md) return md;
  const MarkdownItCtor = createRequire(import.meta.url)('markdown-it') as new (opts: object) => MarkdownIt;
  const m = new MarkdownItCtor({ html: false, linkify: true, breaks: true });
  m.inline.ruler.before('emphasis', 'zulip_mention', mentionRule);
  m.inline.ruler.before('emphasis', 'zulip_channel_link', channelLinkRule);
  m.inline.ruler.before('emphasis', 'zulip_emoji', emojiRule);
  m.core.ruler.push('zulip_linkifiers', linkifierRule);
  m.core.ruler.push('zulip_empty_links', emptyLinkRule);
  m.renderer.rules.zulip_html = (tokens, idx) => tokens[idx]!.content;
  md = m;
  return m;
}

/** Renders message (or description) Markdown to HTML, collecting what it mentions. */
export function renderMarkdown(db: Db, content: string, opts: RenderOptions = {}): Rendered {
  const result: Rendered = { html: '', mentionedUserIds: new Set(), mentionedGroupIds: new Set(), streamWildcard: false, topicWildcard: false };
  const linkifiers = compileLinkifiers(db);
  const env: Env = { db, senderId: opts.senderId, result, linkifiers, budget: { leftMs: LIMITS.renderLinkifiersMs } };
  result.html = markdown().render(content, env).trimEnd();
  return result;
}

/** Just the HTML, for channel descriptions, profile fields and the like. */
export const renderHtml = (db: Db, content: string): string => (content === '' ? '' : renderMarkdown(db, content).html);

function pushHtml(state: StateInline, html: string): void {
  state.push('zulip_html', '', 0).content = html;
}

const precededOk = (state: StateInline): boolean => state.pos === 0 || BEFORE_MENTION.test(state.src[state.pos - 1]!);

// ---------------------------------------------------------------------------------------------------
// @**user**, @_**user**, @**all**, @*group*, @_*group*

interface MentionUser {
  id: number;
  full_name: string;
}

function userByMention(db: Db, text: string): MentionUser | undefined {
  const withId = /^(.*)\|(\d+)$/.exec(text);
  if (withId) {
    const user = statement(db, 'SELECT id, full_name FROM users WHERE id = ? AND is_active = 1').get(Number(withId[2])) as MentionUser | undefined;
    // `@**|id**` names nobody in particular; `@**Name|id**` must name that user.
    if (!user || (withId[1] !== '' && withId[1] !== user.full_name)) return undefined;
    return user;
  }
  const matches = statement(db, 'SELECT id, full_name FROM users WHERE is_active = 1 AND full_name = ? COLLATE NOCASE LIMIT 2').all(text) as MentionUser[];
  // An ambiguous name mentions nobody; the `|id` form disambiguates.
  return matches.length === 1 ? matches[0] : undefined;
}

function mentionRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  let pos = state.pos;
  if (src.charCodeAt(pos) !== 0x40 /* @ */ || !precededOk(state)) return false;
  pos++;
  const isSilent = src[pos] === '_';
  if (isSilent) pos++;
  if (src[pos] !== '*') return false;
  const isUser = src[pos + 1] === '*';
  const open = isUser ? 2 : 1;
  const close = src.indexOf(isUser ? '**' : '*', pos + open);
  if (close < 0 || close > state.posMax) return false;
  const text = src.slice(pos + open, close);
  if (text === '' || text.includes('*')) return false;
  const env = state.env as Env;
  const html = isUser ? userMentionHtml(env, text, isSilent) : groupMentionHtml(env, text, isSilent);
  if (html === undefined) return false;
  if (!silent) pushHtml(state, html);
  state.pos = close + open;
  return true;
}

/** How a rendered message opens a (non-silent) mention of user `userId`: what marks the user as mentioned in it. */
export const userMentionOpening = (userId: number, silent = false): string => `<span class="user-mention${silent ? ' silent' : ''}" data-user-id="${userId}">`;

const MENTION_OPENINGS = new RegExp(userMentionOpening(0).replace('"0"', '"(\\d+)"'), 'g');

/** The users a rendered message mentions (not silently): those with a userMentionOpening in it. */
export const mentionedUserIdsIn = (rendered: string): number[] => [...rendered.matchAll(MENTION_OPENINGS)].map((m) => Number(m[1]));

function userMentionHtml(env: Env, text: string, isSilent: boolean): string | undefined {
  const silentClass = isSilent ? ' silent' : '';
  const prefix = isSilent ? '' : '@';
  if (STREAM_WILDCARDS.has(text)) {
    if (!isSilent) env.result.streamWildcard = true;
    return `<span class="user-mention channel-wildcard-mention${silentClass}" data-user-id="*">${prefix}${escapeHtml(text)}</span>`;
  }
  if (text === 'topic') {
    if (!isSilent) env.result.topicWildcard = true;
    return `<span class="topic-mention${silentClass}">${prefix}topic</span>`;
  }
  const user = userByMention(env.db, text);
  if (!user) return undefined;
  if (!isSilent) env.result.mentionedUserIds.add(user.id);
  return `${userMentionOpening(user.id, isSilent)}${prefix}${escapeHtml(user.full_name)}</span>`;
}

function groupMentionHtml(env: Env, name: string, isSilent: boolean): string | undefined {
  // System groups (`role:*`) cannot be mentioned, as on a Zulip server by default.
  const group = statement(env.db, 'SELECT id, name FROM user_groups WHERE name = ? AND is_system_group = 0 AND deactivated = 0').get(name) as
    | { id: number; name: string }
    | undefined;
  if (!group) return undefined;
  if (!isSilent) env.result.mentionedGroupIds.add(group.id);
  return `<span class="user-group-mention${isSilent ? ' silent' : ''}" data-user-group-id="${group.id}">${isSilent ? '' : '@'}${escapeHtml(group.name)}</span>`;
}

// ---------------------------------------------------------------------------------------------------
// #**channel** and #**channel>topic**

/** A URL fragment component as a Zulip server writes it in narrow links. */
export function encodeHashComponent(value: string): string {
  const quoted = [...new TextEncoder().encode(value)]
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9_.\-~*]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
  return quoted.replace(/\./g, '%2E').replace(/%/g, '.');
}

export const channelNarrowPath = (id: number, name: string): string => `/#narrow/channel/${id}-${encodeHashComponent(name.replace(/ /g, '-'))}`;

function channelLinkRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x23 /* # */ || src[start + 1] !== '*' || src[start + 2] !== '*' || !precededOk(state)) return false;
  const close = src.indexOf('**', start + 3);
  if (close < 0 || close > state.posMax) return false;
  const inner = src.slice(start + 3, close);
  if (inner === '' || inner.includes('*')) return false;
  const gt = inner.indexOf('>');
  const channelName = gt < 0 ? inner : inner.slice(0, gt);
  const env = state.env as Env;
  const channel = statement(
    env.db,
    `SELECT s.id, s.name FROM streams s WHERE s.name = ? COLLATE NOCASE
         AND (s.invite_only = 0 OR EXISTS (SELECT 1 FROM subscriptions WHERE stream_id = s.id AND user_id = ? AND active = 1))`,
  ).get(channelName, env.senderId ?? -1) as { id: number; name: string } | undefined;
  if (!channel) return false;
  if (!silent) {
    const base = channelNarrowPath(channel.id, channel.name);
    if (gt < 0) {
      pushHtml(state, `<a class="stream" data-stream-id="${channel.id}" href="${base}">#${escapeHtml(channel.name)}</a>`);
    } else {
      const topic = inner.slice(gt + 1);
      pushHtml(
        state,
        `<a class="stream-topic" data-stream-id="${channel.id}" href="${base}/topic/${encodeHashComponent(topic)}">#${escapeHtml(channel.name)} &gt; ${escapeHtml(topic)}</a>`,
      );
    }
  }
  state.pos = close + 2;
  return true;
}

// ---------------------------------------------------------------------------------------------------
// :emoji:

function emojiRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x3a /* : */) return false;
  if (start > 0 && /\w/.test(src[start - 1]!)) return false;
  const m = /^:([\w\-+]+):(?!\w)/.exec(src.slice(start, state.posMax));
  if (!m) return false;
  const name = m[1]!;
  const env = state.env as Env;
  const title = escapeHtml(name.replace(/_/g, ' '));
  let html: string | undefined;
  const custom = statement(env.db, 'SELECT id, file_name FROM realm_emoji WHERE name = ? AND deactivated = 0').get(name) as
    | { id: number; file_name: string }
    | undefined;
  if (custom) {
    html = `<img alt=":${escapeHtml(name)}:" class="emoji" src="${realmEmojiSourceUrl(custom.file_name)}" title="${title}">`;
  } else if (name === ZULIP_EXTRA_EMOJI) {
    html = `<img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip">`;
  } else {
    const code = unicodeEmojiCode(name);
    if (code) html = `<span aria-label="${title}" class="emoji emoji-${code}" role="img" title="${title}">:${escapeHtml(name)}:</span>`;
  }
  if (!html) return false;
  if (!silent) pushHtml(state, html);
  state.pos = start + m[0].length;
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Linkifiers

/** Expands an RFC 6570 level-1 template (`{name}`, each value percent-encoded). */
export function expandUrlTemplate(template: string, values: Record<string, string | undefined>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(values[name] ?? '').replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  );
}

function compileLinkifiers(db: Db): CompiledLinkifier[] {
  const rows = statement(db, 'SELECT pattern, url_template FROM linkifiers ORDER BY "order", id').all() as { pattern: string; url_template: string }[];
  const out: CompiledLinkifier[] = [];
  for (const row of rows) {
    const compiled = compilePattern(row.pattern);
    // The same boundaries as a Zulip server (`prepare_linkifier_pattern`): after start, space or opening
    // punctuation; then the end or a character that is neither a letter nor a digit.
    const wrapped = 'error' in compiled ? compiled : compileRe2(`(^|\\s|['"(,:<])(${row.pattern})($|[^\\pL\\pN])`);
    // A pattern the engine cannot compile links nothing rather than breaking every message.
    if ('error' in wrapped || 'error' in compiled) continue;
    out.push({ regex: wrapped.regex, groups: compiled.groups, urlTemplate: row.url_template });
  }
  return out;
}

interface LinkMatch {
  start: number;
  end: number;
  url: string;
}

/**
 * A message whose linkifiers take too long, refused as a Zulip server refuses one its renderer gave up on
 * (zerver/actions/message_send.py: MarkdownRenderingError becomes this error).
 */
const unrenderable = (): ApiError => badRequest('Unable to render message');

/** Time the searches after a linkifier's first match in a text may still take, in ms. */
interface SearchBudget {
  leftMs: number;
}

/**
 * Non-overlapping linkifier matches in `text`; an earlier linkifier wins an overlap. One search is linear in
 * `text`, but every match starts another, and a pattern can make each of them run to the end of the text
 * (`a(.*c)?` over `a a a ...`: 3.3 s for 10,000 characters, all of it holding every other request). The
 * searches after a first match are timed against `budget`: past it the message is refused. The first search
 * of each linkifier is left out, so a long text is never refused for its length alone.
 */
function linkifierMatches(linkifiers: CompiledLinkifier[], text: string, budget: SearchBudget = { leftMs: Number.POSITIVE_INFINITY }): LinkMatch[] {
  const taken: LinkMatch[] = [];
  for (const l of linkifiers) {
    const m = l.regex.matcher(text);
    let from = 0;
    // A search from the very end could only find an empty link, which links nothing.
    for (let first = true; from < text.length; first = false) {
      const began = performance.now();
      const found = m.find(from);
      if (!first) {
        budget.leftMs -= performance.now() - began;
        if (budget.leftMs < 0) throw unrenderable();
      }
      if (!found) break;
      const start = m.start(2);
      const end = m.end(2);
      // The character after a match may be the one before the next, so the search resumes at the link's end.
      from = end > m.start() ? end : m.start() + 1;
      if (start === end || taken.some((t) => start < t.end && end > t.start)) continue;
      const values: Record<string, string | undefined> = {};
      for (const name of l.groups) values[name] = m.group(name) ?? undefined;
      taken.push({ start, end, url: expandUrlTemplate(l.urlTemplate, values) });
    }
  }
  return taken.sort((a, b) => a.start - b.start);
}

function linkifierRule(state: StateCore): void {
  const env = state.env as Env;
  if (env.linkifiers.length === 0) return;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    let linkDepth = 0;
    for (const token of block.children) {
      if (token.type === 'link_open') linkDepth++;
      if (token.type === 'link_close') linkDepth--;
      if (token.type !== 'text' || linkDepth > 0) {
        out.push(token);
        continue;
      }
      const matches = linkifierMatches(env.linkifiers, token.content, env.budget);
      if (matches.length === 0) {
        out.push(token);
        continue;
      }
      let at = 0;
      const text = (content: string) => {
        const t = new state.Token('text', '', 0);
        t.content = content;
        out.push(t);
      };
      for (const m of matches) {
        if (m.start > at) text(token.content.slice(at, m.start));
        // Only the href, as a Zulip server writes every link (zerver/lib/markdown/__init__.py url_to_a).
        const open = new state.Token('link_open', 'a', 1);
        open.attrs = [['href', m.url]];
        out.push(open);
        text(token.content.slice(m.start, m.end));
        out.push(new state.Token('link_close', 'a', -1));
        at = m.end;
      }
      if (at < token.content.length) text(token.content.slice(at));
    }
    block.children = out;
  }
}

/**
 * A Markdown link with no text, or only spaces, shows its URL, as on a Zulip server
 * (zerver/lib/markdown/__init__.py LinkInlineProcessor.zulip_specific_link_changes).
 */
function emptyLinkRule(state: StateCore): void {
  for (const block of state.tokens) {
    const children = block.children;
    if (block.type !== 'inline' || !children) continue;
    for (let i = 0; i < children.length; i++) {
      const open = children[i]!;
      if (open.type !== 'link_open') continue;
      let close = i + 1;
      while (close < children.length && children[close]!.type === 'text' && children[close]!.content.trim() === '') close++;
      if (children[close]?.type !== 'link_close') continue;
      const text = new state.Token('text', '', 0);
      text.content = open.attrGet('href') ?? '';
      children.splice(i + 1, close - i - 1, text);
    }
  }
}

/** A function giving the links of topic names (linkifier matches and bare URLs, in order), linkifiers read once. */
export function topicLinker(db: Db): (topic: string) => TopicLink[] {
  const linkifiers = compileLinkifiers(db);
  return (topic) => {
    if (topic === '') return [];
    const found = linkifierMatches(linkifiers, topic).map((m) => ({ ...m, text: topic.slice(m.start, m.end) }));
    for (const m of topic.matchAll(/https?:\/\/[^\s<>"]+/g)) {
      const start = m.index;
      const end = start + m[0].length;
      if (!found.some((f) => start < f.end && end > f.start)) found.push({ start, end, url: m[0], text: m[0] });
    }
    return found.sort((a, b) => a.start - b.start).map(({ text, url }) => ({ text, url }));
  };
}

export const topicLinks = (db: Db, topic: string): TopicLink[] => topicLinker(db)(topic);
