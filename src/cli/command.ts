/**
 * What a command is: a declaration (name, help, arguments, options, output fields) plus `run(opts, ctx)`.
 * The declaration drives parsing, help and shell completions; `run` gets parsed options and an injected
 * context, returns normally or throws, and never exits the process.
 */
import type { Context } from './context.js';
import type { OutputSpec } from './output/output.js';

export interface ArgSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
}

export interface OptionSpec {
  /** Commander flags, e.g. `--role <role>` or `-y, --yes`. */
  flags: string;
  description: string;
  choices?: readonly string[];
  default?: string | boolean | string[];
  /** Repeatable (`-f a=1 -f b=2`): values collect into a list. */
  repeatable?: boolean;
}

export interface CommandSpec {
  /** Words after `chatctl`, e.g. `['users', 'list']`. */
  path: readonly string[];
  summary: string;
  description?: string;
  examples?: readonly string[];
  aliases?: readonly string[];
  /** What its group runs when no subcommand is given (`chatctl profiles` lists them). */
  default?: boolean;
  args?: readonly ArgSpec[];
  options?: readonly OptionSpec[];
  /** A command that prints records: adds --json, --format, --fields. */
  output?: OutputSpec;
  /** Changes something on the server: adds --dry-run. */
  mutating?: boolean;
  /** What --dry-run prints, for its help line (default: the requests that would be sent). */
  dryRunHelp?: string;
  /** Deletes or deactivates: adds --yes, and asks on a TTY. */
  destructive?: boolean;
  run(opts: CommandOptions, ctx: Context): Promise<void>;
}

/** Parsed options in camelCase, with positional arguments under their names. */
export type CommandOptions = Record<string, unknown>;

export const defineCommand = (spec: CommandSpec): CommandSpec => spec;

/** Typed accessors for parsed options, so commands state what they expect. */
export const opt = {
  str: (o: CommandOptions, k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string) : undefined),
  bool: (o: CommandOptions, k: string): boolean => o[k] === true,
  list: (o: CommandOptions, k: string): string[] => (Array.isArray(o[k]) ? (o[k] as string[]) : []),
};
