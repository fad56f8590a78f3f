/**
 * The shapes the organization-as-code commands share: a file's values (JSON), the document, the live
 * organization as read, a plan's changes and requests, and section names as options take them. The sections themselves are declared in
 * sections.ts; everything here is what those declarations fill.
 */
import { usageError } from '../core/errors.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = { [key: string]: Json };

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The strings of a list (anything else: none). */
export const strings = (v: Json | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The format line every file starts with; a later format gets a new value. */
export const FORMAT = 'org/v1';

export const LIST_SECTIONS = ['domains', 'linkifiers', 'profile_fields', 'folders', 'groups', 'channels', 'users'] as const;
export type ListSectionName = (typeof LIST_SECTIONS)[number];
/** Sections a file manages: the organization's settings and the lists. */
export type SectionName = 'settings' | ListSectionName;
export const SECTIONS: readonly SectionName[] = ['settings', ...LIST_SECTIONS];

/** A document as read from a file (validated) or from the server (exported). */
export interface OrgDoc {
  chatctl: typeof FORMAT;
  /** Read-only: where and at which level the file was exported. */
  server?: Obj;
  /** Read-only: what the export could not read. */
  notes?: string[];
  /** Objects no plan touches, by section and natural key. */
  protect?: Partial<Record<ListSectionName, string[]>>;
  settings?: Obj;
  domains?: Obj[];
  linkifiers?: Obj[];
  profile_fields?: Obj[];
  folders?: Obj[];
  groups?: Obj[];
  channels?: Obj[];
  users?: Obj[];
}

/** One live object: its file form, and what the planner must know beyond it. */
export interface LiveObj {
  file: Obj;
  id: number | string;
  /** A bot: exported never, changed only when a file names it. */
  bot?: boolean;
}

/** The live organization, read once: the document an export writes, plus the indexes plans resolve names with. */
export interface LiveOrg {
  level: number;
  version: string;
  callerId: number;
  settings: Obj;
  lists: Record<ListSectionName, LiveObj[]>;
  /** Sections this server's level cannot give, with why: left out of exports, refused in plans. */
  unreadable: Partial<Record<SectionName, string>>;
  /** Fields of a section newer than the server's level, left out of what was read, with a note saying which. */
  unreadFields: Partial<Record<SectionName, string>>;
  /** E-mail → user ID, for every user (bots and deactivated ones too). */
  userIds: Map<string, number>;
  /** User ID → e-mail, the inverse. */
  emails: Map<number, string>;
  /** Group name → ID, system groups (`role:members` ...) included. */
  groupIds: Map<string, number>;
  groupNames: Map<number, string>;
  /** Requests the read took. */
  requests: number;
}

/** A reference, inside a planned request's parameters, to the ID of an object an earlier request creates. */
export type Ref = { $ref: string };

export interface PlannedRequest {
  /** The catalogue operation's name (`update-stream`). */
  operation: string;
  method: string;
  path: string;
  params: Obj;
  /** The reference this request's answer fills (`groups/eng`), and the answer's key holding the ID. */
  creates?: { ref: string; key: string };
}

/** `conflict`: a rehearsal's change to what production also changed since the mirror (three-way.ts); never sent. */
export type Action = 'create' | 'add' | 'update' | 'rename' | 'remove' | 'cannot' | 'conflict';

export const SYMBOL: Record<Action, string> = { create: '+', add: '+', update: '~', rename: '→', remove: '-', cannot: '!', conflict: '!' };

export interface Change {
  /** `channels/general`, `channels/general/members`, `settings/name`. */
  address: string;
  section: SectionName;
  /** The object's server ID; null for one to create (or a section without IDs). */
  id: number | string | null;
  /** The object's natural key, for people. */
  name: string;
  action: Action;
  /** Only the fields that change (or the whole object created or removed); members as the ones added or removed. */
  before: Obj | null;
  after: Obj | null;
  requests: PlannedRequest[];
  risk: 'low' | 'medium' | 'high';
  /** Why a `cannot` change cannot be made, or what a `conflict` is. */
  reason?: string;
  /** Memberships or objects it removes (for --max-removals). */
  removals: number;
  /** People Zulip notifies of it (a Notification Bot message for being added by someone else). */
  notifies: number[];
}

export interface Plan {
  format_version: 1;
  server: { site: string; feature_level: number; version: string };
  /** A hash of the live state of every object the plan touches: a saved plan is stale when it changed. */
  base_fingerprint: string;
  /** The sections the file manages. */
  managed: SectionName[];
  changes: Change[];
}

/** A comma-separated list of section names (`also`: other words the option takes, for the hint). */
export function parseSections(value: string, name: string, also: readonly string[] = []): SectionName[] {
  const names = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  const bad = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
  if (!names.length || bad.length) throw usageError(`${name}: unknown section ${bad.join(', ') || value}`, `sections: ${[...SECTIONS, ...also].join(', ')}`);
  return SECTIONS.filter((s) => names.includes(s));
}
