/**
 * Everything a command may use, injected: streams, environment, clock, the prompter, and lazy access to
 * configuration and the client. Only the shape lives here (types, erased at run time); entry/make-context.ts
 * builds it, so a helper that names `Context` loads nothing of the wiring.
 */
import type { ChatClient } from '../../client/client.js';
import type { Env } from '../../config/paths.js';
import type { Output, OutputFlags, OutputSpec } from '../output/output.js';
import type { Target } from '../target/target.js';
import type { GlobalOptions } from './global-options.js';
import type { IO } from '../core/io.js';
import type { Prompter } from '../core/prompter.js';

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
