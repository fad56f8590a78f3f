/**
 * The parameters of `chatctl api`, as gh's `api` takes them: `-f key=value` raw strings, `-F key=value`
 * typed values (numbers, booleans, null, JSON lists and objects; `@file` or `@-` a file upload), `-H 'Name:
 * value'` headers. On the wire they are what a Zulip server reads from a form: strings as they are, every
 * other value JSON-encoded (`5`, `true`, `null`, `[1,2]`).
 */
import { isPlainObject } from '../../api/schema.js';
import { usageError } from '../core/errors.js';

/** A parameter's value: a JSON value to encode, or a file to upload from a path (`-` for stdin). */
export type FieldValue = { kind: 'value'; value: unknown } | { kind: 'file'; path: string };

export interface Field {
  key: string;
  value: FieldValue;
}

function split(value: string, flag: string): [string, string] {
  const eq = value.indexOf('=');
  if (eq <= 0) throw usageError(`${flag} takes key=value, not "${value}"`);
  return [value.slice(0, eq), value.slice(eq + 1)];
}

/** `-f key=value`: the value is a string, sent as written. */
export function parseRawField(value: string): Field {
  const [key, text] = split(value, '-f');
  return { key, value: { kind: 'value', value: text } };
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const LITERALS: Readonly<Record<string, unknown>> = { true: true, false: false, null: null };

/**
 * `-F key=value`: `true`, `false` and `null` are those values, a number is a number, text starting with `[`
 * or `{` is JSON (a usage error when it does not parse, so a typo is not sent as a string), `@path` uploads
 * a file (`@-` stdin); anything else is a string.
 */
export function parseTypedField(value: string): Field {
  const [key, text] = split(value, '-F');
  if (text.startsWith('@')) {
    const path = text.slice(1);
    if (path === '') throw usageError(`-F ${key}=@ needs a file name (@- for stdin)`);
    return { key, value: { kind: 'file', path } };
  }
  if (text in LITERALS) return { key, value: { kind: 'value', value: LITERALS[text] } };
  if (NUMBER.test(text)) return { key, value: { kind: 'value', value: Number(text) } };
  if (/^\s*[[{]/.test(text)) {
    try {
      return { key, value: { kind: 'value', value: JSON.parse(text) as unknown } };
    } catch {
      throw usageError(`-F ${key}: ${text} is not valid JSON`, 'pass the text as a string with -f instead');
    }
  }
  return { key, value: { kind: 'value', value: text } };
}

/** A value as a Zulip form carries it: strings as they are, the rest as JSON. */
export const wireText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** `-H 'Name: value'`: a header, its name lower-cased as the wire request holds them. */
export function parseHeader(value: string): [string, string] {
  const colon = value.indexOf(':');
  const name = value.slice(0, Math.max(colon, 0)).trim();
  if (colon <= 0 || !/^[!#$%&'*+.^`|~\w-]+$/.test(name)) throw usageError(`-H takes 'Name: value', not "${value}"`);
  return [name.toLowerCase(), value.slice(colon + 1).trim()];
}

/**
 * The fields of an `--input` body: a JSON object (each value sent as a form field, JSON-encoded unless it
 * is a string), or form-encoded text (`a=1&b=2`), as a Zulip server takes its bodies.
 */
export function parseInputBody(text: string, source: string): Field[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (!/^[[{"]/.test(trimmed)) return [...new URLSearchParams(trimmed)].map(([key, value]) => ({ key, value: { kind: 'value', value } }));
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw usageError(`--input ${source} is not valid JSON`, 'give a JSON object of parameters, or form-encoded text (a=1&b=2)');
  }
  if (!isPlainObject(parsed)) throw usageError(`--input ${source} must be a JSON object of parameters`);
  return Object.entries(parsed).map(([key, value]) => ({ key, value: { kind: 'value', value } }));
}
