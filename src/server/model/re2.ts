/**
 * The regular-expression engine of linkifiers: RE2 semantics in linear time (re2js, a port of RE2/J), as a
 * Zulip server compiles them with `re2`, so no pattern an administrator saves lets a message stall the
 * server. Loaded on first use: most commands never compile a linkifier, and start-up time is a feature.
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

export type Re2 = RE2JS;

let engine: typeof import('re2js') | undefined;
const load = (): typeof import('re2js') => (engine ??= createRequire(import.meta.url)('re2js') as typeof import('re2js'));

/**
 * The parser's error codes as RE2/J words them, in the words of RE2 itself (C++, which a Zulip server
 * quotes after `Bad regular expression: `).
 */
const RE2_WORDING: Record<string, string> = {
  'missing closing )': 'missing )',
  'missing closing ]': 'missing ]',
  'invalid or unsupported Perl syntax': 'invalid perl operator',
  'invalid named capture': 'invalid named capture group',
  'duplicate capture group name': 'duplicate capture group name',
  'invalid nested repetition operator': 'bad repetition operator',
  'invalid repeat count': 'bad repetition operator',
  'trailing backslash at end of expression': 'trailing \\',
};

/**
 * Compiled patterns, by source: every message renders with every linkifier, and compiling is the costly
 * part (a long pattern takes tens of milliseconds). Compiled regexps hold no match state, so one serves all.
 */
const compiled = new Map<string, { regex: Re2 } | { error: string }>();
const MAX_COMPILED = 256;

/** Compiles `pattern` (RE2 syntax: `(?P<name>`, leading `(?flags)`), or says why RE2 refuses it. */
export function compileRe2(pattern: string): { regex: Re2 } | { error: string } {
  let result = compiled.get(pattern);
  if (!result) {
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    result = compile(pattern);
    compiled.set(pattern, result);
  }
  return result;
}

function compile(pattern: string): { regex: Re2 } | { error: string } {
  const { RE2JS, RE2JSSyntaxException } = load();
  try {
    return { regex: RE2JS.compile(pattern) };
  } catch (e) {
    if (!(e instanceof RE2JSSyntaxException)) return { error: e instanceof Error ? e.message : String(e) };
    const code = RE2_WORDING[e.error] ?? e.error;
    return { error: e.input === null ? code : `${code}: ${e.input}` };
  }
}
