/**
 * TRANSITION ONLY (issue 11): commands not yet declared with typed options. Removed once every command
 * uses defineCommand.
 */
export type { CommandSpec } from './command.js';
import type { CommandSpec, OutputOptions } from './command.js';
import { checkFormat, outputFlags } from './command.js';
import type { Context } from './context.js';
import { attributeOf, flag, parseValues, type ArgDefs, type FlagDefs, type Raw } from './flags.js';
import type { OutputSpec } from './output/output.js';

export interface ArgSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
}

export interface OptionSpec {
  flags: string;
  description: string;
  choices?: readonly string[];
  default?: string | boolean;
  repeatable?: boolean;
}

export type CommandOptions = Record<string, unknown>;

interface LegacyDecl {
  path: readonly string[];
  summary: string;
  description?: string;
  examples?: readonly string[];
  aliases?: readonly string[];
  default?: boolean;
  args?: readonly ArgSpec[];
  options?: readonly OptionSpec[];
  /** Options already declared with types (the bulk options): parsed. */
  flags?: FlagDefs;
  output?: OutputSpec;
  mutating?: boolean;
  dryRunHelp?: string;
  destructive?: boolean;
  run(opts: CommandOptions, ctx: Context): Promise<void>;
}

const camel = (name: string): string => name.replace(/[-_](\w)/g, (_, c: string) => c.toUpperCase());
const same = (raw: Raw): Raw => raw;

export function defineLegacyCommand(d: LegacyDecl): CommandSpec {
  const args: ArgDefs = Object.fromEntries(
    (d.args ?? []).map((a) => [camel(a.name), { kind: 'arg' as const, label: a.name, description: a.description, required: a.required === true, variadic: a.variadic === true, parse: same }]),
  );
  const output = d.output ? outputFlags(d.output) : {};
  const flags: FlagDefs = {
    ...Object.fromEntries(
      (d.options ?? [])
        .filter((o) => !/--no-/.test(o.flags) || !(d.options ?? []).some((p) => p !== o && attributeOf(p.flags) === attributeOf(o.flags)))
        .map((o) => {
          const negation = (d.options ?? []).find((p) => p !== o && /--no-/.test(p.flags) && attributeOf(p.flags) === attributeOf(o.flags));
          return [attributeOf(o.flags), { kind: 'flag' as const, ...o, ...(negation ? { negation } : {}), parse: same }];
        }),
    ),
    ...d.flags,
    ...output,
    ...(d.mutating ? { dryRun: flag.bool('--dry-run', d.dryRunHelp ?? 'print the requests that would be sent, send nothing') } : {}),
    ...(d.destructive ? { yes: flag.bool('-y, --yes', 'do not ask for confirmation (required when not on a terminal)') } : {}),
  };
  return {
    path: d.path,
    summary: d.summary,
    description: d.description,
    examples: d.examples,
    aliases: d.aliases,
    default: d.default,
    dryRunHelp: d.dryRunHelp,
    args,
    flags,
    ...(d.output ? { output: d.output } : {}),
    mutating: d.mutating === true,
    destructive: d.destructive === true,
    bind(raw) {
      checkFormat(raw);
      const parsed: Partial<OutputOptions> = d.output ? parseValues(output, raw) : {};
      const opts: CommandOptions = { ...raw, ...parseValues(d.flags ?? {}, raw), ...parsed };
      return (ctx) => d.run(opts, ctx);
    },
  };
}

export const opt = {
  str: (o: CommandOptions, k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string) : undefined),
  bool: (o: CommandOptions, k: string): boolean => o[k] === true,
  list: (o: CommandOptions, k: string): string[] => (Array.isArray(o[k]) ? (o[k] as string[]) : []),
};
