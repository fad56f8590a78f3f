/**
 * What a command is: a declaration (words, help, typed arguments and options, what it prints, what kind of
 * change it makes) plus `run(opts, ctx)`. The declaration drives parsing, help and shell completions; its
 * option declarations (core/flags.ts) give `run` typed, already validated values, so commands neither read
 * options by name nor convert them. `run` gets an injected context, returns or throws, and never exits.
 */
import type { Context } from './context.js';
import { usageError } from '../core/errors.js';
import { flag, parseValues, type ArgDefs, type FlagDefs, type Raw, type Values } from '../core/flags.js';
import { FORMATS, parseFields, type OutputSpec } from '../output/output.js';
import { readTemplate } from '../output/template-source.js';
import { checkTransform } from '../output/transform.js';

/**
 * The options a command that prints records takes: --json, --format, --fields (checked against its fields),
 * --relative for times in tables, and --jq or --template over its JSON result.
 */
export function outputFlags(spec: OutputSpec) {
  return {
    json: flag.bool('--json', 'print JSON (the data itself, wire field names)'),
    format: flag.choice('--format <format>', 'output format', FORMATS),
    fields: flag.custom('--fields <list>', `comma-separated fields to print (of: ${spec.fields.join(', ')})`, (v) => parseFields(spec, v)),
    relative: flag.bool('--relative', 'show times in tables relative to now ("3 days ago")'),
    jq: flag.string('--jq <expression>', 'filter the JSON result with a jq expression; strings print raw (chatctl help output)', { complete: 'none' }),
    template: flag.custom('--template <template>', 'print the JSON result through a Handlebars template, or @FILE (chatctl help output)', readTemplate),
  };
}

export type OutputOptions = Values<ReturnType<typeof outputFlags>>;

const dryRunFlags = (help = 'print the requests that would be sent, send nothing') => ({ dryRun: flag.bool('--dry-run', help) });
const YES_FLAGS = { yes: flag.bool('-y, --yes', 'do not ask for confirmation (required when not on a terminal)') };

/** The options `run` receives: its arguments and options, and those its kind implies. */
export type Options<A, F, O, M, D> = Values<A> &
  Values<F> &
  (O extends OutputSpec ? OutputOptions : unknown) &
  (M extends true ? { readonly dryRun: boolean } : unknown) &
  (D extends true ? { readonly yes: boolean } : unknown);

interface About {
  /** Words after `chatctl`, e.g. `['users', 'list']`. */
  path: readonly string[];
  summary: string;
  description?: string;
  examples?: readonly string[];
  aliases?: readonly string[];
  /** What its group runs when no subcommand is given (`chatctl profiles` lists them). */
  default?: boolean;
  /** What --dry-run prints, for its help line (default: the requests that would be sent). */
  dryRunHelp?: string;
}

export interface CommandDecl<A extends ArgDefs, F extends FlagDefs, O extends OutputSpec | undefined, M extends boolean, D extends boolean> extends About {
  /** Positional arguments, in order. */
  args?: A;
  options?: F;
  /** A command that prints records: adds --json, --format, --fields. */
  output?: O;
  /** Changes something on the server: adds --dry-run. */
  mutating?: M;
  /** Deletes or deactivates: adds --yes, and asks on a TTY. */
  destructive?: D;
  /** Rules between options (`--active` and `--deactivated` exclude each other), after each is parsed. */
  check?(opts: Options<A, F, O, M, D>): void;
  run(opts: Options<A, F, O, M, D>, ctx: Context): Promise<void>;
}

/** A command as the program, help and completions see it, whatever its options' types. */
export interface CommandSpec extends About {
  readonly args: ArgDefs;
  /** Every option: its own, then those its kind implies. */
  readonly flags: FlagDefs;
  readonly output?: OutputSpec;
  readonly mutating: boolean;
  readonly destructive: boolean;
  /**
   * The validation step: what commander collected, by name, into typed options bound to `run`. Asynchronous
   * because a --jq expression or a template is compiled here, by an engine loaded only then.
   */
  bind(raw: Readonly<Record<string, unknown>>): Promise<Bound>;
}

/** A command with its options validated: the typed values `run` gets, and `run` holding them. */
export interface Bound {
  /** Typed as the command declares them; seen here, whatever the command, by name (parse tests read them). */
  readonly opts: Readonly<Record<string, unknown>>;
  run(ctx: Context): Promise<void>;
}

export function defineCommand<
  const A extends ArgDefs = Record<never, never>,
  const F extends FlagDefs = Record<never, never>,
  const O extends OutputSpec | undefined = undefined,
  M extends boolean = false,
  D extends boolean = false,
>(decl: CommandDecl<A, F, O, M, D>): CommandSpec {
  const args = decl.args ?? {};
  const flags: FlagDefs = {
    ...decl.options,
    ...(decl.output ? outputFlags(decl.output) : {}),
    ...(decl.mutating ? dryRunFlags(decl.dryRunHelp) : {}),
    ...(decl.destructive ? YES_FLAGS : {}),
  };
  return {
    ...about(decl),
    args,
    flags,
    ...(decl.output ? { output: decl.output } : {}),
    mutating: decl.mutating === true,
    destructive: decl.destructive === true,
    async bind(given) {
      checkFormat(given);
      // --jq and --template imply JSON; --json beside them must not make a command that streams --json as
      // NDJSON (bulk outcomes, flag batches) run them once per line instead of over the whole result.
      const raw = transforming(given) ? { ...given, json: false } : given;
      const values = parseValues(flags, raw);
      // The declared kinds above are exactly what Options<> adds to the declared options' values.
      const opts = { ...parseValues(args, raw), ...values } as Options<A, F, O, M, D>;
      if (decl.output?.addedBy) checkAddedFields(decl.output.addedBy, flags, values);
      decl.check?.(opts);
      if (decl.output) await checkTransform({ jq: textOf(values.jq), template: textOf(values.template) });
      return { opts, run: (ctx) => decl.run(opts, ctx) };
    },
  };
}

function about(d: About): About {
  const { path, summary, description, examples, aliases, dryRunHelp } = d;
  return { path, summary, description, examples, aliases, default: d.default, dryRunHelp };
}

const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

const transforming = (raw: Readonly<Record<string, unknown>>): boolean => raw.jq !== undefined || raw.template !== undefined;

/**
 * Output options that contradict each other, a usage error before anything runs: --json and a --format
 * other than json; --jq and --template; either of them with --fields or a format other than JSON.
 */
export function checkFormat(raw: Readonly<Record<string, unknown>>): void {
  if (raw.json === true && typeof raw.format === 'string' && raw.format !== 'json') throw usageError('--json and --format disagree; pass one');
  if (!transforming(raw)) return;
  const name = raw.jq !== undefined ? '--jq' : '--template';
  if (raw.jq !== undefined && raw.template !== undefined) throw usageError('--jq and --template exclude each other; pass one');
  if (raw.fields !== undefined)
    throw usageError(`${name} and --fields exclude each other`, `pick fields in the ${name === '--jq' ? "expression: --jq '.[] | {id, email}'" : 'template'}`);
  if (typeof raw.format === 'string' && raw.format !== 'json' && raw.format !== 'ndjson') {
    throw usageError(
      `${name} reads JSON: --format ${raw.format} does not apply`,
      `leave --format out (the whole result), or --format ndjson (once per record)`,
    );
  }
}

/** --fields naming a field that only a report option fills, without that option. */
function checkAddedFields(addedBy: Readonly<Record<string, string>>, flags: FlagDefs, values: Readonly<Record<string, unknown>>): void {
  const fields = values.fields;
  if (!Array.isArray(fields)) return;
  for (const field of fields) {
    const option = typeof field === 'string' ? addedBy[field] : undefined;
    if (option === undefined) continue;
    const given = values[option];
    if (given !== undefined && given !== false) continue;
    const spelled = flags[option]?.flags ?? option;
    throw usageError(`field "${field}" is printed only with ${spelled}`, `add ${spelled}, or leave ${field} out of --fields`);
  }
}

/** Whether a failure is reported as JSON: the command was asked for JSON, whether or not its options parsed. */
export function wantsJson(raw: Readonly<Record<string, unknown>>): boolean {
  return raw.json === true || raw.format === 'json' || raw.format === 'ndjson';
}

export type { Raw };
