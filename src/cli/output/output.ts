/**
 * The one output layer. Data goes to stdout only, in the format asked for:
 * - table: on a TTY by default; headers, colour unless NO_COLOR, fitted to the terminal width keeping the
 *   identifying columns (table.ts), and whole when piped; times in one format and roles by name (display.ts);
 * - tsv: when piped by default; no header, no colour, no truncation;
 * - json: the data itself (an array for lists, `[]` when empty); ndjson: one object a line, streamed;
 * - csv: with a header row.
 * `--fields a,b` picks and orders the fields; an unknown one is a usage error that lists the valid ones.
 * `--jq` and `--template` (transform.ts) print the JSON result through a jq program or a template instead.
 */
import { once } from 'node:events';
import { createRequire } from 'node:module';
import type { IO } from '../core/io.js';
import { usageError } from '../core/errors.js';
import { clearProgress } from './progress.js';
import { dateOf, relativeTime, rfc3339, roleText, type TimeUnit } from './display.js';
import { renderTable } from './table.js';
import { nowMs as systemNowMs } from '../../time.js';
import { loadTransform, transforms, type Transform, type TransformFlags } from './transform.js';

export const FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
export type Format = (typeof FORMATS)[number];

/** A record to print; any object with wire field names. */
export type Row = object;

export const fieldOf = (row: Row, field: string): unknown => (row as Record<string, unknown>)[field];

export interface OutputSpec {
  /** Every field a row may have (wire names), in display order. */
  fields: readonly string[];
  /** The columns of table and TSV output when --fields is not given. */
  columns?: readonly string[];
  /**
   * Fields holding times: UNIX seconds or milliseconds, shown as RFC 3339 (UTC) in tables, TSV and CSV; or
   * ISO 8601 strings, shown so in tables and as the server sent them in TSV and CSV. JSON keeps the wire values.
   */
  times?: Readonly<Record<string, TimeUnit>>;
  /** Fields holding a role's wire value: tables show its name (TSV, CSV and JSON keep the number). */
  roles?: readonly string[];
  /** The identifying fields (IDs, names, e-mails): a narrow terminal's table keeps them whole while others give way. */
  key?: readonly string[];
  /**
   * Fields only a report option fills, by the name of that option in the command's options: --fields naming
   * one without its option is a usage error saying which option adds it, rather than an empty column.
   */
  addedBy?: Readonly<Record<string, string>>;
}

/**
 * The output options as parsed (command.ts declares them): --fields already checked against the fields;
 * --jq and --template already checked, and given only with JSON (or NDJSON) output.
 */
export interface OutputFlags extends TransformFlags {
  json?: boolean;
  format?: Format;
  fields?: readonly string[];
  /** Times in tables relative to now ("3 days ago"). */
  relative?: boolean;
}

export const COLOR_MODES = ['auto', 'always', 'never'] as const;
export type ColorMode = (typeof COLOR_MODES)[number];

const require = createRequire(import.meta.url);

export function resolveFormat(flags: OutputFlags, io: IO): Format {
  // A jq program or a template reads JSON: the whole result, or each record with NDJSON.
  if (transforms(flags)) return flags.format === 'ndjson' ? 'ndjson' : 'json';
  if (flags.json) return 'json';
  return flags.format ?? (io.stdoutIsTTY ? 'table' : 'tsv');
}

/** `--fields a,b` into the fields, each one of the spec's. */
export function parseFields(spec: OutputSpec, raw: string): string[] {
  const fields = raw
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  const unknown = fields.filter((f) => !spec.fields.includes(f));
  if (unknown.length || fields.length === 0) {
    throw usageError(
      `unknown field${unknown.length === 1 ? '' : 's'} ${unknown.map((f) => `"${f}"`).join(', ') || '(none given)'}`,
      `valid fields: ${spec.fields.join(', ')}`,
    );
  }
  return fields;
}

/** Whether to colour stderr/stdout text, from --color, NO_COLOR, FORCE_COLOR / CLICOLOR_FORCE and the TTY. */
export function useColor(mode: ColorMode, env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean {
  if (mode === 'always') return true;
  if (mode === 'never') return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if ((env.FORCE_COLOR && env.FORCE_COLOR !== '0') || (env.CLICOLOR_FORCE && env.CLICOLOR_FORCE !== '0')) return true;
  return isTTY && env.TERM !== 'dumb';
}

const pick = (row: Row, fields: readonly string[] | null): Row => (fields ? Object.fromEntries(fields.map((f) => [f, fieldOf(row, f) ?? null])) : row);

/** A cell as text: nothing for null, JSON for structures. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const tsvCell = (value: unknown): string => cellText(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');

export class Output {
  readonly format: Format;
  private readonly fields: readonly string[] | null;
  private readonly relative: boolean;
  /** The --jq or --template transform, loaded when first used; null when neither is given. */
  private readonly transform: (() => Promise<Transform>) | null = null;

  constructor(
    private readonly io: IO,
    private readonly spec: OutputSpec,
    flags: OutputFlags,
    private readonly color: boolean,
    private readonly nowMs: () => number = systemNowMs,
  ) {
    this.format = resolveFormat(flags, io);
    this.fields = flags.fields ?? null;
    this.relative = flags.relative === true;
    if (transforms(flags)) {
      let loaded: Promise<Transform> | undefined;
      this.transform = () => (loaded ??= loadTransform(flags, { color, nowMs }));
    }
  }

  get isJson(): boolean {
    return this.format === 'json' || this.format === 'ndjson';
  }

  private columns(): readonly string[] {
    return this.fields ?? this.spec.columns ?? this.spec.fields;
  }

  /** A field's value as TSV and CSV show it: UNIX times as RFC 3339. */
  private shown(row: Row, field: string): unknown {
    const value = fieldOf(row, field);
    const unit = this.spec.times?.[field];
    if ((unit !== 's' && unit !== 'ms') || typeof value !== 'number') return value;
    // Seconds have no fraction to show; milliseconds keep theirs.
    return unit === 's' ? new Date(value * 1000).toISOString().replace(/\.000Z$/, 'Z') : new Date(value).toISOString();
  }

  /** A field's value as a table shows it to a person: every time in one format, roles by name. */
  private cell(row: Row, field: string): string {
    const value = fieldOf(row, field);
    const unit = this.spec.times?.[field];
    const date = unit && dateOf(value, unit);
    if (date) return this.relative ? relativeTime(date, this.nowMs()) : rfc3339(date);
    return cellText(this.spec.roles?.includes(field) ? roleText(value) : value);
  }

  private write(text: string): void {
    clearProgress(this.io);
    this.io.stdout.write(text);
  }

  /** Prints a list. NDJSON and TSV rows are written as they come, so long lists stream. */
  async list(rows: Iterable<Row> | AsyncIterable<Row>): Promise<number> {
    if (this.transform) return this.transformed(this.transform, oneByOne(rows));
    let count = 0;
    const buffered: Row[] = [];
    const streaming = this.format === 'ndjson' || this.format === 'tsv';
    for await (const row of rows) {
      count++;
      if (!this.rowNow(row)) buffered.push(row);
    }
    if (!streaming) await this.flush(buffered);
    return count;
  }

  /**
   * Prints a list whose rows arrive a chunk at a time (ChatClient.stream), each chunk written as it comes in
   * every format but a table, which needs all rows for its column widths: the list is never held whole. The
   * text is what `list` prints. A failure midway leaves what was printed (a JSON array without its end).
   */
  async stream(chunks: AsyncIterable<readonly Row[]>): Promise<number> {
    if (this.transform) return this.transformed(this.transform, chunks);
    if (this.format === 'table') {
      const rows: Row[] = [];
      for await (const chunk of chunks) for (const row of chunk) rows.push(row);
      await this.flush(rows);
      return rows.length;
    }
    const text = this.listText();
    let count = 0;
    for await (const chunk of chunks) {
      count += chunk.length;
      await this.writeWaiting(text.rows(chunk));
    }
    await this.writeWaiting(text.end());
    return count;
  }

  /**
   * Writes one row of a list at once, when the format streams (NDJSON, TSV), and says whether it did: for
   * a command's last words, when the process exits before the list could be finished.
   */
  rowNow(row: Row): boolean {
    // A transform is asynchronous: rows it has not printed are left to the summary.
    if (this.transform || (this.format !== 'ndjson' && this.format !== 'tsv')) return false;
    this.write(this.line(row));
    return true;
  }

  /** Prints one object: JSON as it is; tables as field/value pairs. */
  async item(row: Row): Promise<void> {
    if (this.transform) {
      await this.writeWaiting(await (await this.transform())([row]));
      return;
    }
    switch (this.format) {
      case 'json':
        this.write(`${JSON.stringify(pick(row, this.fields), null, this.io.stdoutIsTTY ? 2 : undefined)}\n`);
        return;
      case 'ndjson':
        this.write(`${JSON.stringify(pick(row, this.fields))}\n`);
        return;
      case 'table': {
        const fields = this.fields ?? Object.keys(row);
        await this.renderTable(
          ['FIELD', 'VALUE'],
          fields.map((f) => [f, this.cell(row, f)]),
          [true, false],
          [false, false],
        );
        return;
      }
      default:
        await this.flush([row]);
    }
  }

  /**
   * A list through --jq or --template: once over the whole array, collected from every chunk; with NDJSON,
   * once per record, each chunk printed as it comes.
   */
  private async transformed(transform: () => Promise<Transform>, chunks: AsyncIterable<readonly Row[]>): Promise<number> {
    const apply = await transform();
    const all: Row[] = [];
    let count = 0;
    for await (const chunk of chunks) {
      count += chunk.length;
      if (this.format === 'ndjson') await this.writeWaiting(await apply(chunk));
      else all.push(...chunk);
    }
    if (this.format !== 'ndjson') await this.writeWaiting(await apply([all]));
    return count;
  }

  private async flush(rows: Row[]): Promise<void> {
    if (this.format !== 'table') {
      const text = this.listText();
      this.write(text.rows(rows) + text.end());
      return;
    }
    if (rows.length === 0) return;
    const cols = this.columns();
    await this.renderTable(
      cols.map((c) => c.toUpperCase()),
      rows.map((r) => cols.map((c) => this.cell(r, c))),
      cols.map((c) => this.spec.key?.includes(c) === true),
      cols.map((c) => this.spec.times?.[c] !== undefined),
    );
  }

  /** One row as an NDJSON or TSV line. */
  private line(row: Row): string {
    if (this.format === 'ndjson') return `${JSON.stringify(pick(row, this.fields))}\n`;
    return `${this.columns()
      .map((c) => tsvCell(this.shown(row, c)))
      .join('\t')}\n`;
  }

  /**
   * The text of a list in any format but a table, a chunk of rows at a time (`rows`), then its `end`: the
   * same text whether the list comes in one chunk or many.
   */
  private listText(): { rows(rows: readonly Row[]): string; end(): string } {
    let count = 0;
    switch (this.format) {
      case 'json': {
        const indent = this.io.stdoutIsTTY ? 2 : undefined;
        return {
          rows: (rows) => {
            if (!rows.length) return '';
            // The elements as JSON.stringify writes them in the whole array: its text without the brackets.
            const array = JSON.stringify(
              rows.map((r) => pick(r, this.fields)),
              null,
              indent,
            );
            const elements = indent ? array.slice(2, -2) : array.slice(1, -1);
            const before = count ? (indent ? ',\n' : ',') : indent ? '[\n' : '[';
            count += rows.length;
            return before + elements;
          },
          end: () => (count === 0 ? '[]\n' : indent ? '\n]\n' : ']\n'),
        };
      }
      case 'csv': {
        const { stringify } = require('csv-stringify/sync') as typeof import('csv-stringify/sync');
        const cols = this.columns();
        const csv = (rows: readonly Row[], header: boolean) =>
          stringify(
            rows.map((r) => cols.map((c) => cellText(this.shown(r, c)))),
            { header, columns: [...cols] },
          );
        return {
          rows: (rows) => {
            if (!rows.length) return '';
            const header = count === 0;
            count += rows.length;
            return csv(rows, header);
          },
          // The header alone, for a list with no rows.
          end: () => (count === 0 ? csv([], true) : ''),
        };
      }
      default:
        return { rows: (rows) => rows.map((r) => this.line(r)).join(''), end: () => '' };
    }
  }

  /** Writes `text`, waiting until stdout takes more when it is full: a list printed as it comes is never held in its buffer. */
  private async writeWaiting(text: string): Promise<void> {
    if (text === '') return;
    clearProgress(this.io);
    if (this.io.stdout.write(text)) return;
    await once(this.io.stdout, 'drain');
  }

  private async renderTable(head: string[], body: string[][], keys: boolean[], whole: boolean[]): Promise<void> {
    // Piped (--format table into a file or a pager), there is no width to fit: nothing is cut or left out.
    const columns = this.io.stdoutIsTTY ? this.io.columns : Number.POSITIVE_INFINITY;
    this.write(await renderTable({ head, body, keys, whole }, { columns, color: this.color }));
  }
}

/** The rows of a list as chunks of one, for what takes chunks. */
async function* oneByOne(rows: Iterable<Row> | AsyncIterable<Row>): AsyncIterable<readonly Row[]> {
  for await (const row of rows) yield [row];
}
