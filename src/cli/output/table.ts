/**
 * Table layout for people on a terminal: aligned columns, bold headers when colour is on, and a width that
 * fits the terminal. When the terminal is narrow the identifying columns (IDs, names, e-mails: the spec's
 * `key`) keep their full width while the others shrink first (times are never cut), then are left out from
 * the right; a key column is cut only when the keys alone do not fit.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Room between columns. */
const PAD = 2;
/** Narrowest a column other than a key shrinks to (with its padding) before columns are left out. */
const MIN_OTHER = 8;
/** Narrowest a key column is cut to when even the keys alone do not fit. */
const MIN_KEY = 6;

export interface TableText {
  head: readonly string[];
  body: readonly (readonly string[])[];
  /** For each column, whether it identifies the row (kept whole while other columns can give way). */
  keys: readonly boolean[];
  /** For each column, whether it is shown whole or not at all (a time). */
  whole?: readonly boolean[];
}

/** Which columns are shown and how wide each is (padding included). */
export interface Layout {
  shown: number[];
  widths: number[];
}

const textWidth = (s: string): number => [...s].length;
const total = (widths: readonly number[]): number => widths.reduce((a, b) => a + b, 0);

/** Cuts the widest of `columns` a cell at a time while the table is wider than `room` and one is above its floor. */
function shrink(widths: number[], columns: readonly number[], floor: (i: number) => number, room: number): void {
  while (total(widths) > room) {
    const cuttable = columns.filter((i) => widths[i]! > floor(i));
    if (!cuttable.length) return;
    const widest = cuttable.reduce((a, b) => (widths[b]! > widths[a]! ? b : a));
    widths[widest]! -= 1;
  }
}

/** The columns and widths that fit `columns` terminal cells, giving way in the order the module comment says. */
export function layout(t: TableText, columns: number): Layout {
  const natural = t.head.map((h, i) => Math.max(textWidth(h), ...t.body.map((r) => textWidth(r[i] ?? ''))) + PAD);
  let shown = natural.map((_, i) => i);
  for (;;) {
    const widths = shown.map((i) => natural[i]!);
    const at = (pos: number) => shown[pos]!;
    const positions = shown.map((_, pos) => pos);
    const others = positions.filter((pos) => !t.keys[at(pos)]);
    // A time cut short says nothing: such a column is left out rather than cut.
    shrink(widths, others, (pos) => (t.whole?.[at(pos)] ? natural[at(pos)]! : Math.min(MIN_OTHER, natural[at(pos)]!)), columns);
    const last = others.at(-1);
    if (total(widths) <= columns || last === undefined || shown.length === 1) {
      // Only the keys remain and still do not fit: they are cut, the widest first.
      shrink(widths, positions, () => MIN_KEY, columns);
      return { shown, widths };
    }
    shown = shown.filter((_, pos) => pos !== last);
  }
}

/** The table as text, each line without trailing spaces, ending with a newline. */
export async function renderTable(t: TableText, o: { columns: number; color: boolean }): Promise<string> {
  const Table = require('cli-table3') as typeof import('cli-table3');
  const { shown, widths } = layout(t, o.columns);
  let headers = shown.map((i) => t.head[i]!);
  if (o.color) {
    // Our own decision (NO_COLOR, --color), not chalk's detection of the stream.
    const { Chalk } = await import('chalk');
    const chalk = new Chalk({ level: 1 });
    headers = headers.map((h) => chalk.bold(h));
  }
  // cli-table3 colours borders and headers by itself even in pipes; the style is ours to decide.
  const table = new Table({
    head: headers,
    colWidths: widths,
    wordWrap: false,
    truncate: '…',
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': PAD },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
  });
  for (const r of t.body) table.push(shown.map((i) => (r[i] ?? '').replace(/\s+/g, ' ')));
  return `${table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')}\n`;
}
