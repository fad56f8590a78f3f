/**
 * Flags and positional arguments, declared once with their type: each declaration says how commander reads
 * it (its flags, default, whether it repeats) and how the raw text becomes the value `run` receives (a role,
 * a duration in seconds, IDs, a port). Commands declare an object of these; the object's keys are the
 * option names, and `Values<typeof options>` is the type `run` gets. Parsing happens once, before a
 * command runs, so a bad value is a usage error (exit 2) before anything is read or sent.
 */
import { roleFrom, ROLE_NAMES, type Role } from '../../api/roles.js';
import { usageError } from './errors.js';
import { DURATION_HELP, parseDuration, parseSize } from './units.js';

/** What commander hands over for one option or argument. */
export type Raw = string | boolean | readonly string[] | undefined;

/**
 * Where a shell completes a flag's value from, besides fixed choices: files, directories, the stored profiles,
 * the names the server knows (channels, users' e-mail addresses), or nothing (never file names for a value
 * that is not one).
 */
export type Completion = 'files' | 'dirs' | 'profiles' | 'channels' | 'users' | 'none';

export interface Flag<T> {
  readonly kind: 'flag';
  /** Commander flags: `--role <role>`, `-y, --yes`, `--no-input`. */
  readonly flags: string;
  readonly description: string;
  /** What its value is, as the command reference names it (`whole number from 1 to 5000`, `duration`); none for a switch. */
  readonly type?: string;
  /** Values commander accepts (others are usage errors) and shells complete. */
  readonly choices?: readonly string[];
  /** Values shells complete and help lists, where other spellings are accepted too (role wire values). */
  readonly suggestions?: readonly string[];
  readonly complete?: Completion;
  /** The default as help shows it and commander keeps it. */
  readonly default?: string | boolean;
  /** Repeatable (`-f a=1 -f b=2`): commander collects the values into a list. */
  readonly repeatable?: boolean;
  /** The flag that sets it false (`--no-subdomains` beside `--subdomains`), when both are offered. */
  readonly negation?: { readonly flags: string; readonly description: string };
  /** Turns what commander collected into the command's value; throws usage errors. */
  parse(raw: Raw): T;
}

export interface Arg<T> {
  readonly kind: 'arg';
  readonly description: string;
  /** The name usage lines and errors show (`<queue_ids...>`); by default the key in kebab case. */
  readonly label?: string;
  readonly required: boolean;
  readonly variadic: boolean;
  readonly suggestions?: readonly string[];
  parse(raw: Raw): T;
}

export type FlagDefs = Readonly<Record<string, Flag<unknown>>>;
export type ArgDefs = Readonly<Record<string, Arg<unknown>>>;

/** The values a set of declarations yields, by name. */
export type Values<D> = { readonly [K in keyof D]: D[K] extends { parse(raw: Raw): infer T } ? T : never };

/** `--max-wait` from `--max-wait <seconds>`; the name errors use. */
export const longOf = (flags: string): string => /--[\w-]+/.exec(flags)?.[0] ?? flags;

/** The key commander stores a flag under: `--max-wait` → maxWait, `--no-input` → input. */
export function attributeOf(flags: string): string {
  return longOf(flags)
    .replace(/^--(no-)?/, '')
    .replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
}

/** Whether a flag takes a value (`--role <role>`, `--color [when]`): the word after it is that value. */
export const takesValue = (flags: string): boolean => /[<[]/.test(flags);

/** The raw text of a value-taking flag (commander gives a string, or the last of repeated ones). */
function text(raw: Raw): string | undefined {
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw)) return raw[raw.length - 1];
  return undefined;
}

/** Every value given: a repeated flag's list, or the words of a variadic argument. */
const argList = (raw: Raw): string[] => (Array.isArray(raw) ? [...raw] : typeof raw === 'string' ? [raw] : []);

interface Extra<T> {
  default?: T;
  complete?: Completion;
}

/** What a value-taking flag declares beside its conversion: its type (`text` unless said) and choices. */

type ValuedExtra<T> = Extra<T> & { type?: string; suggestions?: readonly string[]; choices?: readonly string[] };

/** A value-taking flag whose text becomes a T through `convert`; undefined when absent and no default. */
function valued<T>(flags: string, description: string, convert: (value: string, name: string) => T, o: ValuedExtra<T> & { default: T }): Flag<T>;
function valued<T>(flags: string, description: string, convert: (value: string, name: string) => T, o?: ValuedExtra<T>): Flag<T | undefined>;
function valued<T>(flags: string, description: string, convert: (value: string, name: string) => T, o: ValuedExtra<T> = {}): Flag<T | undefined> {
  const name = longOf(flags);
  return {
    kind: 'flag',
    flags,
    description,
    type: o.type ?? 'text',
    ...(o.choices ? { choices: o.choices } : {}),
    ...(o.suggestions ? { suggestions: o.suggestions } : {}),
    ...(o.complete ? { complete: o.complete } : {}),
    ...(o.default !== undefined ? { default: String(o.default) } : {}),
    parse(raw) {
      const value = text(raw);
      return value === undefined ? o.default : convert(value, name);
    },
  };
}

function bool(flags: string, description: string): Flag<boolean> {
  // `--no-input` is true unless given; `--active` false unless given.
  const negated = /--no-/.test(flags);
  return { kind: 'flag', flags, description, parse: (raw) => (negated ? raw !== false : raw === true) };
}

function string(flags: string, description: string, o?: { complete?: Completion }): Flag<string | undefined>;
function string(flags: string, description: string, o: { default: string; complete?: Completion }): Flag<string>;
function string(flags: string, description: string, o: Extra<string> = {}): Flag<string | undefined> {
  return valued(flags, description, (v) => v, o);
}

function choice<const C extends string>(flags: string, description: string, choices: readonly C[]): Flag<C | undefined>;
function choice<const C extends string>(flags: string, description: string, choices: readonly C[], o: { default: C }): Flag<C>;
function choice<const C extends string>(flags: string, description: string, choices: readonly C[], o: { default?: C } = {}): Flag<C | undefined> {
  // Commander enforces the choices; the check here keeps the type honest.
  const isChoice = (v: string): v is C => (choices as readonly string[]).includes(v);
  return valued(
    flags,
    description,
    (v, name) => {
      if (!isChoice(v)) throw usageError(`${name} takes one of ${choices.join(', ')}, not "${v}"`);
      return v;
    },
    { ...o, type: 'one of', choices },
  );
}

/** A whole number in [min, max]; `what` words the error (`--limit takes a whole number from 1 to 5000`). */
function int(flags: string, description: string, o: { min?: number; max?: number; what?: string }): Flag<number | undefined>;
function int(flags: string, description: string, o: { min?: number; max?: number; what?: string; default: number }): Flag<number>;
function int(flags: string, description: string, o: { min?: number; max?: number; what?: string; default?: number }): Flag<number | undefined> {
  return valued(flags, description, (v, name) => parseWhole(v, name, o), { ...o, type: o.what ?? `whole number${rangeOf(o)}` });
}

/** `v` as a whole number within bounds, or a usage error naming `name`. */
export function parseWhole(v: string, name: string, o: { min?: number; max?: number; what?: string } = {}): number {
  const n = Number(v);
  const ok = /^\s*-?\d+\s*$/.test(v) && Number.isSafeInteger(n) && (o.min === undefined || n >= o.min) && (o.max === undefined || n <= o.max);
  if (ok) return n;
  throw usageError(`${name} takes ${o.what ?? `a whole number${rangeOf(o)}`}, not "${v}"`);
}

const rangeOf = (o: { min?: number; max?: number }): string =>
  o.min !== undefined && o.max !== undefined ? ` from ${o.min} to ${o.max}` : o.min !== undefined ? ` of at least ${o.min}` : '';

/** A TCP port (0: any free port). */
function port(flags: string, description: string, o: { default: number }): Flag<number> {
  return int(flags, description, { min: 0, max: 65535, what: 'a port number', default: o.default });
}

/** A non-negative number of seconds, fractions allowed (`--max-wait 0.5`). */
function seconds(flags: string, description: string, o: { default: number }): Flag<number> {
  return valued(
    flags,
    description,
    (v, name) => {
      const n = Number(v);
      if (v.trim() === '' || !Number.isFinite(n) || n < 0) throw usageError(`${name} takes a number of seconds, not "${v}"`);
      return n;
    },
    { ...o, type: 'seconds' },
  );
}

/** `30d`, `12h`, `1h30m`: seconds. Its help names the units, which are the same for every duration flag. */
const duration = (flags: string, description: string): Flag<number | undefined> =>
  valued(flags, `${description}; ${DURATION_HELP}`, (v, name) => parseDuration(v, name), { type: 'duration' });

/** `10MB`, `512KiB`: bytes. */
const size = (flags: string, description: string): Flag<number | undefined> =>
  valued(flags, description, (v, name) => parseSize(v, name), { type: 'size (10MB, 512KiB)' });

const ROLE_WORDS = Object.values(ROLE_NAMES);

/** `owner`, `admin` ... or a wire value (`100`). */
export function parseRole(value: string): Role {
  const role = roleFrom(value);
  if (role === undefined) throw usageError(`unknown role "${value}"`, `roles: ${ROLE_WORDS.join(', ')}`);
  return role;
}

/** What is wrong with a role a file gives (a cell checked with the file), or undefined for a role. */
export const roleProblem = (value: string): string | undefined =>
  roleFrom(value) === undefined ? `unknown role "${value}" (roles: ${ROLE_WORDS.join(', ')})` : undefined;

const role = (flags: string, description: string): Flag<Role | undefined> => valued(flags, description, parseRole, { type: 'role', suggestions: ROLE_WORDS });

/** `1,2,3` into IDs. */
export function parseIds(value: string, name: string, what = 'user IDs'): number[] {
  const ids = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (!ids.length || ids.some((v) => !/^\d+$/.test(v))) throw usageError(`${name} takes comma-separated ${what}, not "${value}"`);
  return ids.map(Number);
}

const ids = (flags: string, description: string, what?: string): Flag<number[] | undefined> =>
  valued(flags, description, (v, name) => parseIds(v, name, what), { type: `comma-separated ${what ?? 'user IDs'}` });

/**
 * A flag and its negation (`--subdomains` / `--no-subdomains`): true, false, or undefined when neither is
 * given (the command leaves the setting alone).
 */
function toggle(flags: string, description: string, negation: { flags: string; description: string }): Flag<boolean | undefined> {
  return { kind: 'flag', flags, description, negation, parse: (raw) => (typeof raw === 'boolean' ? raw : undefined) };
}

/** A repeatable flag: every value given, in order, each through `convert`. */
function list(flags: string, description: string): Flag<string[]>;
function list<T>(flags: string, description: string, convert: (value: string, name: string) => T): Flag<T[]>;
function list<T>(flags: string, description: string, convert?: (value: string, name: string) => T): Flag<(T | string)[]> {
  const name = longOf(flags);
  return {
    kind: 'flag',
    flags,
    description,
    type: 'text, repeatable',
    repeatable: true,
    parse: (raw) => argList(raw).map((v) => (convert ? convert(v, name) : v)),
  };
}

/** `f`, which must be given: absent, it is the usage error `message`. */
function required<T>(f: Flag<T | undefined>, message: string): Flag<T> {
  return {
    ...f,
    parse(raw) {
      const value = f.parse(raw);
      if (value === undefined) throw usageError(message);
      return value;
    },
  };
}

/** A value-taking flag with a parser of its own (a narrow, a colour, ID=VALUE). */
const custom = <T>(
  flags: string,
  description: string,
  convert: (value: string, name: string) => T,
  o: { complete?: Completion; suggestions?: readonly string[] } = {},
): Flag<T | undefined> => valued(flags, description, convert, o);

export const flag = { bool, toggle, string, choice, int, port, seconds, duration, size, role, ids, list, custom, required };

interface ArgExtra {
  label?: string;
}

function positional<T>(
  description: string,
  required: boolean,
  variadic: boolean,
  parse: (raw: Raw) => T,
  o: ArgExtra & { suggestions?: readonly string[] } = {},
): Arg<T> {
  return {
    kind: 'arg',
    description,
    required,
    variadic,
    parse,
    ...(o.label ? { label: o.label } : {}),
    ...(o.suggestions ? { suggestions: o.suggestions } : {}),
  };
}

const argText = (raw: Raw): string | undefined => (typeof raw === 'string' ? raw : undefined);

export const arg = {
  /** A required word. */
  required: (description: string, o: ArgExtra = {}): Arg<string> => positional(description, true, false, (raw) => argText(raw) ?? '', o),
  optional: (description: string, o: ArgExtra = {}): Arg<string | undefined> => positional(description, false, false, argText, o),
  /** A required word of fixed choices (a shell, an HTTP method); commander does not check, so the parse does. */
  choice: <const C extends string>(description: string, choices: readonly C[], o: ArgExtra & { what: string }): Arg<C> =>
    positional(
      description,
      true,
      false,
      (raw) => {
        const v = argText(raw) ?? '';
        const found = choices.find((c) => c === v);
        if (found === undefined) throw usageError(`unknown ${o.what} "${v}"`, `${o.what}s: ${choices.join(', ')}`);
        return found;
      },
      { ...o, suggestions: choices },
    ),
  /** A required whole number (a message ID); `name` words the error. */
  int: (description: string, o: ArgExtra & { name: string }): Arg<number> =>
    positional(description, true, false, (raw) => parseWhole(argText(raw) ?? '', o.name, { min: 0, what: 'a whole number' }), o),
  /** A required word with a parser of its own (its error worded as the command words it). */
  custom: <T>(description: string, convert: (value: string) => T, o: ArgExtra & { suggestions?: readonly string[] } = {}): Arg<T> =>
    positional(description, true, false, (raw) => convert(argText(raw) ?? ''), o),
  /** Any number of words; `required` when at least one must be given. */
  variadic: (description: string, o: ArgExtra & { required?: boolean } = {}): Arg<string[]> => positional(description, o.required === true, true, argList, o),
};

/** Runs every declaration's parse over what commander collected, by name. */
export function parseValues<D extends Readonly<Record<string, { parse(raw: Raw): unknown }>>>(defs: D, raw: Readonly<Record<string, unknown>>): Values<D> {
  const out: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(defs)) out[name] = def.parse(asRaw(raw[name]));
  // The one place a record built key by key becomes its declared type: each value came from its own parse.
  return out as Values<D>;
}

function asRaw(value: unknown): Raw {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string')) return value;
  return undefined;
}

/** For the program builder: a declaration's option name must be the one commander derives from its flags. */
export function checkAttribute(name: string, f: Flag<unknown>): void {
  if (attributeOf(f.flags) !== name) throw new Error(`option "${name}" is declared with flags "${f.flags}" (commander would call it ${attributeOf(f.flags)})`);
  if (f.repeatable && !takesValue(f.flags)) throw new Error(`repeatable option "${name}" takes no value`);
}
