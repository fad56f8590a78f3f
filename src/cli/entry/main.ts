/**
 * The entry point's logic: select a command from argv, run it with an injected context, and map whatever
 * it throws to a message and an exit code in this one place. Only the noun module the command lives in is
 * loaded, so start-up does not grow with the number of commands.
 */
import { wantsJson, type Bound, type CommandSpec } from '../command/command.js';
import { createContext, type ContextDeps } from './make-context.js';
import { ChatctlError, EXIT, exitKindOf, reportError } from '../core/errors.js';
import { systemError } from '../core/file-errors.js';
import { NOUNS } from '../commands/index.js';
import { buildProgram, CommanderError, firstWord, type Parsed } from './program.js';
import { helpTopic, HELP_TOPICS } from './help-topics.js';
import type { IO } from '../core/io.js';
import type { LastWords } from '../core/last-words.js';
import { parseValues } from '../core/flags.js';
import { GLOBAL_FLAGS, type GlobalOptions } from '../command/global-options.js';
import { terminalPrompter } from '../core/prompter.js';
import { wrapText } from './wrap.js';
import { VERSION } from '../../version.js';

export interface MainDeps {
  io: IO;
  env: Readonly<Record<string, string | undefined>>;
  nowMs?: () => number;
  signal?: AbortSignal;
  /** Said by the entry point when it must exit at once (a second Ctrl-C). */
  lastWords?: LastWords;
  /** Replaces the prompter (tests). */
  prompter?: ContextDeps['prompter'];
  openTransport?: ContextDeps['openTransport'];
}

/** Loads the command declarations this argv can need: one noun's, or all of them for help. */
export async function loadCommands(argv: readonly string[]): Promise<Map<string, readonly CommandSpec[]>> {
  const word = firstWord(argv);
  const wanted = NOUNS.filter((n) => n.name === word);
  const loaded = new Map<string, readonly CommandSpec[]>();
  for (const noun of wanted.length ? wanted : NOUNS) loaded.set(noun.name, await noun.load());
  return loaded;
}

/** Parses argv into a command and its options; usage errors and help surface as CommanderError. */
export async function parse(argv: readonly string[], io: Pick<IO, 'stdout' | 'stderr' | 'columns'>): Promise<Parsed | null> {
  const loaded = await loadCommands(argv);
  let selected: Parsed | null = null;
  const program = buildProgram(
    VERSION,
    NOUNS,
    loaded,
    { out: (t) => io.stdout.write(t), err: (t) => io.stderr.write(t), columns: io.columns },
    (p) => (selected = p),
  );
  await program.parseAsync([...argv], { from: 'user' });
  return selected;
}

export async function main(argv: readonly string[], deps: MainDeps): Promise<number> {
  const { io } = deps;
  if (argv[0] === 'help') {
    const topic = argv[1] && helpTopic(argv[1]);
    if (topic) {
      io.stdout.write(wrapText(topic, io.columns));
      return EXIT.ok;
    }
    if (argv[1] && !argv[1].startsWith('-') && !NOUNS.some((n) => n.name === argv[1])) {
      io.stderr.write(`chatctl: no help topic or command "${argv[1]}" (topics: ${Object.keys(HELP_TOPICS).join(', ')})\n`);
      return EXIT.usage;
    }
    argv = [...argv.slice(1), '--help'];
  }
  let parsed: Parsed | null;
  try {
    parsed = await parse(argv, io);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.ok;
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    return report(e, io, false, deps.env);
  }
  if (!parsed) return EXIT.ok;
  const jsonErrors = wantsJson(parsed.opts);
  // The validation step: every option and argument becomes its typed value, or a usage error before
  // anything is read or sent.
  let globals: GlobalOptions;
  let bound: Bound;
  try {
    globals = parseValues(GLOBAL_FLAGS, parsed.globals);
    bound = await parsed.spec.bind(parsed.opts);
  } catch (e) {
    return report(e, io, jsonErrors, deps.env);
  }
  const ctx = createContext({
    io,
    env: deps.env,
    globals,
    prompter: deps.prompter ?? terminalPrompter(io, globals.input && !deps.env.CI),
    outputSpec: parsed.spec.output,
    nowMs: deps.nowMs,
    signal: deps.signal,
    lastWords: deps.lastWords,
    openTransport: deps.openTransport,
  });
  try {
    await bound.run(ctx);
    return EXIT.ok;
  } catch (e) {
    // After Ctrl-C, whatever the command failed with (an aborted request rejects with the signal's
    // reason, a bare string) is the interruption: exit 130, and said so.
    const interrupted = deps.signal?.aborted && exitKindOf(e) !== 'interrupted';
    return report(interrupted ? new ChatctlError('interrupted', 'interrupted') : e, io, jsonErrors, deps.env);
  } finally {
    await ctx.close().catch(() => undefined);
  }
}

function report(e: unknown, io: IO, json: boolean, env: MainDeps['env']): number {
  // A file the system refused, wherever it was touched (the config dir, the data dir): said with its path.
  const r = reportError(systemError(e) ?? e);
  if (json) io.stderr.write(`${JSON.stringify(r.json)}\n`);
  else {
    io.stderr.write(`${r.text}\n`);
    if (r.hint) io.stderr.write(`hint: ${r.hint}\n`);
  }
  if (env.CHATCTL_DEBUG && e instanceof Error) io.stderr.write(`${e.stack ?? e.message}\n`);
  return r.exitCode;
}
