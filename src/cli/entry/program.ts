/**
 * Builds the commander tree from command declarations. Parsing only selects a command and its options;
 * running is the caller's business, so the parse step can be tested on its own.
 */
import { Command, CommanderError, Help, Option } from 'commander';
import type { CommandSpec } from '../command/command.js';
import { treeOf, type NounEntry } from '../command/command-tree.js';
import { checkAttribute, type Arg, type Flag } from '../core/flags.js';
import { GLOBAL_FLAGS, VALUE_GLOBALS } from '../command/global-options.js';
import { topicsFooter } from './help-topics.js';
import { wrapText } from './wrap.js';

/** What commander collected: the command, its options and arguments by name, and the global options (raw text). */
export interface Parsed {
  spec: CommandSpec;
  opts: Record<string, unknown>;
  globals: Record<string, unknown>;
}

/** The first word of argv that is not an option: the noun, or undefined. */
export function firstWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return argv[i + 1];
    if (VALUE_GLOBALS.includes(a)) {
      i++;
      continue;
    }
    if (!a.startsWith('-')) return a;
  }
  return undefined;
}

function toOption(name: string, f: Flag<unknown>): Option {
  checkAttribute(name, f);
  const option = new Option(f.flags, f.description);
  if (f.choices) option.choices([...f.choices]);
  if (f.default !== undefined) option.default(f.default);
  if (f.repeatable) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
  return option;
}

/** `userIds` as help shows an argument: `user-ids`. */
const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** An argument as usage lines show it: `<user>`, `[users...]`. */
export function argumentUsage(key: string, a: Arg<unknown>): string {
  const name = `${a.label ?? kebab(key)}${a.variadic ? '...' : ''}`;
  return a.required ? `<${name}>` : `[${name}]`;
}

/** What chatctl is, as its help and its manual open. */
export const PROGRAM_DESCRIPTION = 'Administer Zulip-compatible team chat organizations: a remote server, or the embedded one';

export function helpText(spec: CommandSpec): string {
  const parts: string[] = [];
  if (spec.examples?.length) parts.push(`\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}`);
  return parts.join('\n');
}

/** The narrowest description column worth wrapping in; narrower, the description goes under its term. */
const MIN_DESCRIPTION_WIDTH = 24;

/**
 * An option or command with its description beside it, as commander lays it out; on a terminal too narrow
 * for that (long terms), the description under the term, wrapped, rather than one long unwrapped line.
 */
function stackedWhenNarrow(term: string, termWidth: number, description: string, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  if (!description || width - termWidth - 4 >= MIN_DESCRIPTION_WIDTH) return Help.prototype.formatItem.call(helper, term, termWidth, description, helper);
  const indent = '      ';
  return `  ${term}\n${indent}${helper.boxWrap(description, width - indent.length).replace(/\n/g, `\n${indent}`)}`;
}

export interface ProgramIO {
  out(text: string): void;
  err(text: string): void;
  columns: number;
}

export function buildProgram(
  version: string,
  nouns: readonly NounEntry[],
  loaded: ReadonlyMap<string, readonly CommandSpec[]>,
  io: ProgramIO,
  onSelect: (p: Parsed) => void,
): Command {
  const program = new Command('chatctl')
    .description(PROGRAM_DESCRIPTION)
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureHelp({ minWidthToWrap: MIN_DESCRIPTION_WIDTH, formatItem: stackedWhenNarrow })
    .configureOutput({
      writeOut: io.out,
      writeErr: io.err,
      outputError: (text, write) => write(text.replace(/^error: /, 'chatctl: ')),
      getOutHelpWidth: () => io.columns,
      getErrHelpWidth: () => io.columns,
    });
  for (const [name, f] of Object.entries(GLOBAL_FLAGS)) program.addOption(toOption(name, f));
  program.addHelpText('after', wrapText(`\n${topicsFooter()}`, io.columns));

  for (const noun of nouns) {
    const specs = loaded.get(noun.name);
    if (!specs) {
      // Not loaded for this run: present for help and suggestions only.
      program
        .command(noun.name, { hidden: noun.hidden === true })
        .description(noun.summary)
        .allowUnknownOption()
        .allowExcessArguments();
      continue;
    }
    const groups = new Map<string, Command>();
    const parentOf = (path: readonly string[]): Command => groups.get(path.slice(0, -1).join(' ')) ?? program;
    for (const entry of treeOf(noun, specs)) {
      if (entry.kind === 'group') {
        groups.set(
          entry.path.join(' '),
          parentOf(entry.path)
            .command(entry.path[entry.path.length - 1]!)
            .description(entry.summary),
        );
        continue;
      }
      const { spec } = entry;
      const parent = parentOf(spec.path);
      const cmd = parent
        .command(spec.path[spec.path.length - 1]!, { isDefault: spec.default === true, hidden: noun.hidden === true })
        .description(spec.summary);
      if (spec.description) cmd.description(`${spec.summary}\n\n${spec.description}`);
      cmd.summary(spec.summary);
      for (const alias of spec.aliases ?? []) cmd.alias(alias);
      for (const [key, a] of Object.entries(spec.args)) cmd.argument(argumentUsage(key, a), a.description);
      for (const [name, f] of Object.entries(spec.flags)) {
        cmd.addOption(toOption(name, f));
        if (f.negation) cmd.addOption(new Option(f.negation.flags, f.negation.description));
      }
      const help = helpText(spec);
      if (help) cmd.addHelpText('after', help);
      cmd.action((...received: unknown[]) => {
        const command = received[received.length - 1] as Command;
        const opts: Record<string, unknown> = { ...command.opts() };
        Object.keys(spec.args).forEach((key, i) => {
          opts[key] = received[i];
        });
        onSelect({ spec, opts, globals: program.opts() });
      });
    }
  }
  return program;
}

export { CommanderError };
