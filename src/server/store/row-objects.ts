/**
 * Row objects made from arrays. better-sqlite3 builds each row object one property at a time: a user's row of
 * 30 columns took 17 µs that way against 6 µs as an array (reading values is not what costs), and every request
 * reads its caller's row, most read a channel's or a message's. So a reader statement of the store runs in
 * better-sqlite3's raw mode, and its rows become objects through a function made once per list of columns:
 * one object literal, so that every row of a statement has one shape from the start. The objects are the
 * ones better-sqlite3 makes (the same keys in the same order, a repeated name keeping its place and its last
 * value); the raw, pluck and expand modes are better-sqlite3's own.
 */
import type { Statement } from 'better-sqlite3';

type Mode = 'object' | 'raw' | 'pluck' | 'expand';
type MakeRow = (values: readonly unknown[]) => Record<string, unknown>;

/** Functions kept at most: one per list of columns, and statements are kept per connection by their text. */
const MAX_ROW_MAKERS = 2000;
const rowMakers = new Map<string, MakeRow>();

/** The function making rows of `names` from arrays of their values, the first at `offset`. */
function rowMaker(names: readonly string[], offset = 0): MakeRow {
  const key = `${offset}\0${names.join('\0')}`;
  let make = rowMakers.get(key);
  if (!make) {
    // Names come from the store's own SQL; JSON.stringify makes each a valid key whatever it holds.
    make = new Function('v', `return {${names.map((name, i) => `${JSON.stringify(name)}: v[${i + offset}]`).join(', ')}};`) as MakeRow;
    if (rowMakers.size >= MAX_ROW_MAKERS) rowMakers.clear();
    rowMakers.set(key, make);
  }
  return make;
}

/** A statement's row maker, for rows as wide as it was made for. */
interface Made {
  width: number;
  make: MakeRow;
}

/**
 * The maker of objects of `statement`'s columns from the `from`th on, for rows `width` wide: `made` (the one last
 * used) while that is its width, else made again (a schema changed by another process under a kept `SELECT *`
 * gives another number of columns).
 */
function makerFor(statement: Statement, made: Made | undefined, width: number, from: number): Made {
  if (made?.width === width) return made;
  const names = statement.columns().map((c) => c.name);
  return { width: names.length, make: rowMaker(names.slice(from), from) };
}

const tails = new WeakMap<Statement, Made>();

/**
 * The columns of `statement` from the `from`th on, as an object made from a raw row's `values`: for a statement
 * that reads a row beside values of its own (the first columns).
 */
export function objectFrom(statement: Statement, values: readonly unknown[], from: number): Record<string, unknown> {
  const kept = tails.get(statement);
  const made = makerFor(statement, kept, values.length, from);
  if (made !== kept) tails.set(statement, made);
  return made.make(values);
}

/** How a statement made with rowObjects is handed out again: in its plain mode, giving objects. */
export interface RowObjects {
  plain(): void;
}

/**
 * Makes `statement` (a reader) give its rows as objects through rowMaker, and answers how to put it back in its
 * plain mode. Its methods are replaced on the object itself: callers keep the statement better-sqlite3 made.
 */
export function rowObjects(statement: Statement): RowObjects {
  const native = Object.getPrototypeOf(statement) as Statement;
  let mode: Mode = 'object';
  let made: Made | undefined;
  const toObject = (values: readonly unknown[]): Record<string, unknown> => {
    made = makerFor(statement, made, values.length, 0);
    return made.make(values);
  };
  native.raw.call(statement, true);
  /** better-sqlite3's rule: turning one mode on turns the others off; turning it off goes back to objects. */
  const toggle = (which: Exclude<Mode, 'object'>) =>
    function (this: Statement, use = true): Statement {
      const next: Mode = use ? which : mode === which ? 'object' : mode;
      // Objects are made here from raw rows; what better-sqlite3 refuses (a statement being iterated) it refuses here too.
      native[next === 'object' ? 'raw' : next].call(this, true);
      mode = next;
      return this;
    };
  statement.raw = toggle('raw');
  statement.pluck = toggle('pluck');
  statement.expand = toggle('expand');
  statement.get = function (this: Statement, ...params: unknown[]): unknown {
    const row: unknown = native.get.apply(this, params);
    return mode === 'object' && Array.isArray(row) ? toObject(row) : row;
  };
  statement.all = function (this: Statement, ...params: unknown[]): unknown[] {
    const rows: unknown[] = native.all.apply(this, params);
    if (mode === 'object') for (let i = 0; i < rows.length; i++) rows[i] = toObject(rows[i] as unknown[]);
    return rows;
  };
  statement.iterate = function (this: Statement, ...params: unknown[]): IterableIterator<unknown> {
    const rows: IterableIterator<unknown> = native.iterate.apply(this, params);
    return mode === 'object' ? objectsOf(rows, toObject) : rows;
  };
  return {
    plain: () => {
      if (mode === 'object') return;
      native.raw.call(statement, true);
      mode = 'object';
    },
  };
}

/**
 * The rows of a raw iteration as objects. Ending it ends the statement's iteration, whether or not a row was
 * read (a generator not yet started would drop its `return` and leave the statement locked).
 */
function objectsOf(rows: IterableIterator<unknown>, toObject: (values: readonly unknown[]) => Record<string, unknown>): IterableIterator<unknown> {
  return {
    next: () => {
      const step = rows.next();
      return step.done ? step : { done: false, value: toObject(step.value as unknown[]) };
    },
    return: (value?: unknown) => rows.return?.(value) ?? { done: true, value },
    [Symbol.iterator]() {
      return this;
    },
  };
}
