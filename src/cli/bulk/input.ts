/**
 * `--from-file FILE|-`: rows for bulk commands, as CSV with a header, as JSON lines (one object a line) or
 * as one JSON array of objects: what `list --format csv|ndjson|json` prints, so one command's output is
 * another's input. The format follows the file's extension; from stdin it is sniffed (`{` or `[` is JSON).
 *
 * The whole file is checked before anything is sent, so a bad file changes nothing: its encoding (UTF-8
 * unless --encoding names another), its syntax, its columns against the command's declaration, the
 * required cells of every row, the type of each JSON value (a number or an object where a name is expected),
 * and the cells and rows the command checks (a role that is no role). Every problem is reported in one pass
 * (up to MAX_PROBLEMS), each with its file line, row number and column. Reading stdin or a FIFO stops on
 * Ctrl-C. Input that is no file of rows is refused as it is read, before it fills memory: binary data, a line
 * longer than MAX_LINE_BYTES, more than MAX_INPUT_BYTES in all. A CSV header naming a column twice is refused.
 */
import { closeSync, constants, createReadStream, openSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { systemReason } from '../../errno.js';
import type { Context } from '../command/context.js';
import { flag } from '../core/flags.js';
import { ChatctlError, usageError } from '../core/errors.js';
import { readBytes } from '../core/io.js';
import { formatSize } from '../core/units.js';

export type InputRow = Record<string, unknown>;

export interface ColumnSpec {
  required?: boolean;
  description: string;
  /**
   * What a JSON value of this column may be (CSV cells are all text): `text` a string (the default); `id` a
   * string or a whole number (an ID, a name, a role); `list` either of those or an array of them; `boolean`
   * true, false or a string. null is an empty cell.
   */
  json?: 'text' | 'id' | 'list' | 'boolean';
  /** What is wrong with a non-empty cell of this column (`unknown role "x"`), checked with the file. */
  check?: (value: string) => string | undefined;
}

export type Columns = Record<string, ColumnSpec>;

/** --from-file (what it reads, for its help line) and the --encoding that goes with it. */
export const fromFileFlags = (description = 'read rows from a CSV file with a header, or JSON lines (- for stdin)') => ({
  fromFile: flag.string('--from-file <file>', description),
  encoding: flag.string('--encoding <name>', "the --from-file file's character encoding when it is not UTF-8: latin1, windows-1252, utf-16le ..."),
});

export interface FromFile {
  readonly fromFile?: string;
  readonly encoding?: string;
}

/** Problems listed before "and N more": enough to fix a file in a few rounds, short enough to read. */
export const MAX_PROBLEMS = 20;

/**
 * The longest line of CSV or JSON lines: a row is some hundred bytes, and a megabyte leaves room for long
 * cells (a welcome text, hundreds of channels) while input that is no file of rows (no line breaks at all)
 * is refused after a megabyte. A JSON array (`--format json` output, one line on a pipe) is not held to it.
 */
export const MAX_LINE_BYTES = 1_000_000;
/** The largest --from-file input: some 500,000 rows of people, read whole before anything is sent. */
const MAX_INPUT_BYTES = 50_000_000;

const require = createRequire(import.meta.url);

/** A problem of the file, where it is: `line 4 (row 3), column full_name: empty`. */
interface Problem {
  line?: number;
  row?: number;
  column?: string;
  message: string;
}

const where = (p: Problem): string => {
  const at = [
    p.line !== undefined ? `line ${p.line}${p.row !== undefined ? ` (row ${p.row})` : ''}` : '',
    p.column !== undefined ? `column ${p.column}` : '',
  ].filter(Boolean);
  return at.length ? `${at.join(', ')}: ${p.message}` : p.message;
};

/** Rows with their number and the file line each ends on (a quoted CSV cell may span lines). */
interface Parsed {
  rows: { row: InputRow; n: number; line: number }[];
  header: string[] | null;
}

/** A JSON array of objects (`--format json`), its elements numbered as rows, each on the line it starts on. */
function parseJsonArray(text: string, problems: Problem[]): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    problems.push({ message: `not valid JSON: ${e instanceof Error ? e.message : String(e)}` });
    return { rows: [], header: null };
  }
  if (!Array.isArray(value)) {
    problems.push({ line: 1, message: 'a JSON file of rows is an array of objects, or one object a line' });
    return { rows: [], header: null };
  }
  // Where each element starts: `{` openings at depth 1, outside strings.
  const starts: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    else if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (depth === 1) starts.push(line);
      depth++;
    } else if (c === ']' || c === '}') depth--;
  }
  const rows: Parsed['rows'] = [];
  value.forEach((element: unknown, i) => {
    const at = { line: starts[i] ?? 1, row: i + 1 };
    if (!element || typeof element !== 'object' || Array.isArray(element)) problems.push({ ...at, message: 'each element must be a JSON object' });
    else rows.push({ row: element as InputRow, n: at.row, line: at.line });
  });
  return { rows, header: null };
}

function parseJsonLines(text: string, problems: Problem[]): Parsed {
  if (text.trimStart().startsWith('[')) return parseJsonArray(text, problems);
  const rows: Parsed['rows'] = [];
  let row = 0;
  text.split(/\r?\n/).forEach((content, i) => {
    if (!content.trim()) return;
    row++;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      problems.push({ line, row, message: 'not valid JSON' });
      return;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) problems.push({ line, row, message: 'each line must be a JSON object' });
    else rows.push({ row: value as InputRow, n: row, line });
  });
  return { rows, header: null };
}

function parseCsv(text: string, problems: Problem[]): Parsed {
  const { parse } = require('csv-parse/sync') as typeof import('csv-parse/sync');
  const rows: Parsed['rows'] = [];
  let header: string[] | null = null;
  // Records and records skipped for an error come in file order: both take the next row number.
  let row = 0;
  try {
    parse(text, {
      columns: (names: string[]) => {
        const trimmed = names.map((h) => h.trim());
        // csv-parse would keep the last cell of a repeated column and drop the others without a word.
        for (const name of new Set(trimmed.filter((h, i) => trimmed.indexOf(h) !== i))) {
          problems.push({ line: 1, column: name || '(empty)', message: 'appears more than once in the header' });
        }
        header = trimmed;
        return trimmed;
      },
      skip_empty_lines: true,
      trim: true,
      bom: true,
      skip_records_with_error: true,
      on_skip: (e) => {
        if (e)
          problems.push({ line: (e as { lines?: number }).lines, row: ++row, message: e.message.replace(/ on line \d+$/, '').replace(/ at line \d+$/, '') });
      },
      on_record: (record: InputRow, context) => {
        rows.push({ row: record, n: ++row, line: context.lines });
        return record;
      },
    });
  } catch (e) {
    problems.push({ message: e instanceof Error ? e.message : String(e) });
  }
  return { rows, header };
}

/**
 * Problems of the encoding: a byte sequence the encoding cannot hold, with its byte offset, file line and
 * row. Found where the lenient decoding put U+FFFD for bytes that are not U+FFFD's own.
 */
function encodingProblems(bytes: Buffer, text: string, encoding: string, rowOfLine: (line: number) => number | undefined): Problem[] {
  const problems: Problem[] = [];
  const ownReplacement = Buffer.from('\uFFFD', 'utf8');
  let offset = 0;
  let from = 0;
  // The line is counted on as the search goes: counting from the start at each problem made a file with many
  // of them cost its length times their number.
  let line = 1;
  let counted = 0;
  for (let at = text.indexOf('\uFFFD'); at !== -1; at = text.indexOf('\uFFFD', at + 1)) {
    offset += Buffer.byteLength(text.slice(from, at), 'utf8');
    from = at + 1;
    if (bytes.subarray(offset, offset + 3).equals(ownReplacement)) {
      offset += 3;
      continue;
    }
    for (let nl = text.indexOf('\n', counted); nl !== -1 && nl < at; nl = text.indexOf('\n', nl + 1)) line++;
    counted = at;
    problems.push({ line, row: rowOfLine(line), message: `byte offset ${offset}: 0x${bytes[offset]!.toString(16).padStart(2, '0')} is not ${encoding}` });
    // The lenient decoder replaced this sequence with one character: step over its bytes.
    offset += 1;
    while (offset < bytes.length && (bytes[offset]! & 0xc0) === 0x80) offset++;
  }
  return problems;
}

function decoderFor(encoding: string): TextDecoder {
  try {
    return new TextDecoder(encoding);
  } catch {
    throw usageError(`--encoding: unknown encoding "${encoding}"`, 'e.g. utf-8, latin1, windows-1252, utf-16le');
  }
}

/**
 * Opening a FIFO waits, in a worker thread, for a writer; nothing can cancel that wait, and the process
 * cannot exit while it lasts. On Ctrl-C chatctl becomes that writer for an instant, so the open returns,
 * the read sees the end, and the abort is noticed.
 */
function releaseFifoOnAbort(file: string, signal: AbortSignal): () => void {
  const release = () => {
    try {
      closeSync(openSync(file, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waiting any more (ENXIO): nothing to release.
    }
  };
  signal.addEventListener('abort', release, { once: true });
  return () => signal.removeEventListener('abort', release);
}

/**
 * The bytes of `file`, or of stdin for `-`; a file that cannot be read is a usage error naming `what` it
 * should be. `inspect` sees each chunk as it is read and may end the read by throwing.
 */
export async function readInput(
  ctx: Pick<Context, 'io' | 'signal'>,
  file: string,
  what = 'a file of rows',
  inspect?: (chunk: Buffer) => void,
): Promise<Buffer> {
  let done = () => {};
  try {
    if (file === '-') return await readBytes(ctx.io.stdin, ctx.signal, inspect);
    if (statSync(file, { throwIfNoEntry: false })?.isFIFO()) done = releaseFifoOnAbort(file, ctx.signal);
    return await readBytes(createReadStream(file), ctx.signal, inspect);
  } catch (e) {
    if (ctx.signal.aborted || e instanceof ChatctlError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw usageError(`${file} is a directory, not ${what}`);
    throw usageError(`cannot read ${file}: ${systemReason(e)}`);
  } finally {
    done();
  }
}

/** Bytes that may come before a file's first character: white space, a byte-order mark, UTF-16's zero bytes. */
const LEADING = new Set([0x20, 0x09, 0x0d, 0x0a, 0x00, 0xef, 0xbb, 0xbf, 0xfe, 0xff]);

/**
 * Refuses, chunk by chunk as it is read, input that is no file of rows, before it is kept: a NUL byte
 * (binary data, /dev/zero; text in UTF-16 or UTF-32 is the one text that holds them), a line longer than
 * MAX_LINE_BYTES, more than MAX_INPUT_BYTES in all.
 */
function rowInputBounds(source: string, encoding: string): (chunk: Buffer) => void {
  const wide = /^utf-(16|32)/.test(encoding);
  let total = 0;
  let line = 1;
  let lineBytes = 0;
  let array: boolean | undefined;
  return (chunk) => {
    const nul = wide ? -1 : chunk.indexOf(0);
    if (nul !== -1) {
      throw usageError(
        `${source} is binary, not text: a NUL byte at byte offset ${total + nul} (line ${line + countLines(chunk, nul)})`,
        'give a CSV file with a header or JSON lines; text saved as UTF-16 needs --encoding utf-16le (nothing was sent)',
      );
    }
    if (array === undefined) {
      let first = 0;
      while (first < chunk.length && LEADING.has(chunk[first]!)) first++;
      if (first < chunk.length) array = chunk[first] === 0x5b;
    }
    for (let at = 0; array !== true && at < chunk.length; ) {
      const newline = chunk.indexOf(0x0a, at);
      const end = newline === -1 ? chunk.length : newline;
      lineBytes += end - at;
      if (lineBytes > MAX_LINE_BYTES) {
        throw usageError(
          `${source}: line ${line} is longer than ${formatSize(MAX_LINE_BYTES)}, the most a line of CSV or JSON lines may hold`,
          'is it a file of rows, one a line? (nothing was sent)',
        );
      }
      if (newline === -1) break;
      line++;
      lineBytes = 0;
      at = newline + 1;
    }
    total += chunk.length;
    if (total > MAX_INPUT_BYTES) {
      throw usageError(`${source} is larger than ${formatSize(MAX_INPUT_BYTES)}, the most --from-file reads`, 'split it into several files (nothing was sent)');
    }
  };
}

const countLines = (chunk: Buffer, end: number): number => {
  let n = 0;
  for (let at = chunk.indexOf(0x0a); at !== -1 && at < end; at = chunk.indexOf(0x0a, at + 1)) n++;
  return n;
};

/** What is wrong with a JSON value given for a column whose values may be `kind` (see ColumnSpec.json). */
function jsonTypeProblem(value: unknown, kind: NonNullable<ColumnSpec['json']>): string | undefined {
  if (value === undefined || value === null || typeof value === 'string') return undefined;
  const whole = typeof value === 'number' && Number.isSafeInteger(value);
  if (whole && kind !== 'text' && kind !== 'boolean') return undefined;
  if (typeof value === 'boolean' && kind === 'boolean') return undefined;
  if (Array.isArray(value) && kind === 'list' && value.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v))))
    return undefined;
  const given = Array.isArray(value)
    ? 'an array'
    : typeof value === 'object'
      ? 'an object'
      : typeof value === 'number'
        ? `the number ${value}`
        : `${String(value)}`;
  const wanted = {
    text: 'a string',
    id: 'a string or a whole number',
    list: 'a string or an array of strings and whole numbers',
    boolean: 'true, false or a string',
  }[kind];
  return `${given} where ${wanted} is expected`;
}

/**
 * How columns a command does not declare are met: refused (a misspelt column would be silently lost), or,
 * for commands that take the rows another command printed (`channels list` into `channels archive`),
 * ignored.
 */
export interface ColumnRules {
  otherColumns?: 'refuse' | 'ignore';
  /** What is wrong with a row as a whole (`nothing to change`), checked with the file. */
  checkRow?: (row: InputRow) => string | undefined;
}

/**
 * The rows of the command's --from-file, read with its --encoding; undefined without --from-file, where
 * --encoding alone is a usage error.
 */
export async function fileRows(
  ctx: Pick<Context, 'io' | 'signal'>,
  { fromFile: file, encoding }: FromFile,
  columns: Columns,
  rules: ColumnRules = {},
): Promise<InputRow[] | undefined> {
  if (file) return readRows(ctx, file, columns, encoding, rules);
  if (encoding !== undefined) throw usageError('--encoding goes with --from-file');
  return undefined;
}

/** How a command names what it acts on, in its usage errors: `many` ("users"), `one` ("user (ID or e-mail)"). */
export interface Targets {
  many: string;
  one: string;
}

/**
 * What a command acts on: its arguments, or one per --from-file row (`fromRow`), never both and never neither.
 * The one reader of "arguments or --from-file" every bulk command shares.
 */
export async function argumentsOrRows<R>(
  ctx: Pick<Context, 'io' | 'signal'>,
  source: FromFile,
  args: readonly R[],
  targets: Targets,
  columns: Columns,
  fromRow: (row: InputRow) => R,
  rules?: ColumnRules,
): Promise<R[]> {
  if (source.fromFile && args.length) throw usageError(`give ${targets.many} as arguments or with --from-file, not both`);
  const rows = await fileRows(ctx, source, columns, rules);
  if (rows) return rows.map(fromRow);
  if (!args.length) throw usageError(`name at least one ${targets.one}, or pass --from-file`);
  return [...args];
}

export async function readRows(
  ctx: Pick<Context, 'io' | 'signal'>,
  file: string,
  columns: Columns,
  encoding?: string,
  rules: ColumnRules = {},
): Promise<InputRow[]> {
  const source = file === '-' ? 'stdin' : file;
  const decoder = decoderFor(encoding ?? 'utf-8');
  const bytes = await readInput(ctx, file, undefined, rowInputBounds(source, decoder.encoding));
  const text = decoder.decode(bytes);
  // Piped input with nothing in it is a report upstream that found nothing (a stale-user cron pipe on a quiet
  // day): nothing to do. A file named on the command line that holds nothing is more likely the wrong file.
  const piped = file === '-';
  if (!text.trim()) {
    if (piped) return [];
    throw usageError(`${source} is empty: no header and no rows`, `columns: ${describeColumns(columns)}`);
  }

  const problems: Problem[] = [];
  const json = /\.(jsonl|ndjson|json)$/i.test(file) || (file === '-' && /^[[{]/.test(text.trimStart()));
  const { rows, header } = json ? parseJsonLines(text, problems) : parseCsv(text, problems);
  if (decoder.encoding === 'utf-8') {
    const rowOfLine = (line: number) => rows.find((r) => r.line >= line)?.n;
    const bad = encodingProblems(bytes, text, 'UTF-8', rowOfLine);
    if (bad.length) {
      throw problemsError(source, bad, 'pass --encoding with the encoding the file was saved in (e.g. --encoding latin1); nothing was sent');
    }
  }

  const known = Object.keys(columns);
  const seen = header ?? [...new Set(rows.flatMap((r) => Object.keys(r.row)))];
  const others = rules.otherColumns === 'ignore' ? [] : seen.filter((c) => !known.includes(c));
  for (const name of others) problems.unshift({ line: header ? 1 : undefined, column: name, message: 'unknown column' });
  // A required column the CSV header lacks is one problem, not one per row.
  const absent = header ? known.filter((c) => columns[c]!.required && !header!.includes(c)) : [];
  for (const name of absent) problems.unshift({ line: 1, column: name, message: 'missing (required)' });
  if (!rows.length && !problems.length) {
    if (piped) return [];
    throw usageError(`${source} has a header but no rows`, `columns: ${describeColumns(columns)}`);
  }
  for (const r of rows) {
    for (const [name, spec] of Object.entries(columns)) {
      const wrongType = json ? jsonTypeProblem(r.row[name], spec.json ?? 'text') : undefined;
      if (wrongType) {
        problems.push({ line: r.line, row: r.n, column: name, message: wrongType });
        continue;
      }
      const value = cell(r.row, name).trim();
      const wrong = value === '' ? (spec.required && !absent.includes(name) ? 'empty (required)' : undefined) : spec.check?.(value);
      if (wrong) problems.push({ line: r.line, row: r.n, column: name, message: wrong });
    }
    const wrong = rules.checkRow?.(r.row);
    if (wrong) problems.push({ line: r.line, row: r.n, message: wrong });
  }
  if (problems.length) {
    // Problems of the columns themselves (the header's, or a JSON file's keys) belong to no row.
    const aboutColumns = problems.some((p) => p.row === undefined && p.column !== undefined);
    throw problemsError(source, problems, aboutColumns ? `columns: ${describeColumns(columns)} (nothing was sent)` : 'nothing was sent');
  }
  return rows.map((r) => r.row);
}

/** One usage error listing a file's problems, in file order, up to MAX_PROBLEMS. */
function problemsError(source: string, problems: readonly Problem[], hint: string) {
  const ordered = [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const shown = ordered.slice(0, MAX_PROBLEMS).map((p) => `  ${where(p)}`);
  if (problems.length > MAX_PROBLEMS) shown.push(`  and ${problems.length - MAX_PROBLEMS} more`);
  const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
  return usageError(`${source} has ${count}:\n${shown.join('\n')}`, hint);
}

export const describeColumns = (columns: Columns): string =>
  Object.entries(columns)
    .map(([name, c]) => `${name}${c.required ? ' (required)' : ''}`)
    .join(', ');

/** A cell as a string ('' when absent); JSON lines may carry numbers and booleans. */
export const cell = (row: InputRow, name: string): string => {
  const v = row[name];
  return v === undefined || v === null ? '' : Array.isArray(v) ? v.join(',') : String(v);
};
