/**
 * `--template`: the result through a Handlebars template (the standard logic-light template language of
 * JavaScript, as Go templates are gh's), with helpers in the spirit of gh's: tables, times, colour, lists.
 * Handlebars and chalk are imported only when a template is given. Output is text, so nothing is
 * HTML-escaped; helpers the template names must exist, so a typo is a usage error before anything runs.
 */
import { stripVTControlCharacters } from 'node:util';
import { ChatctlError } from '../../errors.js';
import { usageError } from '../core/errors.js';
import { cellText, fieldOf } from './output.js';
import { instantOf, rfc3339, timeAgo } from './time-text.js';

export interface TemplateSettings {
  /** Whether `color` colours (--color, NO_COLOR, the TTY: useColor's decision). */
  color: boolean;
  nowMs: () => number;
}

const HELPERS = ['tablerow', 'tablerender', 'timeago', 'rfc3339', 'color', 'join', 'pluck', 'json'] as const;

const COMPILE_OPTIONS = {
  noEscape: true,
  knownHelpersOnly: true,
  knownHelpers: Object.fromEntries(HELPERS.map((h) => [h, true])),
};

const load = async () => (await import('handlebars')).default;

/** A usage error unless `source` compiles (its syntax, and only helpers that exist). */
export async function checkTemplate(source: string): Promise<void> {
  const hbs = await load();
  try {
    hbs.precompile(source, COMPILE_OPTIONS);
  } catch (e) {
    throw usageError(`invalid --template: ${e instanceof Error ? e.message : String(e)}`, 'see chatctl help output');
  }
}

/** Helper arguments without Handlebars' trailing options object. */
const paramsOf = (args: readonly unknown[]): unknown[] => args.slice(0, -1);

/** Rows aligned in columns two spaces apart, widths measured without colour codes. */
function renderTable(rows: readonly (readonly string[])[]): string {
  const width = (s: string) => [...stripVTControlCharacters(s)].length;
  const widths: number[] = [];
  for (const row of rows) for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, width(cell));
  const padded = (cell: string, i: number, row: readonly string[]) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell) + 2));
  return rows.map((row) => `${row.map(padded).join('')}\n`).join('');
}

/** Prints values through `source`; a helper's failure (an unknown colour) is exit 1. */
export async function compileTemplate(source: string, settings: TemplateSettings): Promise<(value: unknown) => string> {
  const hbs = (await load()).create();
  const { Chalk, foregroundColorNames, backgroundColorNames, modifierNames } = await import('chalk');
  const chalk = new Chalk({ level: settings.color ? 1 : 0 });
  const styles: readonly string[] = [...foregroundColorNames, ...backgroundColorNames, ...modifierNames];
  const isStyle = (name: string): name is (typeof foregroundColorNames)[number] | (typeof backgroundColorNames)[number] | (typeof modifierNames)[number] =>
    styles.includes(name);
  // Rows from `tablerow`, until `tablerender` (or the end of the template) prints them aligned.
  let table: string[][] = [];
  const timeHelper = (show: (ms: number) => string) => (value: unknown) => {
    const ms = instantOf(value);
    return ms === null ? cellText(value) : show(ms);
  };

  hbs.registerHelper({
    tablerow: (...args: unknown[]) => {
      table.push(paramsOf(args).map(cellText));
      return '';
    },
    tablerender: () => {
      const text = renderTable(table);
      table = [];
      return text;
    },
    timeago: timeHelper((ms) => timeAgo(ms, settings.nowMs())),
    rfc3339: timeHelper(rfc3339),
    color: (style: unknown, value: unknown) => {
      let text = cellText(value);
      // `red`, or several joined by `+` (`bold+red`, the first outermost); checked even when colour is
      // off, so a typo shows.
      for (const name of String(style).split('+').reverse()) {
        if (!isStyle(name)) throw new ChatctlError(`template: unknown colour "${name}" (of: ${styles.join(', ')})`);
        text = chalk[name](text);
      }
      return text;
    },
    join: (...args: unknown[]) => {
      const [list, separator] = paramsOf(args);
      return Array.isArray(list) ? list.map(cellText).join(typeof separator === 'string' ? separator : ', ') : cellText(list);
    },
    pluck: (list: unknown, field: unknown) =>
      Array.isArray(list) ? list.map((item: unknown) => (item !== null && typeof item === 'object' ? fieldOf(item, String(field)) : undefined)) : [],
    json: (value: unknown) => JSON.stringify(value ?? null),
  });
  const render = hbs.compile(source, COMPILE_OPTIONS);
  return (value) => {
    table = [];
    try {
      // Rows never rendered are printed at the end, as gh does.
      return render(value) + renderTable(table);
    } catch (e) {
      if (e instanceof ChatctlError) throw e;
      throw new ChatctlError(`template: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}
