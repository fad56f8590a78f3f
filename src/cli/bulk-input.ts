/**
 * `--from-file FILE|-`: rows for bulk commands, as CSV with a header or as JSON lines (one object a line).
 * The format follows the file's extension; from stdin it is sniffed (a line starting with `{` is JSON).
 * Columns are checked against the command's declaration before anything is sent, so a bad file changes nothing.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Context } from './context.js';
import { usageError } from './errors.js';
import { readAll } from './io.js';

export type InputRow = Record<string, unknown>;

export interface ColumnSpec {
  required?: boolean;
  description: string;
}

export type Columns = Record<string, ColumnSpec>;

const require = createRequire(import.meta.url);

function parseJsonLines(text: string, source: string): InputRow[] {
  const rows: InputRow[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw usageError(`${source}:${i + 1}: not valid JSON`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw usageError(`${source}:${i + 1}: each line must be a JSON object`);
    rows.push(value as InputRow);
  });
  return rows;
}

function parseCsv(text: string, source: string): InputRow[] {
  const { parse } = require('csv-parse/sync') as typeof import('csv-parse/sync');
  try {
    return parse(text, { columns: (header: string[]) => header.map((h) => h.trim()), skip_empty_lines: true, trim: true, bom: true }) as InputRow[];
  } catch (e) {
    throw usageError(`${source}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export async function readRows(ctx: Context, file: string, columns: Columns): Promise<InputRow[]> {
  const source = file === '-' ? 'stdin' : file;
  let text: string;
  try {
    text = file === '-' ? await readAll(ctx.io.stdin) : readFileSync(file, 'utf8');
  } catch (e) {
    throw usageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const json = /\.(jsonl|ndjson|json)$/i.test(file) || (file === '-' && text.trimStart().startsWith('{'));
  const rows = json ? parseJsonLines(text, source) : parseCsv(text, source);
  const known = Object.keys(columns);
  const seen = new Set(rows.flatMap((r) => Object.keys(r)));
  const unknown = [...seen].filter((c) => !known.includes(c));
  if (unknown.length) throw usageError(`${source}: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`, `columns: ${describeColumns(columns)}`);
  rows.forEach((r, i) => {
    for (const [name, spec] of Object.entries(columns)) {
      if (spec.required && (r[name] === undefined || r[name] === '')) {
        throw usageError(`${source}: row ${i + 1} has no ${name}`, `columns: ${describeColumns(columns)}`);
      }
    }
  });
  return rows;
}

export const describeColumns = (columns: Columns): string =>
  Object.entries(columns).map(([name, c]) => `${name}${c.required ? ' (required)' : ''}`).join(', ');

/** A cell as a string ('' when absent); JSON lines may carry numbers and booleans. */
export const cell = (row: InputRow, name: string): string => {
  const v = row[name];
  return v === undefined || v === null ? '' : Array.isArray(v) ? v.join(',') : String(v);
};
