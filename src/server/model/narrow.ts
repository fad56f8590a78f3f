/**
 * Narrows (message filters) as SQL, and the anchor/range walk over them, shared by GET /messages and
 * POST /messages/flags/narrow. Operators, operand checks and `BAD_NARROW` messages are a Zulip server's;
 * `search` is a case-insensitive substring match of every word in the content or topic (no full-text
 * stemming or ranking).
 *
 * A narrow searches the caller's own message history (their `user_messages` rows), except when it names a
 * channel whose whole history the caller may read (or `channels:public`): then every message of it counts,
 * with `read` + `historical` flags where the caller has no copy, as on a Zulip server.
 */
import { ApiError, badRequest } from '../../api/errors.js';
import { escapeHtml } from '../../html.js';
import type { Db } from '../store/db.js';
import { streamById, streamByName, type StreamRow } from './channels.js';
import { keptChannel } from './kept-channels.js';
import { FLAG_BITS, FLAG_SPAN } from './flags.js';
import { canAccessChannelHistory, type MessageRow } from './message-access.js';
import { canonicalTopic, LARGER_THAN_MAX_MESSAGE_ID, membersKey, userByApiEmail } from './messages.js';
import { RESOLVED_TOPIC_PREFIX } from './resolved-topic.js';
import { isGuest, userById, type UserRow } from './users.js';
import { limitClause } from '../store/limit-clause.js';

export interface NarrowTerm {
  operator: string;
  operand: string | number | number[];
  negated: boolean;
}

/** `BAD_NARROW`, with the description also as the `desc` field. */
const badNarrow = (desc: string): ApiError => new ApiError(`Invalid narrow operator: ${desc}`, 'BAD_NARROW', 400, { desc });

const CHANNEL_OPERATORS = new Set(['channel', 'stream']);
const CHANNELS_OPERATORS = new Set(['channels', 'streams']);
const ID_OPERATORS = new Set([...CHANNEL_OPERATORS, 'id', 'sender', 'group-pm-with', 'dm-including', 'with']);
const IDS_OPERATORS = new Set(['dm', 'pm-with']);

/** Python's str() of an operand, as the server's messages print it. */
const show = (operand: NarrowTerm['operand']): string => (Array.isArray(operand) ? `[${operand.join(', ')}]` : String(operand));

/** Checks the decoded `narrow` parameter term by term, with the server's messages. */
export function parseNarrow(raw: readonly unknown[]): NarrowTerm[] {
  return raw.map((elem, i) => {
    const invalid = (why: string) => badRequest(`Invalid narrow[${i}]: Value error, ${why}`);
    let term: { operator: unknown; operand: unknown; negated: unknown };
    if (Array.isArray(elem)) {
      if (elem.length !== 2 || elem.some((x) => typeof x !== 'string')) throw invalid('element is not a string pair');
      term = { operator: elem[0], operand: elem[1], negated: false };
    } else if (elem !== null && typeof elem === 'object') {
      const o = elem as Record<string, unknown>;
      if (o.operand === undefined || o.operand === null) throw invalid('operand is missing');
      if (o.operator === undefined || o.operator === null) throw invalid('operator is missing');
      term = { operator: o.operator, operand: o.operand, negated: o.negated ?? false };
    } else {
      throw invalid('dict or list required');
    }
    const { operator, operand, negated } = term;
    if (typeof operator !== 'string') throw badRequest('operator is not a string');
    if (ID_OPERATORS.has(operator)) {
      if (typeof operand !== 'string' && !Number.isInteger(operand)) throw badRequest('operand is not a string or an integer');
    } else if (IDS_OPERATORS.has(operator)) {
      if (typeof operand !== 'string' && !(Array.isArray(operand) && operand.every((x) => Number.isInteger(x)))) {
        throw badRequest('operand is not a string or an integer list');
      }
    } else {
      if (typeof operand !== 'string') throw badRequest('operand is not a string');
      if (operator === 'search' && operand.trim() === '') throw badRequest('operand cannot be blank');
    }
    if (typeof negated !== 'boolean') throw badRequest('negated is not a boolean');
    return { operator, operand: operand as NarrowTerm['operand'], negated };
  });
}

export interface NarrowQuery {
  /** FROM clause: `m` is the message, `um` the caller's copy (null in history mode without one). */
  from: string;
  where: string;
  params: unknown[];
  /** The parameters of `where` alone (`params` has the caller's ID first in history mode, for the join). */
  whereParams: unknown[];
  /**
   * Every message of an accessible channel counts, not only the caller's copies: the join is then for flags
   * alone (no condition reads the caller's copy: flag operators turn history off).
   */
  includeHistory: boolean;
  /** The words of `search` terms, for highlighting. */
  searchWords: string[];
  /** The channel the narrow names, if any (muting then ignores channel mutes). */
  channelId: number | null;
}

/** The caller's flags on a message of which they have no copy: one they may read in a channel's history. */
const NO_COPY_FLAGS = FLAG_BITS.read | FLAG_BITS.historical;

/** The caller's flags on a row of a narrow query. */
export const FLAGS_SQL = `coalesce(um.flags, ${NO_COPY_FLAGS})`;

const MENTION_BITS = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned | FLAG_BITS.group_mentioned;

/**
 * A message's ID and flags read as one number, `id * FLAG_SPAN + flags` (unpacked by `flaggedOf`): better-sqlite3
 * makes an array for each row of two columns, which made reading the caller's flags on 20 messages cost twice
 * what reading them as one number each does. Exact: IDs stay below ID_SPAN (2^44, store/changes.ts), flags below
 * FLAG_SPAN.
 */
const flaggedSql = (idSql: string, flagsSql: string): string => `${idSql} * ${FLAG_SPAN} + ${flagsSql}`;
const idOf = (packed: number): number => Math.floor(packed / FLAG_SPAN);
const flaggedOf = (packed: number): Flagged => [idOf(packed), packed % FLAG_SPAN];

interface Cond {
  sql: string;
  params: unknown[];
}

const likeEscape = (s: string): string => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Hides muted channels (unless the narrow names one) and muted topics: first_unread and `in:home` skip them. */
export function mutingCondition(viewer: UserRow, channelId: number | null): Cond {
  const mutedTopic = `EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = ? AND ut.stream_id = m.stream_id AND ut.topic = m.topic AND ut.visibility_policy = 1)`;
  if (channelId !== null) return { sql: `NOT (m.type = 'stream' AND ${mutedTopic})`, params: [viewer.id] };
  const mutedChannel = `(EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ? AND s.stream_id = m.stream_id AND s.is_muted = 1)
      AND NOT EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = ? AND ut.stream_id = m.stream_id AND ut.topic = m.topic AND ut.visibility_policy IN (2, 3)))`;
  return { sql: `NOT (m.type = 'stream' AND (${mutedTopic} OR ${mutedChannel}))`, params: [viewer.id, viewer.id, viewer.id] };
}

/** A channel a narrow names, by ID or name: looked up once per narrow, though the terms and the history rule both ask. */
type ChannelOf = (operand: unknown) => StreamRow | undefined;

function channelLookup(db: Db, keptAt: number | undefined): ChannelOf {
  const found = new Map<unknown, StreamRow | undefined>();
  const read = (operand: number | string) =>
    keptAt !== undefined ? keptChannel(db, operand, keptAt) : typeof operand === 'number' ? streamById(db, operand) : streamByName(db, operand);
  return (operand) => {
    if (!found.has(operand)) found.set(operand, typeof operand === 'number' || typeof operand === 'string' ? read(operand) : undefined);
    return found.get(operand);
  };
}

class NarrowBuilder {
  private channelSeen = false;
  private dmSeen = false;
  readonly searchWords: string[] = [];
  channelId: number | null = null;

  constructor(
    private readonly db: Db,
    private readonly viewer: UserRow,
    private readonly channelOf: ChannelOf,
  ) {}

  private kind(term: NarrowTerm, kind: 'channel' | 'dm'): void {
    if (term.negated) return;
    if (kind === 'channel') this.channelSeen = true;
    else this.dmSeen = true;
    if (this.channelSeen && this.dmSeen) throw badNarrow('No message can be both a channel message and direct message');
  }

  private user(operand: string | number): UserRow | undefined {
    return typeof operand === 'number' ? userById(this.db, operand) : userByApiEmail(this.db, operand);
  }

  term(term: NarrowTerm): Cond {
    const { operand } = term;
    switch (term.operator) {
      case 'channel':
      case 'stream': {
        this.kind(term, 'channel');
        const channel = this.channelOf(operand);
        if (!channel) throw badNarrow(`unknown channel ${show(operand)}`);
        if (!term.negated) this.channelId = channel.id;
        // Only a channel message has a channel, and IS is never NULL (so NOT keeps direct messages): the
        // channel's messages, read from the index on (stream_id, id) alone.
        return { sql: `m.stream_id IS ?`, params: [channel.id] };
      }
      case 'channels':
      case 'streams': {
        this.kind(term, 'channel');
        if (operand === 'public') return { sql: `m.stream_id IN (SELECT id FROM streams WHERE invite_only = 0)`, params: [] };
        if (operand === 'web-public') return { sql: `m.stream_id IN (SELECT id FROM streams WHERE is_web_public = 1)`, params: [] };
        throw badNarrow(`unknown channels operand ${show(operand)}`);
      }
      case 'topic':
        this.kind(term, 'channel');
        return { sql: `m.type = 'stream' AND m.topic = ? COLLATE NOCASE`, params: [canonicalTopic(this.db, String(operand))] };
      case 'sender': {
        const user = typeof operand === 'object' ? undefined : this.user(operand);
        if (!user) throw badNarrow(`unknown user ${show(operand)}`);
        return { sql: 'm.sender_id = ?', params: [user.id] };
      }
      case 'dm':
      case 'pm-with':
        this.kind(term, 'dm');
        return this.dm(operand);
      case 'dm-including':
      case 'group-pm-with': {
        this.kind(term, 'dm');
        const user = typeof operand === 'object' ? undefined : this.user(operand);
        if (!user) throw badNarrow(`unknown user ${show(operand)}`);
        const group = term.operator === 'group-pm-with' ? ` AND length(members) - length(replace(members, ',', '')) >= 2` : '';
        return {
          sql: `m.type = 'private' AND m.recipient_id IN (SELECT id FROM recipients WHERE members IS NOT NULL AND (',' || members || ',') LIKE ?${group})`,
          params: [`%,${user.id},%`],
        };
      }
      case 'is':
        return this.is(term);
      case 'has':
        return this.has(String(operand));
      case 'in':
        if (operand === 'all') return { sql: '1', params: [] };
        if (operand === 'home') return mutingCondition(this.viewer, null);
        throw badNarrow(`unknown 'in' operand ${show(operand)}`);
      case 'near':
        return { sql: '1', params: [] };
      case 'id': {
        const id = String(operand);
        if (!/^\d+$/.test(id) || Number(id) > LARGER_THAN_MAX_MESSAGE_ID) throw badNarrow('Invalid message ID');
        return { sql: 'm.id = ?', params: [Number(id)] };
      }
      case 'search': {
        const words = String(operand)
          .split(/\s+/)
          .filter((w) => w !== '');
        if (!term.negated) this.searchWords.push(...words);
        // Every word in the content or the topic. The words travel as one JSON parameter: a pasted paragraph
        // as one condition per word would pass SQLite's limits on expression depth and parameters.
        return {
          sql: `NOT EXISTS (SELECT 1 FROM json_each(?) w WHERE NOT (m.content LIKE w.value ESCAPE '\\' OR m.topic LIKE w.value ESCAPE '\\'))`,
          params: [JSON.stringify([...new Set(words)].map(likeEscape))],
        };
      }
      default:
        throw badNarrow(`unknown operator ${term.operator}`);
    }
  }

  private dm(operand: NarrowTerm['operand']): Cond {
    const none = { sql: '0', params: [] };
    const wanted =
      typeof operand === 'string'
        ? operand
            .split(',')
            .map((e) => e.trim())
            .filter((e) => e !== '')
        : Array.isArray(operand)
          ? operand
          : [operand];
    if (wanted.length === 0) return none;
    const ids: number[] = [];
    for (const w of wanted) {
      const user = this.user(w);
      if (!user) throw badNarrow(`unknown user in ${show(operand)}`);
      ids.push(user.id);
    }
    const recipient = this.db.prepare('SELECT id FROM recipients WHERE members = ?').get(membersKey([...ids, this.viewer.id])) as { id: number } | undefined;
    return recipient ? { sql: 'm.recipient_id = ?', params: [recipient.id] } : none;
  }

  private is(term: NarrowTerm): Cond {
    const bit = (mask: number, set: boolean) => ({ sql: `(${FLAGS_SQL} & ${mask}) ${set ? '!=' : '='} 0`, params: [] });
    switch (term.operand) {
      case 'dm':
      case 'private':
        // A negated is:dm means channel messages.
        if (term.negated) this.kind({ ...term, negated: false }, 'channel');
        else this.kind(term, 'dm');
        return { sql: `m.type = 'private'`, params: [] };
      case 'starred':
        return bit(FLAG_BITS.starred, true);
      case 'unread':
        return bit(FLAG_BITS.read, false);
      case 'mentioned':
        return bit(MENTION_BITS, true);
      case 'alerted':
        return bit(FLAG_BITS.has_alert_word, true);
      case 'resolved':
        return { sql: `m.type = 'stream' AND m.topic LIKE ?`, params: [`${RESOLVED_TOPIC_PREFIX}%`] };
      case 'followed':
        return {
          sql: `m.type = 'stream' AND EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = ? AND ut.stream_id = m.stream_id AND ut.topic = m.topic AND ut.visibility_policy = 3)`,
          params: [this.viewer.id],
        };
      default:
        throw badNarrow(`unknown 'is' operand ${show(term.operand)}`);
    }
  }

  private has(operand: string): Cond {
    switch (operand) {
      case 'attachment':
        return { sql: 'EXISTS (SELECT 1 FROM attachment_messages am WHERE am.message_id = m.id)', params: [] };
      case 'link':
        return { sql: `m.rendered_content LIKE '%<a %'`, params: [] };
      case 'image':
        return { sql: `m.rendered_content LIKE '%<img src=%'`, params: [] };
      case 'reaction':
        return { sql: 'EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)', params: [] };
      default:
        throw badNarrow(`unknown 'has' operand ${operand}`);
    }
  }
}

/** Whether the narrow may see messages the caller never received (Zulip's ok_to_include_history). */
function includesHistory(db: Db, viewer: UserRow, terms: readonly NarrowTerm[], channelOf: ChannelOf): boolean {
  let include = false;
  for (const t of terms) {
    if (CHANNEL_OPERATORS.has(t.operator) && !t.negated) {
      const channel = channelOf(t.operand);
      include = channel !== undefined && canAccessChannelHistory(db, viewer, channel);
    } else if (CHANNELS_OPERATORS.has(t.operator) && t.operand === 'public' && !t.negated && !isGuest(viewer)) {
      include = true;
    }
  }
  // Flags live on the caller's copies: there are no historical messages with them.
  if (terms.some((t) => t.operator === 'is' && t.operand !== 'resolved' && t.operand !== 'followed')) include = false;
  return include;
}

/**
 * Conditions joined by AND as a balanced tree: a flat chain is nested as deep as it is long, and SQLite
 * refuses expressions deeper than 1000, which a narrow of many terms reaches.
 */
function allOf(conds: readonly Cond[]): Cond {
  if (conds.length === 1) return conds[0]!;
  const half = Math.ceil(conds.length / 2);
  const left = allOf(conds.slice(0, half));
  const right = allOf(conds.slice(half));
  return { sql: `(${left.sql}) AND (${right.sql})`, params: [...left.params, ...right.params] };
}

/**
 * The query of a narrow as `viewer` reads it. `keptAt`: the change log's newest change, synced in this
 * transaction (a GET's), for channels to come from those kept (kept-channels.ts).
 */
export function narrowQuery(db: Db, viewer: UserRow, terms: readonly NarrowTerm[], keptAt?: number): NarrowQuery {
  const channelOf = channelLookup(db, keptAt);
  const builder = new NarrowBuilder(db, viewer, channelOf);
  const conds = terms.map((t) => {
    const c = builder.term(t);
    return t.negated ? { sql: `NOT (${c.sql})`, params: c.params } : { sql: `(${c.sql})`, params: c.params };
  });
  const includeHistory = includesHistory(db, viewer, terms, channelOf);
  const from = includeHistory
    ? 'messages m LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = ?'
    : 'user_messages um JOIN messages m ON m.id = um.message_id';
  const base: Cond = includeHistory ? { sql: '1', params: [] } : { sql: 'um.user_id = ?', params: [viewer.id] };
  const where = allOf([base, ...conds]);
  return {
    from,
    where: where.sql,
    params: [...(includeHistory ? [viewer.id] : []), ...where.params],
    whereParams: where.params,
    includeHistory,
    searchWords: builder.searchWords,
    channelId: builder.channelId,
  };
}

export type Anchor = number | 'first_unread';

/**
 * An anchor parameter as a Zulip server reads it: `newest` / `oldest` / `first_unread` or an integer, clamped
 * to [0, 10^16]; `Missing 'anchor' argument.` / `Invalid anchor` otherwise.
 */
export function parseAnchor(raw: string | undefined): Anchor {
  if (raw === undefined) throw badRequest("Missing 'anchor' argument.");
  if (raw === 'oldest') return 0;
  if (raw === 'newest') return LARGER_THAN_MAX_MESSAGE_ID;
  if (raw === 'first_unread') return 'first_unread';
  if (!/^\s*[+-]?\d+\s*$/.test(raw)) throw badRequest('Invalid anchor');
  const n = Number(raw);
  return Math.min(Math.max(n, 0), LARGER_THAN_MAX_MESSAGE_ID);
}

export interface RangeRequest {
  anchor: Anchor;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
}

/** A message's ID and the viewer's flags on it. */
export type Flagged = [id: number, flags: number];

export interface RangeResult {
  /** Ascending message IDs. */
  ids: number[];
  /** The same, each with the viewer's flags. */
  flagged: Flagged[];
  anchor: number;
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
}

/** The oldest unread message of the narrow (muted conversations skipped), else the newest-anchor. */
function firstUnread(db: Db, viewer: UserRow, q: NarrowQuery): number {
  const mute = mutingCondition(viewer, q.channelId);
  const row = db
    .prepare(`SELECT m.id FROM ${q.from} WHERE ${q.where} AND (${FLAGS_SQL} & ${FLAG_BITS.read}) = 0 AND ${mute.sql} ORDER BY m.id LIMIT 1`)
    .get(...q.params, ...mute.params) as { id: number } | undefined;
  return row?.id ?? LARGER_THAN_MAX_MESSAGE_ID;
}

/** The messages of `ids` that match the narrow, with the viewer's flags, in ID order. */
export const messagesInNarrow = (db: Db, q: NarrowQuery, ids: readonly number[]): (MessageRow & { viewer_flags: number })[] =>
  db
    .prepare<unknown[], MessageRow & { viewer_flags: number }>(
      `SELECT m.*, ${FLAGS_SQL} AS viewer_flags FROM ${q.from} WHERE ${q.where} AND m.id IN (SELECT value FROM json_each(?)) ORDER BY m.id`,
    )
    .all(...q.params, JSON.stringify(ids));

/** The messages of `ids` that match the narrow, each with the viewer's flags, in ID order. */
export const flaggedInNarrow = (db: Db, q: NarrowQuery, ids: readonly number[]): Flagged[] =>
  db
    .prepare<unknown[], number>(
      `SELECT ${flaggedSql('m.id', FLAGS_SQL)} FROM ${q.from} WHERE ${q.where} AND m.id IN (SELECT value FROM json_each(?)) ORDER BY m.id`,
    )
    .pluck()
    .all(...q.params, JSON.stringify(ids))
    .map(flaggedOf);

/** Walks `numBefore` messages before and `numAfter` after the anchor, with the found_* flags of a Zulip server. */
export function fetchRange(db: Db, viewer: UserRow, q: NarrowQuery, r: RangeRequest): RangeResult {
  const anchor = r.anchor === 'first_unread' ? firstUnread(db, viewer, q) : r.anchor;
  const anchoredToLeft = anchor === 0;
  const anchoredToRight = anchor >= LARGER_THAN_MAX_MESSAGE_ID;
  const numAfter = anchoredToRight ? 0 : r.numAfter;
  const parts = <T>(read: (sql: string, anchorId: number) => T[]): { before: T[]; at: T[]; after: T[] } => ({
    before: r.numBefore > 0 ? read(`m.id < ? ORDER BY m.id DESC ${limitClause(r.numBefore)}`, anchor).reverse() : [],
    at: r.includeAnchor && !anchoredToRight ? read('m.id = ?', anchor) : [],
    after: numAfter > 0 ? read(`m.id > ? ORDER BY m.id ASC ${limitClause(numAfter)}`, anchor) : [],
  });
  let found: { before: unknown[]; at: unknown[]; after: unknown[] };
  let flagged: Flagged[];
  if (q.includeHistory) {
    // The messages are found by the narrow alone and the caller's copies read after, in one go (historyFlags):
    // a join looked each copy up by itself, most of them absent for a reader of a channel's history, and was
    // most of the query's time.
    const ids = parts((sql, anchorId) =>
      db
        .prepare<unknown[], number>(`SELECT m.id FROM messages m WHERE ${q.where} AND ${sql}`)
        .pluck()
        .all(...q.whereParams, anchorId),
    );
    found = ids;
    flagged = historyFlags(db, viewer.id, [...ids.before, ...ids.at, ...ids.after]);
  } else {
    const rows = parts((sql, anchorId) =>
      db
        .prepare<unknown[], number>(`SELECT ${flaggedSql('m.id', FLAGS_SQL)} FROM ${q.from} WHERE ${q.where} AND ${sql}`)
        .pluck()
        .all(...q.params, anchorId),
    );
    found = rows;
    flagged = [...rows.before, ...rows.at, ...rows.after].map(flaggedOf);
  }
  return {
    ids: flagged.map(([id]) => id),
    flagged,
    anchor,
    foundAnchor: found.at.length === 1,
    foundOldest: anchoredToLeft || found.before.length < r.numBefore,
    foundNewest: anchoredToRight || found.after.length < numAfter,
  };
}

/** Copies a caller has in the span of a range, read in one go at most: past that, they are looked up one by one. */
const COPIES_PER_MESSAGE = 4;

/**
 * The caller's flags on messages `ids` (ascending): their copies in the span the IDs cover, read as one range
 * of their own rows while that holds at most COPIES_PER_MESSAGE for each message asked (a caller in a busy channel
 * has many between two messages of a quiet one: those are then looked up by ID), NO_COPY_FLAGS where none.
 */
function historyFlags(db: Db, viewerId: number, ids: readonly number[]): Flagged[] {
  if (!ids.length) return [];
  const most = COPIES_PER_MESSAGE * ids.length;
  const copy = flaggedSql('message_id', 'flags');
  let copies = db
    .prepare<[number, number, number], number>(
      `SELECT ${copy} FROM user_messages WHERE user_id = ? AND message_id BETWEEN ? AND ? ORDER BY message_id ${limitClause(most + 1)}`,
    )
    .pluck()
    .all(viewerId, ids[0]!, ids.at(-1)!);
  if (copies.length > most) {
    copies = db
      .prepare<[number, string], number>(
        `SELECT ${copy} FROM user_messages WHERE user_id = ? AND message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id`,
      )
      .pluck()
      .all(viewerId, JSON.stringify(ids));
  }
  // Both in ID order: each message's copy, if any, is the next one not before it.
  let next = 0;
  return ids.map((id): Flagged => {
    while (next < copies.length && idOf(copies[next]!) < id) next++;
    const packed = copies[next];
    return packed !== undefined && idOf(packed) === id ? flaggedOf(packed) : [id, NO_COPY_FLAGS];
  });
}

function highlightText(escapedText: string, words: readonly string[]): string {
  if (words.length === 0) return escapedText;
  const pattern = new RegExp(words.map((w) => escapeHtml(w).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
  return escapedText.replace(pattern, (m) => `<span class="highlight">${m}</span>`);
}

/** `match_content`: the rendered content with each search word highlighted in its text (never in tags). */
export const highlightHtml = (html: string, words: readonly string[]): string =>
  html
    .split(/(<[^>]*>)/)
    .map((part) => (part.startsWith('<') ? part : highlightText(part, words)))
    .join('');

/** `match_subject`: the escaped topic with each search word highlighted. */
export const highlightTopic = (topic: string, words: readonly string[]): string => highlightText(escapeHtml(topic), words);
