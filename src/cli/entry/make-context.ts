/**
 * The wiring of a command's `Context` (declared in command/context.ts): nothing is loaded until a command asks
 * for it, so commands that do not talk to a server start fast.
 */
import type { ChatClient } from '../../client/client.js';
import type { Transport } from '../../client/transport.js';
import type { Env } from '../../config/paths.js';
import { nowMs } from '../../time.js';
import type { Context } from '../command/context.js';
import { GLOBAL_DEFAULTS, type GlobalOptions } from '../command/global-options.js';
import type { IO } from '../core/io.js';
import { LastWords } from '../core/last-words.js';
import type { Prompter } from '../core/prompter.js';
import { Output, type OutputSpec, useColor } from '../output/output.js';
import { resolveTarget, type Target } from '../target/target.js';

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
      client ??= import('../target/connect.js').then(({ connect }) => connect(ctx, deps.openTransport));
      const c = await client;
      if (opts.auth !== false && !c.credentials) {
        const { noCredentials } = await import('../target/connect.js');
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
