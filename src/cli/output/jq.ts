/**
 * `--jq`: real jq (1.7, built to WebAssembly by jq-wasm), so scripts need no jq binary and every jq program
 * means what it means to jq. The engine (about 1.3 MB) is imported only when an expression is given.
 * Results print as `gh --jq` prints them: strings raw, anything else as compact JSON, one a line.
 */
import { ChatctlError } from '../../errors.js';
import { usageError } from '../errors.js';

type Engine = typeof import('jq-wasm');

let engine: Promise<Engine> | undefined;
const load = (): Promise<Engine> => (engine ??= import('jq-wasm'));

/** jq's error lines without its program name, shell-quoting advice or input position: `error: ...`. */
function engineErrors(e: unknown): string[] {
  const text = e instanceof Error ? e.message : String(e);
  return text
    .split('\n')
    .filter((l) => l.startsWith('jq: error'))
    .map((l) =>
      l
        .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
        .replace(' (Unix shell quoting issues?)', '')
        .replace(/ at <top-level>, (line \d+):$/, ' at $1'),
    );
}

/**
 * A usage error unless `expression` compiles. jq has no compile-only mode, so it is given no input at all:
 * it compiles the program (finding syntax errors and unknown functions) and runs it zero times, as nothing
 * may be evaluated here (an expression could loop forever on any input).
 */
export async function checkJq(expression: string): Promise<void> {
  const { raw } = await load();
  try {
    await raw('', expression, ['-c']);
  } catch (e) {
    const errors = engineErrors(e);
    throw usageError(`invalid --jq expression: ${errors.join('; ') || String(e)}`, 'see chatctl help output');
  }
}

/** Runs `expression` once on each input; its results as text, a line each. Errors of the run are exit 1. */
export async function runJq(expression: string, inputs: readonly unknown[]): Promise<string> {
  if (inputs.length === 0) return '';
  const { raw } = await load();
  let out: string;
  try {
    // Several inputs go in as NDJSON: jq runs the program once per value, as `jq EXPR < file.ndjson` does.
    out = await raw(inputs.map((v) => JSON.stringify(v)).join('\n'), expression, ['-c']);
  } catch (e) {
    const errors = engineErrors(e);
    throw new ChatctlError(`jq: ${errors.join('; ') || (e instanceof Error ? e.message : String(e))}`, 'failure');
  }
  if (out === '') return '';
  // Compact JSON has no raw newlines, so each line is one result; a JSON string is printed as its text.
  return `${out
    .split('\n')
    .map((line) => (line.startsWith('"') ? String(JSON.parse(line)) : line))
    .join('\n')}\n`;
}
