/**
 * `--narrow`: the search syntax people type in a Zulip client (`channel:general topic:"release notes"
 * is:unread -sender:ada@example.com`), or the API's own JSON list, into the API's narrow terms.
 *
 * Each word is `operator:operand`; a leading `-` negates it; double or single quotes group a value with
 * spaces (`topic:"release notes"`, `topic:''` is the empty topic); words without an operator are search
 * terms. Operands that name users or channels by ID become integers, as the API wants them; names and
 * e-mail addresses stay strings (the server resolves them).
 */
import type { NarrowTerm } from '../../api/narrow.js';
import { usageError } from '../core/errors.js';

type Term = Extract<NarrowTerm, { operator: string }>;

/**
 * Operators a Zulip server knows, with the older spellings it still accepts. Which servers have which is
 * declared in api/narrow.ts: the client spells a narrow for the server's level or refuses it.
 */
export const NARROW_OPERATORS = [
  'channel',
  'stream',
  'channels',
  'streams',
  'topic',
  'is',
  'sender',
  'dm',
  'pm-with',
  'dm-including',
  'group-pm-with',
  'has',
  'search',
  'id',
  'near',
  'with',
] as const;

/** Spellings people reach for that no server knows, with the operator they mean. */
const MISTAKEN: Record<string, string> = { subject: 'topic' };

function refuseMistaken(operator: string): void {
  const meant = MISTAKEN[operator.toLowerCase()];
  if (meant) throw usageError(`"${operator}:" is not a narrow operator; use "${meant}:"`, HELP);
}

function refuseEmptySearch(operator: string, operand: unknown): void {
  if (operator === 'search' && typeof operand === 'string' && operand.trim() === '') throw usageError('"search:" in --narrow needs words to search for', HELP);
}

/** Operators whose operand may be empty: the empty topic (general chat). */
const EMPTY_ALLOWED = new Set(['topic']);
/** Operators whose digits-only operand is an ID (a user, a channel, a message). */
const ID_OPERAND = new Set(['channel', 'stream', 'sender', 'dm-including', 'group-pm-with', 'id', 'near', 'with']);
/** Operators naming several users, comma-separated: a list of IDs, or e-mail addresses as one string. */
const USER_LIST_OPERAND = new Set(['dm', 'pm-with']);

const HELP = 'e.g. --narrow \'channel:general topic:"release notes" is:unread\', or a JSON list of {"operator", "operand"}';

/** Words of a narrow: split on whitespace outside quotes, quotes removed, `\` escaping inside double quotes. */
function words(text: string): { word: string; quoted: boolean }[] {
  const out: { word: string; quoted: boolean }[] = [];
  let word = '';
  let inWord = false;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      if (inWord) out.push({ word, quoted });
      word = '';
      inWord = false;
      quoted = false;
      continue;
    }
    inWord = true;
    if (c === '"' || c === "'") {
      const end = findClose(text, i + 1, c);
      if (end < 0) throw usageError(`unterminated ${c} quote in --narrow`, HELP);
      const inner = text.slice(i + 1, end);
      word += c === '"' ? inner.replace(/\\(["\\])/g, '$1') : inner;
      quoted = true;
      i = end;
      continue;
    }
    word += c;
  }
  if (inWord) out.push({ word, quoted });
  return out;
}

function findClose(text: string, from: number, quote: string): number {
  for (let i = from; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return -1;
}

function operand(operator: string, value: string): Term['operand'] {
  if (ID_OPERAND.has(operator) && /^\d+$/.test(value)) return Number(value);
  if (USER_LIST_OPERAND.has(operator)) {
    const parts = value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    if (parts.length && parts.every((v) => /^\d+$/.test(v))) return parts.map(Number);
    return parts.join(',');
  }
  return value;
}

function fromWords(text: string): Term[] {
  const terms: Term[] = [];
  const search: string[] = [];
  for (const { word, quoted } of words(text)) {
    const m = /^(-?)([a-z][a-z-]*):([\s\S]*)$/i.exec(word);
    if (!m) {
      search.push(word);
      continue;
    }
    const [, neg, rawOperator, value] = m;
    const operator = rawOperator.toLowerCase();
    refuseMistaken(operator);
    if (!NARROW_OPERATORS.some((o) => o === operator)) {
      throw usageError(`unknown narrow operator "${rawOperator}"`, `operators: ${NARROW_OPERATORS.join(', ')}`);
    }
    refuseEmptySearch(operator, value);
    if (value === '' && !quoted && !EMPTY_ALLOWED.has(operator)) throw usageError(`"${word}" in --narrow needs a value`, HELP);
    const term: Term = { operator, operand: operand(operator, value) };
    if (neg) term.negated = true;
    terms.push(term);
  }
  if (search.length) terms.push({ operator: 'search', operand: search.join(' ') });
  return terms;
}

const isOperand = (v: unknown): v is Term['operand'] =>
  typeof v === 'string' || Number.isInteger(v) || (Array.isArray(v) && v.every((x) => Number.isInteger(x)));

/** A term as the API takes it: [operator, operand] strings, or {"operator", "operand", "negated"?}. */
function isTerm(t: unknown): t is NarrowTerm {
  if (Array.isArray(t)) return t.length === 2 && t.every((x) => typeof x === 'string');
  if (typeof t !== 'object' || t === null || !('operator' in t) || !('operand' in t)) return false;
  const negated = 'negated' in t ? t.negated : undefined;
  return typeof t.operator === 'string' && isOperand(t.operand) && (negated === undefined || typeof negated === 'boolean');
}

function fromJson(text: string): NarrowTerm[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw usageError('--narrow is not valid JSON', HELP);
  }
  if (!Array.isArray(parsed) || !parsed.every(isTerm)) {
    throw usageError('--narrow JSON must be a list of {"operator", "operand", "negated"?} objects or [operator, operand] pairs', HELP);
  }
  const terms: NarrowTerm[] = parsed;
  for (const term of terms) {
    const [operator, operand] = Array.isArray(term) ? term : [term.operator, term.operand];
    refuseMistaken(operator);
    refuseEmptySearch(operator, operand);
  }
  return terms;
}

/** The narrow terms of a `--narrow` value; empty (or absent) is every message. */
export function parseNarrow(text: string | undefined): NarrowTerm[] {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return [];
  return trimmed.startsWith('[') ? fromJson(trimmed) : fromWords(trimmed);
}

/** Whether the narrow already has this (non-negated) term, e.g. `is:unread`. */
export function hasTerm(narrow: readonly NarrowTerm[], operator: string, value: string): boolean {
  return narrow.some((t) => (Array.isArray(t) ? t[0] === operator && t[1] === value : t.operator === operator && t.operand === value && !t.negated));
}
