/**
 * What a command is: a declaration (words, help, typed arguments and options, what it prints, what kind of
 * change it makes) plus `run(opts, ctx)`. The declaration drives parsing, help and shell completions; its
 * option declarations (flags.ts) give `run` typed, already validated values, so commands neither read
 * options by name nor convert them. `run` gets an injected context, returns or throws, and never exits.
 */
import type { Context } from './context.js';
import { usageError } from './errors.js';
import { flag, parseValues, type ArgDefs, type FlagDefs, type Raw, type Values } from './flags.js';
import { FORMATS, parseFields, type OutputSpec } from './output/output.js';

/** The options a command that prints records takes: --json, --format, --fields (checked against its fields), --relative. */
export function outputFlags(spec: OutputSpec) {
  return {
    json: flag.bool('--json', 'print JSON (the data itself, wire field names)'),
    format: flag.choice('--format <format>', 'output format', FORMATS),
    fields: flag.custom('--fields <list>', `comma-separated fields to print (of: ${spec.fields.join(', ')})`, (v) => parseFields(spec, v)),
    relative: flag.bool('--relative', 'show times in tables relative to now ("3 days ago")'),
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
  /** The validation step: what commander collected, by name, into typed options bound to `run`. */
  bind(raw: Readonly<Record<string, unknown>>): (ctx: Context) => Promise<void>;
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
    bind(raw) {
      checkFormat(raw);
      // The declared kinds above are exactly what Options<> adds to the declared options' values.
      const opts = { ...parseValues(args, raw), ...parseValues(flags, raw) } as Options<A, F, O, M, D>;
      decl.check?.(opts);
      return (ctx) => decl.run(opts, ctx);
    },
  };
}

function about(d: About): About {
  const { path, summary, description, examples, aliases, dryRunHelp } = d;
  return { path, summary, description, examples, aliases, default: d.default, dryRunHelp };
}

/** --json and a --format other than json contradict each other: a usage error before anything runs. */
export function checkFormat(raw: Readonly<Record<string, unknown>>): void {
  if (raw.json === true && typeof raw.format === 'string' && raw.format !== 'json') throw usageError('--json and --format disagree; pass one');
}

/** Whether a failure is reported as JSON: the command was asked for JSON, whether or not its options parsed. */
export function wantsJson(raw: Readonly<Record<string, unknown>>): boolean {
  return raw.json === true || raw.format === 'json' || raw.format === 'ndjson';
}

export type { Raw };
