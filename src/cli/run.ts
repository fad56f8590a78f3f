/**
 * The process entry: real streams and environment in, an exit code out. The first Ctrl-C or SIGTERM
 * aborts the command's signal (serve stops cleanly); a command still running shortly after is ended with
 * code 130, and a second Ctrl-C ends it at once.
 *
 * `--version` alone is answered before the command tree loads: it is the cheapest possible call, and
 * scripts make it often.
 *
 * When the reader of the output goes away (`chatctl users list | head -1`), chatctl stops at once with
 * exit 0, as a program killed by SIGPIPE would stop, instead of dying of the unhandled EPIPE.
 */
import { EXIT } from './errors.js';

const GRACE_MS = 5000;

export async function run(argv: readonly string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    const { VERSION } = await import('../version.js');
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const controller = new AbortController();
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(EXIT.interrupted);
    interrupted = true;
    controller.abort(signal);
    setTimeout(() => process.exit(EXIT.interrupted), GRACE_MS).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const onPipeError = (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(EXIT.ok);
    throw e;
  };
  process.stdout.on('error', onPipeError);
  process.stderr.on('error', onPipeError);
  const [{ main }, { processIO }] = await Promise.all([import('./main.js'), import('./io.js')]);
  const code = await main(argv, { io: processIO(), env: process.env, signal: controller.signal });
  return interrupted && code !== EXIT.ok ? EXIT.interrupted : code;
}
