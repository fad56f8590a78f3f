/**
 * Linkifiers in the store, and their validation as a Zulip server does it: the pattern is a Python-syntax
 * (RE2) regular expression, the URL template an RFC 6570 template, and the named groups of the one must be
 * exactly the variables of the other. Failures carry `errors` ({field: [messages]}), like Django's.
 */
import { ApiError, badRequest } from '../../api/errors.js';
import type { Linkifier } from '../../api/operations/linkifiers.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { compileRe2, type Re2 } from './re2.js';
import { listeningUserIds } from './event-queues.js';

interface LinkifierRow {
  id: number;
  pattern: string;
  url_template: string;
  example_input: string | null;
  reverse_template: string | null;
  alternative_url_templates: string;
  order: number;
}

const toWire = (r: LinkifierRow): Linkifier => ({
  id: r.id,
  pattern: r.pattern,
  url_template: r.url_template,
  example_input: r.example_input,
  reverse_template: r.reverse_template,
  alternative_url_templates: JSON.parse(r.alternative_url_templates) as string[],
});

/** All linkifiers, in the order clients apply them. */
export function listLinkifiers(db: Db): Linkifier[] {
  return (db.prepare('SELECT * FROM linkifiers ORDER BY "order", id').all() as LinkifierRow[]).map(toWire);
}

export interface LinkifierInput {
  pattern: string;
  url_template: string;
  example_input?: string;
  reverse_template?: string;
  alternative_url_templates?: string[];
}

/** Validates a linkifier; `selfId` is the one being replaced (its own pattern is no duplicate). */
function validateLinkifier(db: Db, input: LinkifierInput, selfId?: number): void {
  // Field errors first, then the model-wide ones, in the order Django's full_clean collects them.
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => {
    const list = errors[field] ?? [];
    list.push(msg);
    errors[field] = list;
  };
  const variables = urlTemplateVariables(input.url_template);
  if (!variables) add('url_template', 'Invalid URL template.');
  if ((input.alternative_url_templates ?? []).some((t) => !urlTemplateVariables(t))) {
    add('alternative_url_templates', 'Invalid URL template.');
  }
  const regex = compilePattern(input.pattern);
  if ('error' in regex) {
    add('__all__', `Bad regular expression: ${regex.error}`);
  } else if (variables) {
    const groups = new Set(regex.groups);
    const vars = new Set(variables);
    const missingInPattern = [...vars].filter((v) => !groups.has(v)).sort();
    const missingInTemplate = [...groups].filter((g) => !vars.has(g)).sort();
    if (missingInPattern.length) {
      add('__all__', `Group '${missingInPattern[0]}' in URL template is not present in linkifier pattern.`);
    } else if (missingInTemplate.length) {
      add('__all__', `Group '${missingInTemplate[0]}' in linkifier pattern is not present in URL template.`);
    }
  }
  const duplicate = db.prepare('SELECT id FROM linkifiers WHERE pattern = ?').get(input.pattern) as { id: number } | undefined;
  if (duplicate && duplicate.id !== selfId) add('__all__', 'Realm filter with this Realm and Pattern already exists.');
  const first = Object.values(errors)[0]?.[0];
  if (first) throw new ApiError(first, 'BAD_REQUEST', 400, { errors });
}

const NOT_FOUND = 'Linkifier not found.';

/** The full list to every active user; the empty legacy `realm_filters` event follows, as on a Zulip server. */
function notifyLinkifiers(db: Db, sink: EventSink): void {
  const active = listeningUserIds(db);
  sink.emit({ type: 'realm_linkifiers', realm_linkifiers: listLinkifiers(db) }, active);
  sink.emit({ type: 'realm_filters', realm_filters: [] }, active);
}

/** Validates and adds a linkifier, last in order; returns its ID. */
export function createLinkifier(db: Db, sink: EventSink, input: LinkifierInput): number {
  validateLinkifier(db, input);
  const id = insertLinkifier(db, input);
  notifyLinkifiers(db, sink);
  return id;
}

/** Validates and replaces a linkifier (PATCH's absent fields read as replacementOf says). */
export function replaceLinkifier(db: Db, sink: EventSink, id: number, given: LinkifierInput): void {
  const input = replacementOf(db, id, given);
  if (!input) throw badRequest(NOT_FOUND);
  validateLinkifier(db, input, id);
  updateLinkifierRow(db, id, input);
  notifyLinkifiers(db, sink);
}

export function deleteLinkifier(db: Db, sink: EventSink, id: number): void {
  if (db.prepare('DELETE FROM linkifiers WHERE id = ?').run(id).changes === 0) throw badRequest(NOT_FOUND);
  notifyLinkifiers(db, sink);
}

/** Puts the linkifiers in the given order, which must name each exactly once. */
export function reorderLinkifiers(db: Db, sink: EventSink, ids: readonly number[]): void {
  if (new Set(ids).size < ids.length) throw badRequest('The ordered list must not contain duplicated linkifiers');
  const existing = listLinkifiers(db).map((l) => l.id);
  if (existing.length !== ids.length || !existing.every((id) => ids.includes(id))) {
    throw badRequest('The ordered list must enumerate all existing linkifiers exactly once');
  }
  if (ids.length === 0) return;
  const setOrder = db.prepare('UPDATE linkifiers SET "order" = ? WHERE id = ?');
  for (const [order, id] of ids.entries()) setOrder.run(order, id);
  notifyLinkifiers(db, sink);
}

function insertLinkifier(db: Db, input: LinkifierInput): number {
  const { next } = db.prepare('SELECT coalesce(max("order") + 1, 0) AS next FROM linkifiers').get() as { next: number };
  const info = db
    .prepare(
      `INSERT INTO linkifiers (pattern, url_template, example_input, reverse_template, alternative_url_templates, "order")
       VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .run(
      input.pattern,
      input.url_template,
      input.example_input || null,
      input.reverse_template || null,
      JSON.stringify(input.alternative_url_templates ?? []),
      next,
    );
  return Number(info.lastInsertRowid);
}

/**
 * A replacement as a Zulip server reads PATCH /realm/filters/{id}: the reverse-linkification fields keep
 * their values when absent, and "" removes them. Undefined when there is no such linkifier.
 */
function replacementOf(db: Db, id: number, given: LinkifierInput): LinkifierInput | undefined {
  const row = db.prepare('SELECT * FROM linkifiers WHERE id = ?').get(id) as LinkifierRow | undefined;
  if (!row) return undefined;
  const current = toWire(row);
  const text = (v: string | undefined, was: string | null) => (v === undefined ? (was ?? undefined) : v || undefined);
  return {
    pattern: given.pattern,
    url_template: given.url_template,
    example_input: text(given.example_input, current.example_input),
    reverse_template: text(given.reverse_template, current.reverse_template),
    alternative_url_templates: given.alternative_url_templates ?? current.alternative_url_templates,
  };
}

function updateLinkifierRow(db: Db, id: number, input: LinkifierInput): void {
  db.prepare(
    `UPDATE linkifiers SET pattern = ?, url_template = ?, example_input = ?, reverse_template = ?, alternative_url_templates = ?
     WHERE id = ?`,
  ).run(
    input.pattern,
    input.url_template,
    input.example_input || null,
    input.reverse_template || null,
    JSON.stringify(input.alternative_url_templates ?? []),
    id,
  );
}

// Sticky, so the scan stays linear in the pattern's length.
const CLASS_LEAD = /\[\^?\]?/y;
const PERL_OPERATOR = /\(\?(=|!|<=|<!|P=)/y;

/**
 * Compiles a Python/RE2-syntax pattern with the RE2 engine (re2.ts). Lookarounds and backreferences are
 * refused first, in the words RE2 itself uses for them (RE2/J words them differently).
 */
export function compilePattern(pattern: string): { regex: Re2; groups: string[] } | { error: string } {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return { error: `invalid escape sequence: \\${next}` };
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      // A `]` right after `[` or `[^` is a literal member, not the end of the class.
      CLASS_LEAD.lastIndex = i;
      i += CLASS_LEAD.exec(pattern)![0].length - 1;
      continue;
    }
    PERL_OPERATOR.lastIndex = i;
    const perl = PERL_OPERATOR.exec(pattern);
    if (perl) {
      return { error: perl[1] === 'P=' ? 'invalid named capture group: (?P=' : `invalid perl operator: (?${perl[1]}` };
    }
  }
  const compiled = compileRe2(pattern);
  if ('error' in compiled) return compiled;
  return { regex: compiled.regex, groups: Object.keys(compiled.regex.namedGroups()) };
}

const VAR_START = /^[A-Za-z0-9_%]/;
const VAR_CHARS = /^(?:[A-Za-z0-9_.]|%[0-9A-Fa-f]{2})+$/;
const OPERATORS = '+#./;?&,';
const RESERVED_OPERATORS = '=!@|';

/**
 * The variable names of an RFC 6570 URL template, or null when it is not one. As lenient as the template
 * library a Zulip server validates with: literals may hold anything but braces.
 */
export function urlTemplateVariables(template: string): string[] | null {
  const names: string[] = [];
  for (const part of template.split(/(\{[^}]*\})/)) {
    if (part === '') continue;
    if (!part.startsWith('{') || !part.endsWith('}')) {
      if (part.includes('{') || part.includes('}')) return null;
      continue;
    }
    let expression = part.slice(1, -1);
    const op = expression[0] ?? '';
    if (!VAR_START.test(expression)) {
      if (RESERVED_OPERATORS.includes(op) || !op || !OPERATORS.includes(op)) return null;
      expression = expression.slice(op === ',' && expression[1] === '+' ? 2 : 1);
    }
    for (const spec of expression.split(',')) {
      const name = variableName(spec);
      if (name === null) return null;
      if (!names.includes(name)) names.push(name);
    }
  }
  return names;
}

function variableName(spec: string): string | null {
  if (!VAR_START.test(spec)) return null;
  let body = spec.split('=', 1)[0]!;
  const prefix = /:(.*)$/.exec(body);
  if (prefix) {
    if (!/^[0-9]{1,3}$/.test(prefix[1]!) || Number(prefix[1]) === 0) return null;
    body = body.slice(0, prefix.index);
  } else if (body.endsWith('[]')) {
    body = body.slice(0, -2);
  } else if (body.endsWith('*')) {
    body = body.slice(0, -1);
  }
  // `name/key` reads the value under another key; the variable is the name.
  const [name, key = name] = body.split('/', 2) as [string, string?];
  if (!VAR_CHARS.test(name) || !VAR_CHARS.test(key)) return null;
  return name;
}
