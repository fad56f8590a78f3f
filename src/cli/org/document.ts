/**
 * The organization file as a whole: its schema (built from the section declarations, so validation and
 * the JSON Schema read the same thing), the export of a live organization into it, and validation with
 * every problem's path: types, unknown keys, references between sections and duplicates.
 */
import { type Schema, s } from '../../api/schema.js';
import {
  type Change,
  FORMAT,
  isObj,
  type Json,
  LIST_SECTIONS,
  type ListSectionName,
  type LiveOrg,
  type Obj,
  type OrgDoc,
  SECTIONS,
  type SectionName,
  strings,
} from './model.js';
import { LIST_DECLS, type RefKind, SETTINGS_FIELDS } from './sections.js';

const objectOf = (fields: Readonly<Record<string, { schema: Schema }>>, required: readonly string[] = []): Schema => ({
  t: 'object',
  fields: Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, { schema: f.schema, required: required.includes(k) }])),
});

/** The schema of a whole file. */
export function documentSchema(): Schema {
  const fields: Record<string, { schema: Schema; required: boolean }> = {
    chatctl: { schema: s.literal([FORMAT]).schema, required: true },
    server: { schema: { t: 'object', fields: {}, extra: true }, required: false },
    notes: { schema: s.list(s.string()).schema, required: false },
    protect: { schema: objectOf(Object.fromEntries(LIST_SECTIONS.map((n) => [n, { schema: s.list(s.string()).schema }]))), required: false },
    settings: { schema: objectOf(SETTINGS_FIELDS), required: false },
  };
  for (const name of LIST_SECTIONS) {
    const d = LIST_DECLS[name];
    fields[name] = { schema: { t: 'list', of: objectOf(d.fields, [d.key]), maxItems: Number.MAX_SAFE_INTEGER }, required: false };
  }
  return { t: 'object', fields };
}

/** Documentation of each part, for the JSON Schema's descriptions. */
export function describePath(section: string, field?: string): string | undefined {
  if (section === 'settings') return field ? SETTINGS_FIELDS[field]?.doc : "the organization's settings (PATCH /realm)";
  const d = (LIST_DECLS as Readonly<Record<string, (typeof LIST_DECLS)[ListSectionName]>>)[section];
  return field ? d?.fields[field]?.doc : d?.doc;
}

/** The live organization as a file, with the sections asked for (default all it can read). */
export function exportDoc(live: LiveOrg, sections: readonly SectionName[] | undefined, site: string): OrgDoc {
  const want = (n: SectionName) => !sections || sections.includes(n);
  const doc: OrgDoc = { chatctl: FORMAT, server: { url: site, feature_level: live.level, version: live.version } };
  const notes = [...Object.entries(live.unreadable), ...Object.entries(live.unreadFields)].flatMap(([n, why]) => (want(n as SectionName) && why ? [why] : []));
  const bots = live.lists.users.filter((u) => u.bot).length;
  if (want('users') && bots) notes.push(`users: ${bots} bots left out (a file manages a bot only by naming it)`);
  if (notes.length) doc.notes = notes;
  if (want('settings')) doc.settings = live.settings;
  for (const name of LIST_SECTIONS) {
    if (!want(name) || live.unreadable[name]) continue;
    doc[name] = live.lists[name].filter((o) => !o.bot).map((o) => o.file);
  }
  return doc;
}

const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
};

/** The known key nearest an unknown one, when it is near enough to be a typo. */
function nearest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const d = distance(key.toLowerCase(), k.toLowerCase());
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

const TYPE_WORDS: Record<Schema['t'], string> = {
  string: 'a string',
  int: 'an integer',
  number: 'a number',
  bool: 'true or false',
  null: 'null',
  list: 'a list',
  object: 'a mapping',
  dict: 'a mapping',
  union: '',
  any: '',
};

/** Problems of `value` against `schema`, each `path: what`. */
function check(schema: Schema, value: unknown, path: string, out: string[]): void {
  const bad = (what: string) => out.push(`${path}: ${what}`);
  switch (schema.t) {
    case 'any':
      return;
    case 'null':
      if (value !== null) bad('must be null');
      return;
    case 'bool':
      if (typeof value !== 'boolean') bad('must be true or false');
      return;
    case 'number':
      if (typeof value !== 'number') bad('must be a number');
      return;
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value)) return void bad('must be an integer');
      if (schema.oneOf && !schema.oneOf.includes(value)) bad(`must be one of ${schema.oneOf.join(', ')}`);
      if (schema.min !== undefined && value < schema.min) bad(`must be at least ${schema.min}`);
      if (schema.max !== undefined && value > schema.max) bad(`must be at most ${schema.max}`);
      return;
    case 'string':
      if (typeof value !== 'string') return void bad('must be a string');
      if (schema.oneOf && !schema.oneOf.includes(value)) bad(`must be one of ${schema.oneOf.join(', ')}`);
      if (schema.maxLength !== undefined && [...value].length > schema.maxLength) bad(`is too long (at most ${schema.maxLength} characters)`);
      if (schema.minLength !== undefined && [...value].length < schema.minLength) bad(`is too short (at least ${schema.minLength} characters)`);
      return;
    case 'list':
      if (!Array.isArray(value)) return void bad('must be a list');
      if (value.length > schema.maxItems) bad(`has too many items (at most ${schema.maxItems})`);
      for (const [i, v] of value.entries()) check(schema.of, v, `${path}[${i}]`, out);
      return;
    case 'dict':
      if (!isObj(value)) return void bad('must be a mapping');
      for (const [k, v] of Object.entries(value)) check(schema.of, v, `${path}.${k}`, out);
      return;
    case 'object': {
      if (!isObj(value)) return void bad('must be a mapping');
      const known = Object.keys(schema.fields);
      for (const [k, f] of Object.entries(schema.fields)) {
        if (Object.hasOwn(value, k)) check(f.schema, value[k], path ? `${path}.${k}` : k, out);
        else if (f.required) bad(`${k} is required`);
      }
      if (schema.extra) return;
      for (const k of Object.keys(value)) {
        if (Object.hasOwn(schema.fields, k)) continue;
        const near = nearest(k, known);
        out.push(`${path ? `${path}.` : ''}${k}: unknown key${near ? `; did you mean ${near}?` : ''}`);
      }
      return;
    }
    case 'union': {
      for (const option of schema.of) {
        const tried: string[] = [];
        check(option, value, path, tried);
        if (!tried.length) return;
      }
      bad(`must be ${schema.describe || schema.of.map((o) => TYPE_WORDS[o.t]).join(' or ')}`);
    }
  }
}

/** Zulip's system groups, by the names group-valued settings use. */
export const isSystemGroupName = (name: string): boolean => name.startsWith('role:');

/**
 * Every problem of a file, offline: its shape, references between its sections (only where the section
 * referred to is in the file: an absent section is not managed), and duplicate IDs and keys. Empty: valid.
 */
export function validate(value: unknown): string[] {
  const out: string[] = [];
  check(documentSchema(), value, '', out);
  if (out.length || !isObj(value)) return out;
  const doc: Obj = value;
  const keysOf = (name: ListSectionName): Set<string> | undefined => {
    const items = doc[name];
    if (!Array.isArray(items)) return undefined;
    const key = LIST_DECLS[name].key;
    return new Set(items.flatMap((o) => (isObj(o) && typeof o[key] === 'string' ? [norm(name, o[key])] : [])));
  };
  const known: Partial<Record<ListSectionName, Set<string> | undefined>> = { users: keysOf('users'), groups: keysOf('groups'), folders: keysOf('folders') };
  const refCheck = (kind: RefKind, v: Json, path: string) => {
    const names = (section: ListSectionName, items: Json[], p: string) => {
      const set = known[section];
      items.forEach((item, i) => {
        if (typeof item !== 'string' || !set) return;
        if (section === 'groups' && isSystemGroupName(item)) return;
        if (!set.has(norm(section, item))) out.push(`${p}[${i}]: no ${section === 'users' ? 'user' : section.slice(0, -1)} ${item} in ${section}`);
      });
    };
    if (kind === 'users' && Array.isArray(v)) names('users', v, path);
    if (kind === 'groups' && Array.isArray(v)) names('groups', v, path);
    if (kind === 'folder' && typeof v === 'string' && known.folders && !known.folders.has(v)) out.push(`${path}: no folder ${v} in folders`);
    if (kind === 'groupSetting') {
      if (typeof v === 'string') {
        if (!isSystemGroupName(v) && known.groups && !known.groups.has(v))
          out.push(`${path}: no group ${v} in groups, and not a system group (role:members ...)`);
      } else if (isObj(v)) {
        if (Array.isArray(v.members)) names('users', v.members, `${path}.members`);
        if (Array.isArray(v.subgroups)) names('groups', v.subgroups, `${path}.subgroups`);
      }
    }
  };
  const settings = doc.settings;
  if (isObj(settings)) for (const [k, f] of Object.entries(SETTINGS_FIELDS)) if (f.ref && k in settings) refCheck(f.ref, settings[k]!, `settings.${k}`);
  for (const name of LIST_SECTIONS) {
    const items = doc[name];
    if (!Array.isArray(items)) continue;
    const d = LIST_DECLS[name];
    const ids = new Map<string, number>();
    const keys = new Map<string, number>();
    items.forEach((item, i) => {
      if (!isObj(item)) return;
      const at = `${name}[${i}]`;
      if (item.id !== undefined) {
        const first = ids.get(String(item.id));
        if (first !== undefined) out.push(`${at}.id: ${String(item.id)} repeats ${name}[${first}]`);
        else ids.set(String(item.id), i);
      }
      const key = item[d.key];
      if (typeof key === 'string') {
        const first = keys.get(norm(name, key));
        if (first !== undefined) out.push(`${at}.${d.key}: ${key} repeats ${name}[${first}]`);
        else keys.set(norm(name, key), i);
        if (name === 'groups' && isSystemGroupName(key)) out.push(`${at}.name: ${key} is a system group: its members follow roles, and no file manages it`);
      }
      for (const [k, f] of Object.entries(d.fields)) if (f.ref && k in item) refCheck(f.ref, item[k]!, `${at}.${k}`);
    });
  }
  if (Array.isArray(doc.groups)) out.push(...subgroupCycles(doc.groups));
  return out;
}

/**
 * Groups of the file that contain themselves through their subgroups, each cycle once, at its first group:
 * the server refuses the subgroup that closes it, and the plan would stop halfway. One depth-first walk,
 * without recursion, so a long chain of groups cannot exhaust the stack.
 */
function subgroupCycles(groups: readonly Json[]): string[] {
  const at = new Map<string, number>();
  const subgroups = new Map<string, string[]>();
  groups.forEach((g, i) => {
    if (!isObj(g) || typeof g.name !== 'string' || at.has(g.name)) return;
    at.set(g.name, i);
    subgroups.set(g.name, strings(g.subgroups));
  });
  const out: string[] = [];
  const done = new Set<string>();
  for (const start of at.keys()) {
    if (done.has(start)) continue;
    const path: string[] = [start];
    const next: number[] = [0];
    const onPath = new Set(path);
    while (path.length) {
      const top = path[path.length - 1]!;
      const i = next[next.length - 1]!;
      const subs = subgroups.get(top) ?? [];
      if (i >= subs.length) {
        done.add(top);
        onPath.delete(top);
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = i + 1;
      const sub = subs[i]!;
      if (onPath.has(sub)) {
        const cycle = [...path.slice(path.indexOf(sub)), sub];
        out.push(`groups[${at.get(sub)}].subgroups: a group cannot contain itself: ${cycle.join(' → ')}`);
      } else if (subgroups.has(sub) && !done.has(sub)) {
        path.push(sub);
        next.push(0);
        onPath.add(sub);
      }
    }
  }
  return out;
}

/** Natural keys as the server compares them: e-mail addresses and domains without case. */
const norm = (section: ListSectionName, key: string): string => (section === 'users' || section === 'domains' ? key.toLowerCase() : key);
export const naturalKey = norm;

/** An object's natural key, as the server compares it. */
export const objectKey = (section: ListSectionName, o: Obj): string => {
  const k = o[LIST_DECLS[section].key];
  return naturalKey(section, typeof k === 'string' ? k : String(k));
};

/** The fields of a section that are memberships (members, subgroups), as its declaration marks them. */
export const memberFields = (section: ListSectionName): string[] => Object.entries(LIST_DECLS[section].fields).flatMap(([k, f]) => (f.members ? [k] : []));

/** Whether a change is of a membership (its address ends in one of its section's member fields). */
export const isMembershipChange = (c: Pick<Change, 'address' | 'section'>): boolean =>
  c.section !== 'settings' && memberFields(c.section).includes(c.address.slice(c.address.lastIndexOf('/') + 1));

/** How a membership's entries compare: members are e-mail addresses, without case; subgroups are names. */
export const memberKey =
  (field: string) =>
  (e: string): string =>
    field === 'members' ? e.toLowerCase() : e;

/** A validated file as a document. */
export function asDocument(value: unknown): OrgDoc {
  const problems = validate(value);
  if (problems.length) throw new InvalidDocument(problems);
  const doc: OrgDoc = { chatctl: FORMAT };
  if (!isObj(value)) return doc;
  const v: Obj = value;
  if (isObj(v.server)) doc.server = v.server;
  if (Array.isArray(v.notes)) doc.notes = v.notes.filter((n): n is string => typeof n === 'string');
  if (isObj(v.protect)) {
    const p = v.protect;
    doc.protect = Object.fromEntries(LIST_SECTIONS.flatMap((n) => (Array.isArray(p[n]) ? [[n, p[n].filter((x): x is string => typeof x === 'string')]] : [])));
  }
  if (isObj(v.settings)) doc.settings = v.settings;
  for (const name of LIST_SECTIONS) {
    const items = v[name];
    if (Array.isArray(items)) doc[name] = items.filter(isObj);
  }
  return doc;
}

export class InvalidDocument extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`${problems.length} problem${problems.length > 1 ? 's' : ''} in the file`);
    this.name = 'InvalidDocument';
  }
}

/** The sections a document manages: those it holds. */
export const managedSections = (doc: OrgDoc): SectionName[] => SECTIONS.filter((n) => doc[n] !== undefined);
