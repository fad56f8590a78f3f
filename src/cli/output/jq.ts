/**
 * `--jq`: real jq (1.7, built to WebAssembly by jq-web), so scripts need no jq binary and every jq program
 * means what it means to jq. The engine (a 2.8 MB module, ~150 ms to compile) loads only when an expression
 * is given.
 * Results print as `gh --jq` prints them: strings raw, anything else as compact JSON, one a line.
 */
import { createRequire } from 'node:module';
import { ChatctlError } from '../../errors.js';
import { usageError } from '../core/errors.js';

type Engine = Awaited<typeof import('jq-web')>;

const require = createRequire(import.meta.url);
let engine: Promise<Engine> | undefined;
// jq-web's export is a promise of the engine: required (not imported), so no loader wraps it in a namespace.
const load = (): Promise<Engine> => (engine ??= require('jq-web') as typeof import('jq-web'));

/**
 * What jq said on stderr: its error lines without its program name, shell-quoting advice or input position
 * (`syntax error, unexpected end of file at line 1`), or, from `halt_error`, the text as it was.
 */
function engineMessage(e: unknown): string {
  const text = e instanceof Error ? ('stderr' in e && typeof e.stderr === 'string' ? e.stderr : e.message) : String(e);
  const errors = text
    .split('\n')
    .filter((l) => l.startsWith('jq: error'))
    .map((l) =>
      l
        .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
        .replace(' (Unix shell quoting issues?)', '')
        .replace(/ at <top-level>, (line \d+):$/, ' at $1'),
    );
  return errors.length ? errors.join('; ') : text.trim();
}

/**
 * A usage error unless `expression` compiles. jq has no compile-only mode, so it is given no input at all:
 * it compiles the program (finding syntax errors and unknown functions) and runs it zero times, as nothing
 * may be evaluated here (an expression could loop forever on any input).
 */
export async function checkJq(expression: string): Promise<void> {
  const jq = await load();
  try {
    jq.raw('', expression, ['-c']);
  } catch (e) {
    throw usageError(`invalid --jq expression: ${engineMessage(e)}`, 'see chatctl help output');
  }
}

/** Runs `expression` once on each input; its results as text, a line each. Errors of the run are exit 1. */
export async function runJq(expression: string, inputs: readonly unknown[]): Promise<string> {
  if (inputs.length === 0) return '';
  const jq = await load();
  let out: string | undefined;
  try {
    // Several inputs go in as NDJSON: jq runs the program once per value, as `jq EXPR < file.ndjson` does.
    out = jq.raw(inputs.map((v) => JSON.stringify(v)).join('\n'), expression, ['-c']);
  } catch (e) {
    throw new ChatctlError(`jq: ${engineMessage(e)}`, 'failure');
  }
  // A program that printed nothing succeeded, as with jq: there is just nothing to show.
  if (out === undefined) return '';
  // Compact JSON has no raw newlines, so each line is one result; a JSON string is printed as its text.
  return out
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `${line.startsWith('"') ? String(JSON.parse(line)) : line}\n`)
    .join('');
}
