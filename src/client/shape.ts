/**
 * The request a server at a given feature level takes for an operation call: the one place where chatctl
 * adapts to older servers, from what the catalogue declares (an operation's `minFeatureLevel` and older
 * forms, a parameter's `minFeatureLevel` and older names or values). What the server cannot do is refused
 * here, before anything is sent: a server ignores a parameter it does not know and answers success, which
 * would report as done what was not.
 */
import { isDeepStrictEqual } from 'node:util';
import { hasOlderFormFor, olderFormFor, type AnyOlderForm } from '../api/older.js';
import { NotAtLevel, type Operation, type ParamDef } from '../api/operation.js';
import { encodeWire } from '../api/schema.js';
import { FeatureLevelError } from './features.js';

/** How the person asked for a parameter (`--group`), for messages; absent: the parameter's name. */
export type ParamLabels = Readonly<Record<string, string>>;

/** One request as it goes to the server: its operation, path values, and encoded parameters. */
export interface ShapedCall {
  readonly op: Operation;
  readonly pathValues: Readonly<Record<string, unknown>>;
  readonly pairs: readonly [string, string][];
  /** Wire names of the parameters given (after renaming), by the name the caller used. */
  readonly sent: ReadonlyMap<string, string>;
}

export interface Shape {
  readonly calls: readonly ShapedCall[];
  /** The older form used, if any (its `response` turns the answer into the current shape). */
  readonly form?: AnyOlderForm;
}

export const labelOf = (op: Operation, name: string, labels?: ParamLabels): string => labels?.[name] ?? `${op.name} parameter ${name}`;

/** Newest first, so that each older form receives what the next newer one made. */
const byBeforeDescending = <F extends { before: number }>(forms: readonly F[]): F[] => [...forms].sort((a, b) => b.before - a.before);

/** Runs an older form; what it cannot express (`NotAtLevel`) needs the level `before`, which the server lacks. */
function atLevel<T>(before: number, level: number, run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof NotAtLevel) throw new FeatureLevelError(e.what, before, level);
    throw e;
  }
}

function shapeParams(op: Operation, params: Readonly<Record<string, unknown>>, level: number | undefined, labels?: ParamLabels): ShapedCall {
  if (level !== undefined && op.minFeatureLevel !== undefined && level < op.minFeatureLevel) {
    throw new FeatureLevelError(op.name, op.minFeatureLevel, level);
  }
  const pathValues: Record<string, unknown> = {};
  const pairs: [string, string][] = [];
  const sent = new Map<string, string>();
  for (const [name, value] of Object.entries(params)) {
    const def: ParamDef | undefined = op.params[name];
    if (!def) throw new Error(`${op.name} has no parameter ${name}`);
    if (def.in === 'path') {
      pathValues[name] = value;
      continue;
    }
    if (value === undefined) continue;
    let wireName = name;
    let wireValue: unknown = value;
    if (level !== undefined) {
      if (def.minFeatureLevel !== undefined && level < def.minFeatureLevel) {
        // A server without the parameter acts as its default does: leaving the default out loses nothing.
        if ('default' in def && isDeepStrictEqual(value, def.default)) continue;
        throw new FeatureLevelError(labelOf(op, name, labels), def.minFeatureLevel, level);
      }
      for (const form of byBeforeDescending(def.older ?? [])) {
        if (level >= form.before) continue;
        if (form.value) wireValue = atLevel(form.before, level, () => form.value!(wireValue));
        if (form.name) wireName = form.name;
      }
      // An older form without the parameter at all, where leaving it out does what was asked.
      if (wireValue === undefined) continue;
    }
    pairs.push([wireName, encodeWire(def.schema, wireValue)]);
    sent.set(name, wireName);
  }
  return { op, pathValues, pairs, sent };
}

/** Whether the form of this call can depend on the server's level at all (else the level need not be read). */
export function dependsOnLevel(op: Operation, params: Readonly<Record<string, unknown>>): boolean {
  if (op.minFeatureLevel !== undefined || hasOlderFormFor(op, params)) return true;
  return Object.entries(params).some(([name, v]) => {
    const d = op.params[name];
    return v !== undefined && d !== undefined && (d.minFeatureLevel !== undefined || (d.older?.length ?? 0) > 0);
  });
}

/**
 * The requests that carry out `op` with `params` at a server of feature level `level`; `undefined` is a
 * server that takes every operation as the catalogue declares it now (the embedded one).
 */
export function shapeFor(op: Operation, params: Readonly<Record<string, unknown>>, level: number | undefined, labels?: ParamLabels): Shape {
  const form = level === undefined ? undefined : olderFormFor(op, params, level);
  if (!form) return { calls: [shapeParams(op, params, level, labels)] };
  const calls = atLevel(form.before, level!, () => form.calls(params));
  return { form, calls: calls.map((c) => shapeParams(c.op, c.params, level, labels)) };
}
