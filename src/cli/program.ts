/**
 * Builds the commander tree from command declarations. Parsing only selects a command and its options;
 * running is the caller's business, so the parse step can be tested on its own.
 */
import { Command, CommanderError, Option } from 'commander';
import type { CommandOptions, CommandSpec, OptionSpec } from './command.js';
import { DEFAULT_MAX_WAIT_SECONDS } from '../timeouts.js';
import { FORMATS } from './output/output.js';

export interface NounEntry {
  name: string;
  summary: string;
  load(): Promise<readonly CommandSpec[]>;
}

export interface Parsed {
  spec: CommandSpec;
  opts: CommandOptions;
  globals: CommandOptions;
}

/** Options every command takes; they may stand before or after the command words. */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { flags: '-p, --profile <name>', description: 'use this stored profile (env CHATCTL_PROFILE)' },
  { flags: '--data-dir <dir>', description: 'use the embedded organization in this directory (env CHATCTL_DATA_DIR)' },
  { flags: '--server <url>', description: 'use the Zulip-compatible server at this URL (env ZULIP_SITE)' },
  { flags: '--zuliprc <file>', description: 'read site, email and key from this zuliprc (env ZULIP_CONFIG)' },
  { flags: '--ca-file <file>', description: 'trust this CA bundle for the server (env ZULIP_CERT_BUNDLE)' },
  { flags: '--insecure', description: 'do not verify the server certificate (warns; env ZULIP_ALLOW_INSECURE=true)' },
  { flags: '--max-wait <seconds>', description: 'longest wait for a rate limit or retry before giving up (exit 75)', default: String(DEFAULT_MAX_WAIT_SECONDS) },
  { flags: '-v, --verbose', description: 'show every request and response on stderr (never credentials)' },
  { flags: '-q, --quiet', description: 'no hints, progress or summaries on stderr (errors and warnings still show)' },
  { flags: '--color <when>', description: 'colour output', choices: ['auto', 'always', 'never'], default: 'auto' },
  { flags: '--no-input', description: 'never prompt, even on a terminal' },
];

/** Global options that take a value, for finding the command words in argv without parsing. */
const VALUE_GLOBALS = new Set(['-p', '--profile', '--data-dir', '--server', '--zuliprc', '--color', '--ca-file', '--max-wait']);

/** The first word of argv that is not an option: the noun, or undefined. */
export function firstWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return argv[i + 1];
    if (VALUE_GLOBALS.has(a)) {
      i++;
      continue;
    }
    if (!a.startsWith('-')) return a;
  }
  return undefined;
}

function toOption(o: OptionSpec): Option {
  const option = new Option(o.flags, o.description);
  if (o.choices) option.choices([...o.choices]);
  if (o.default !== undefined) option.default(o.default);
  if (o.repeatable) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
  return option;
}

function camel(name: string): string {
  return name.replace(/[-_](\w)/g, (_, c: string) => c.toUpperCase());
}

export function helpText(spec: CommandSpec): string {
  const parts: string[] = [];
  if (spec.examples?.length) parts.push(`\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}`);
  return parts.join('\n');
}

export interface ProgramIO {
  out(text: string): void;
  err(text: string): void;
  columns: number;
}

/** Declarations for one command, with the options its kind implies. */
export function optionsOf(spec: CommandSpec): OptionSpec[] {
  const extra: OptionSpec[] = [];
  if (spec.output) {
    extra.push(
      { flags: '--json', description: 'print JSON (the data itself, wire field names)' },
      { flags: '--format <format>', description: 'output format', choices: FORMATS },
      { flags: '--fields <list>', description: `comma-separated fields to print (of: ${spec.output.fields.join(', ')})` },
    );
  }
  if (spec.mutating) extra.push({ flags: '--dry-run', description: spec.dryRunHelp ?? 'print the requests that would be sent, send nothing' });
  if (spec.destructive) extra.push({ flags: '-y, --yes', description: 'do not ask for confirmation (required when not on a terminal)' });
  return [...(spec.options ?? []), ...extra];
}

export function buildProgram(
  version: string,
  nouns: readonly NounEntry[],
  loaded: ReadonlyMap<string, readonly CommandSpec[]>,
  io: ProgramIO,
  onSelect: (p: Parsed) => void,
): Command {
  const program = new Command('chatctl')
    .description('Administer Zulip-compatible team chat organizations: a remote server, or the embedded one')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: io.out,
      writeErr: io.err,
      outputError: (text, write) => write(text.replace(/^error: /, 'chatctl: ')),
      getOutHelpWidth: () => io.columns,
      getErrHelpWidth: () => io.columns,
    });
  for (const o of GLOBAL_OPTIONS) program.addOption(toOption(o));
  program.addHelpText('after', '\nRun "chatctl help exit-codes" and "chatctl help environment" for the scripting contract.');

  const groups = new Map<string, Command>();
  for (const noun of nouns) {
    const specs = loaded.get(noun.name);
    if (!specs) {
      // Not loaded for this run: present for help and suggestions only.
      program.command(noun.name).description(noun.summary).allowUnknownOption().allowExcessArguments();
      continue;
    }
    for (const spec of specs) {
      // Every word before the last is a group (`invite`, then `invite link` for `invite link create`).
      let parent = program;
      for (let depth = 1; depth < spec.path.length; depth++) {
        const words = spec.path.slice(0, depth).join(' ');
        let group = groups.get(words);
        if (!group) {
          group = parent.command(spec.path[depth - 1]!).description(depth === 1 ? noun.summary : groupSummary(specs, spec.path.slice(0, depth)));
          groups.set(words, group);
        }
        parent = group;
      }
      const cmd = parent.command(spec.path[spec.path.length - 1]!, { isDefault: spec.default === true }).description(spec.summary);
      if (spec.description) cmd.description(`${spec.summary}\n\n${spec.description}`);
      cmd.summary(spec.summary);
      for (const alias of spec.aliases ?? []) cmd.alias(alias);
      for (const a of spec.args ?? []) {
        const name = `${a.name}${a.variadic ? '...' : ''}`;
        cmd.argument(a.required ? `<${name}>` : `[${name}]`, a.description);
      }
      for (const o of optionsOf(spec)) cmd.addOption(toOption(o));
      const help = helpText(spec);
      if (help) cmd.addHelpText('after', help);
      cmd.action((...received: unknown[]) => {
        const command = received[received.length - 1] as Command;
        const opts: CommandOptions = { ...command.opts() };
        (spec.args ?? []).forEach((a, i) => {
          opts[camel(a.name)] = received[i];
        });
        onSelect({ spec, opts, globals: program.opts() });
      });
    }
  }
  return program;
}

/** A group below a noun (`invite link`) has no declaration of its own: it is summed up by its commands'. */
export function groupSummary(specs: readonly CommandSpec[], prefix: readonly string[]): string {
  const inside = specs.filter((s) => s.path.length > prefix.length && prefix.every((w, i) => s.path[i] === w));
  return inside.map((s) => s.summary).join('; ');
}

export { CommanderError };
