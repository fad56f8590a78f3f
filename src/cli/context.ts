/**
 * Everything a command may use, injected: streams, environment, clock, the prompter, and lazy access to
 * configuration and the client. Nothing here is loaded until a command asks for it, so commands that do
 * not talk to a server start fast.
 */
import { nowMs } from '../time.js';
import type { ChatClient } from '../client/client.js';
import type { Transport } from '../client/transport.js';
import type { Env } from '../config/paths.js';
import type { IO } from './io.js';
import { LastWords } from './last-words.js';
import { GLOBAL_DEFAULTS, type GlobalOptions } from './global-options.js';
import { Output, useColor, type OutputFlags, type OutputSpec } from './output/output.js';
import type { Prompter } from './prompter.js';
import { resolveTarget, type Target } from './target.js';

export type { GlobalOptions };

export interface Context {
  readonly io: IO;
  readonly env: Env;
  readonly globals: GlobalOptions;
  readonly prompter: Prompter;
  /** Milliseconds since the epoch. */
  nowMs(): number;
  /** Where requests go, and with which credentials (flags > env > profile > zuliprc > embedded default). */
  target(): Target;
  /**
   * The client for the target; the embedded organization is created on first use when nothing is
   * configured. `auth: false` for operations that need no credentials (server settings).
   */
  client(opts?: { auth?: boolean }): Promise<ChatClient>;
  /** The output layer for the running command's declared output, or for `spec` when it prints something else. */
  output(flags: OutputFlags, spec?: OutputSpec): Output;
  /** A line for the person on stderr (hints, summaries); silent under --quiet. */
  info(message: string): void;
  warn(message: string): void;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
  /**
   * Registers what to say if the process must exit at once (a second Ctrl-C) while the command runs;
   * the returned function unregisters it.
   */
  lastWords(say: () => void): () => void;
  /** Releases what the command opened (waits for embedded background work). */
  close(): Promise<void>;
}

export interface ContextDeps {
  io: IO;
  env: Env;
  /** The parsed global options; those left out have their defaults. */
  globals: Partial<GlobalOptions>;
  prompter: Prompter;
  /** The running command's declared output (what ctx.output prints by default). */
  outputSpec?: OutputSpec;
  nowMs?: () => number;
  signal?: AbortSignal;
  lastWords?: LastWords;
  /** Opens the transport of a target (tests may count or wrap it). */
  openTransport?: (target: Target, ctx: Context) => Promise<Transport>;
}

export function createContext(deps: ContextDeps): Context {
  const { io, env } = deps;
  const globals: GlobalOptions = { ...GLOBAL_DEFAULTS, ...deps.globals };
  let target: Target | undefined;
  let client: Promise<ChatClient> | undefined;
  const lastWords = deps.lastWords ?? new LastWords();
  const ctx: Context = {
    io,
    env,
    globals,
    prompter: deps.prompter,
    signal: deps.signal ?? new AbortController().signal,
    lastWords: (say) => lastWords.add(say),
    nowMs: deps.nowMs ?? nowMs,
    target: () => (target ??= resolveTarget(globals, env, ctx.warn)),
    client: async (opts = {}) => {
      client ??= import('./connect.js').then(({ connect }) => connect(ctx, deps.openTransport));
      const c = await client;
      if (opts.auth !== false && !c.credentials) {
        const { noCredentials } = await import('./connect.js');
        throw noCredentials(ctx.target());
      }
      return c;
    },
    output: (flags, spec = deps.outputSpec) => {
      if (!spec) throw new Error('this command declares no output');
      return new Output(io, spec, flags, useColor(globals.color, env, io.stdoutIsTTY), ctx.nowMs);
    },
    info: (message) => {
      if (!globals.quiet) io.stderr.write(`${message}\n`);
    },
    warn: (message) => io.stderr.write(`chatctl: warning: ${message}\n`),
    close: async () => {
      if (client) await (await client.catch(() => null))?.close();
    },
  };
  return ctx;
}
