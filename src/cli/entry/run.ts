/**
 * The process entry: real streams and environment in, an exit code out. The first Ctrl-C, SIGINT or
 * SIGTERM aborts the command's signal (serve stops cleanly, a bulk run starts no more rows); a command still
 * running a second later is ended with code 130, and a second signal ends it at once. Either way the command's
 * last words (what a bulk run had done) are said first. This is the only place that calls process.exit.
 * (`--version` alone is answered by bin/chatctl.cjs before this module loads.)
 *
 * When the reader of the output goes away (`chatctl users list | head -1`), chatctl stops at once with
 * exit 0, as a program killed by SIGPIPE would stop, instead of dying of the unhandled EPIPE.
 */
import { EXIT } from '../core/errors.js';
import { INTERRUPT_GRACE_MS } from '../../timeouts.js';
import { LastWords } from '../core/last-words.js';

export async function run(argv: readonly string[]): Promise<number> {
  const controller = new AbortController();
  const lastWords = new LastWords();
  let interrupted = false;
  const exitNow = () => {
    lastWords.say();
    process.exit(EXIT.interrupted);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) exitNow();
    interrupted = true;
    controller.abort(signal);
    setTimeout(exitNow, INTERRUPT_GRACE_MS).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const onPipeError = (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(EXIT.ok);
    throw e;
  };
  process.stdout.on('error', onPipeError);
  process.stderr.on('error', onPipeError);
  const [{ main }, { processIO }] = await Promise.all([import('./main.js'), import('../core/io.js')]);
  const code = await main(argv, { io: processIO(), env: process.env, signal: controller.signal, lastWords });
  return interrupted && code !== EXIT.ok ? EXIT.interrupted : code;
}
