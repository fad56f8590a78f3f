/**
 * Wire types of API parameters, declared once and used by both sides: the client encodes with them, the
 * embedded server decodes and validates with them, using the messages of a real Zulip server's typed
 * endpoints (`<name> is not a boolean`, `<name> is not valid JSON`, `Invalid <name>`, ...).
 *
 * Strings travel as they are; every other type travels JSON-encoded, as on a Zulip server.
 */
import { badRequest } from './errors.js';
import { LIMITS } from './limits.js';

export type Schema =
  | { t: 'string'; maxLength?: number; minLength?: number; oneOf?: readonly string[]; strip?: boolean; notBlank?: boolean }
  | { t: 'int'; min?: number; max?: number; oneOf?: readonly number[] }
  | { t: 'number' }
  | { t: 'bool' }
  | { t: 'null' }
  | { t: 'list'; of: Schema; maxItems: number; unique?: boolean }
  | { t: 'object'; fields: Record<string, Field>; extra?: boolean }
  | { t: 'dict'; of: Schema }
  | { t: 'union'; of: readonly Schema[]; describe: string }
  | { t: 'any' };

export interface Field {
  schema: Schema;
  required: boolean;
}

/** A schema that also carries, as a phantom, the TypeScript type its values decode to. */
export interface Typed<T> {
  readonly schema: Schema;
  readonly _type?: T;
}

export type TypeOf<S> = S extends Typed<infer T> ? T : never;

const typed = <T>(schema: Schema): Typed<T> => ({ schema });

export const s = {
  string: (o: Omit<Extract<Schema, { t: 'string' }>, 't'> = {}) => typed<string>({ t: 'string', ...o }),
  literal: <const L extends string>(values: readonly L[], o: { strip?: boolean } = {}) => typed<L>({ t: 'string', oneOf: values, ...o }),
  int: (o: Omit<Extract<Schema, { t: 'int' }>, 't'> = {}) => typed<number>({ t: 'int', ...o }),
  intOf: <const N extends number>(values: readonly N[]) => typed<N>({ t: 'int', oneOf: values }),
  number: () => typed<number>({ t: 'number' }),
  bool: () => typed<boolean>({ t: 'bool' }),
  /**
   * A JSON list of at most `maxItems` items (default: the general list limit). `unique` collapses repeated
   * items to the first, as a Zulip server takes ID lists as sets.
   */
  list: <T>(of: Typed<T>, o: { maxItems?: number; unique?: boolean } = {}) =>
    typed<T[]>({ t: 'list', of: of.schema, maxItems: o.maxItems ?? LIMITS.listItems, ...(o.unique ? { unique: true } : {}) }),
  dict: <T>(of: Typed<T>) => typed<Record<string, T>>({ t: 'dict', of: of.schema }),
  nullable: <T>(of: Typed<T>) => typed<T | null>({ t: 'union', of: [{ t: 'null' }, of.schema], describe: describe(of.schema) }),
  union: <A, B>(a: Typed<A>, b: Typed<B>, describeAs: string) => typed<A | B>({ t: 'union', of: [a.schema, b.schema], describe: describeAs }),
  object: <F extends Record<string, Typed<unknown> | Optional<unknown>>>(fields: F, o: { extra?: boolean } = {}) =>
    typed<ObjectOf<F>>({
      t: 'object',
      extra: o.extra,
      fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { schema: v.schema, required: !(v as Optional<unknown>).optional }])),
    }),
  optional: <T>(of: Typed<T>): Optional<T> => ({ schema: of.schema, optional: true }),
  any: <T = unknown>() => typed<T>({ t: 'any' }),
};

export interface Optional<T> extends Typed<T> {
  readonly optional: true;
}

type ObjectOf<F> = {
  [K in keyof F as F[K] extends Optional<unknown> ? never : K]: TypeOf<F[K]>;
} & {
  [K in keyof F as F[K] extends Optional<unknown> ? K : never]?: TypeOf<F[K]>;
};

function describe(schema: Schema): string {
  switch (schema.t) {
    case 'int':
      return 'an integer';
    case 'bool':
      return 'a boolean';
    case 'list':
      return 'a list';
    case 'object':
    case 'dict':
      return 'a dict';
    case 'number':
      return 'a float';
    case 'union':
      return schema.describe;
    default:
      return 'a string';
  }
}

const codePoints = (v: string): number => [...v].length;

/**
 * Validates a decoded JSON value against a schema. `path` is the name used in messages, with JSON-path
 * suffixes for nested values (`to[2] is not an integer`), as the real server words them.
 */
export function check(schema: Schema, value: unknown, path: string): unknown {
  switch (schema.t) {
    case 'any':
      return value;
    case 'null':
      if (value !== null) throw badRequest(`${path} is not null`);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw badRequest(`${path} is not a boolean`);
      return value;
    case 'number':
      if (typeof value !== 'number') throw badRequest(`${path} is not a float`);
      return value;
    case 'int': {
      if (typeof value !== 'number' || !Number.isInteger(value)) throw badRequest(`${path} is not an integer`);
      if (schema.oneOf && !schema.oneOf.includes(value)) {
        throw badRequest(`Invalid ${path}: Value error, Not in the list of possible values`);
      }
      if (schema.min !== undefined && value < schema.min) throw badRequest(`${path} is too small`);
      if (schema.max !== undefined && value > schema.max) throw badRequest(`${path} is too large`);
      return value;
    }
    case 'string': {
      if (typeof value !== 'string') throw badRequest(`${path} is not a string`);
      const v = schema.strip ? value.trim() : value;
      if (schema.oneOf && !schema.oneOf.includes(v)) throw badRequest(`Invalid ${path}`);
      if (schema.notBlank && v === '') throw badRequest(`${path} cannot be blank`);
      if (schema.maxLength !== undefined && codePoints(v) > schema.maxLength) {
        throw badRequest(`${path} is too long (limit: ${schema.maxLength} characters)`);
      }
      if (schema.minLength !== undefined && codePoints(v) < schema.minLength) throw badRequest(`${path} is too short.`);
      return v;
    }
    case 'list': {
      if (!Array.isArray(value)) throw badRequest(`${path} is not a list`);
      const items = schema.unique ? [...new Set(value)] : value;
      if (items.length > schema.maxItems) throw badRequest(`${path} has too many items (limit: ${schema.maxItems})`);
      return items.map((item, i) => check(schema.of, item, `${path}[${i}]`));
    }
    case 'dict': {
      if (!isPlainObject(value)) throw badRequest(`${path} is not a dict`);
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, check(schema.of, v, `${path}["${k}"]`)]));
    }
    case 'object': {
      if (!isPlainObject(value)) throw badRequest(`${path} is not a dict`);
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(schema.fields)) {
        const sub = `${path}["${key}"]`;
        if (!Object.hasOwn(value, key)) {
          if (field.required) throw badRequest(`${sub} field is missing: Field required`);
          continue;
        }
        out[key] = check(field.schema, value[key], sub);
      }
      for (const key of Object.keys(value)) {
        // Own keys only: `constructor` or `__proto__` in a request is an unknown key like any other.
        if (!Object.hasOwn(schema.fields, key)) {
          if (!schema.extra) throw badRequest(`Argument "${key}" at ${path} is unexpected`);
          Object.defineProperty(out, key, { value: value[key], enumerable: true, writable: true, configurable: true });
        }
      }
      return out;
    }
    case 'union': {
      for (const option of schema.of) {
        try {
          return check(option, value, path);
        } catch {
          // try the next alternative; the union's own message is reported below
        }
      }
      // A list every list alternative finds too long says so, rather than that it is not a list.
      const list = schema.of.find((o) => o.t === 'list');
      if (Array.isArray(value) && list?.t === 'list' && (list.unique ? new Set(value).size : value.length) > list.maxItems) {
        throw badRequest(`${path} has too many items (limit: ${list.maxItems})`);
      }
      throw badRequest(`${path} is not ${schema.describe}`);
    }
  }
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a parameter of this schema travels JSON-encoded (everything but plain strings). */
export const isJsonEncoded = (schema: Schema): boolean => !(schema.t === 'string' || (schema.t === 'union' && schema.of.every((o) => o.t === 'string')));

/** Decodes one raw wire value (a string from the form body or query string). */
export function decodeWire(schema: Schema, raw: string, name: string): unknown {
  if (!isJsonEncoded(schema)) return check(schema, raw, name);
  if (jsonDepth(raw) > LIMITS.jsonDepth) throw badRequest(`${name} is nested too deeply (limit: ${LIMITS.jsonDepth} levels)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
  return check(schema, parsed, name);
}

/**
 * The deepest nesting of arrays and objects in a JSON text, found without parsing it, so that a document too
 * deep for the code that walks it is refused before anything recurses into it. Malformed text is left to
 * JSON.parse.
 */
function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Encodes one value for the wire: strings as they are, the rest as JSON. */
export function encodeWire(schema: Schema, value: unknown): string {
  if (!isJsonEncoded(schema) && typeof value === 'string') return value;
  return JSON.stringify(value);
}
