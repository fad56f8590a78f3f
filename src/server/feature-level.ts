/**
 * An organization answering as a server of an older feature level (a mirror of a real organization does, to
 * behave as its server): which operations it routes and which parameters it reads, under which names and
 * values, all from what the catalogue declares (an operation's and a parameter's `minFeatureLevel`, a
 * parameter's `older` forms). The router applies it to every request and register to its state; no handler
 * knows of it. At this implementation's own level nothing is held back.
 */
import { catalogue } from '../api/catalogue.js';
import type { Operation, ParamDef } from '../api/operation.js';
import type { Db } from './store/db.js';
import { FEATURE_LEVEL, getSetting, setSetting } from './model/realm.js';

/**
 * The oldest level whose parameters the router can take as such a server would: below it, some parameter had
 * another name *and* another encoding (`url_format_string`, `invite_expires_in_days`, `slim_presence`, typing's
 * `to`), and the catalogue says only how to write such a value, not how to read it back.
 */
export const MIN_FEATURE_LEVEL = Math.max(
  ...catalogue.flatMap((op) => Object.values<ParamDef>(op.params).flatMap((def) => (def.older ?? []).filter((f) => f.name && f.value).map((f) => f.before))),
);

/** A level the organization cannot answer as. */
export class UnsupportedFeatureLevelError extends Error {
  constructor(readonly level: number) {
    super(`feature level ${level} cannot be emulated: levels from ${MIN_FEATURE_LEVEL} to ${FEATURE_LEVEL} can`);
    this.name = 'UnsupportedFeatureLevelError';
  }
}

/** The level the organization answers as. */
export const featureLevel = (db: Db): number => getSetting(db, 'feature_level');

/** Sets the level the organization answers as; UnsupportedFeatureLevelError outside the levels it can. */
export function setFeatureLevel(db: Db, level: number): void {
  if (!Number.isInteger(level) || level < MIN_FEATURE_LEVEL || level > FEATURE_LEVEL) throw new UnsupportedFeatureLevelError(level);
  setSetting(db, 'feature_level', level);
}

/** Whether a server at `level` has the operation (one at this implementation's level has every one it routes). */
export const servedAt = (op: Operation, level: number): boolean => level >= FEATURE_LEVEL || (op.minFeatureLevel ?? 0) <= level;

/** How a server at some level reads a parameter: the wire names it takes (the first the main one), and what it makes of the value. */
export interface ParamAtLevel {
  readonly names: readonly string[];
  /** The value as that server takes it (absent: as sent); may throw NotAtLevel. */
  readonly value?: (v: unknown) => unknown;
}

/**
 * How a server at `level` reads the parameter `name`: null when it has no such parameter (it came later, or an
 * older form leaves it out), else under the name of its oldest form that applies and with each applicable
 * form's value (newest first): such a server reads `private` as `direct` became, refuses a narrow operator it
 * lacks (NotAtLevel), and stores an empty topic as "(no topic)".
 */
export function paramAtLevel(def: ParamDef, name: string, level: number): ParamAtLevel | null {
  const current = { names: [name, ...(def.aliases ?? [])] };
  if (level >= FEATURE_LEVEL) return current;
  if ((def.minFeatureLevel ?? 0) > level) return null;
  const forms = (def.older ?? []).filter((f) => level < f.before).sort((a, b) => b.before - a.before);
  if (forms.length === 0) return current;
  const named = forms.filter((f) => f.name).at(-1)?.name;
  const valued = forms.filter((f) => f.value);
  const value = valued.length ? (v: unknown) => valued.reduce((acc, f) => f.value!(acc), v) : undefined;
  // A form that makes the default nothing is a server without the parameter (nothing was sent to it).
  if (value && def.default !== undefined && value(def.default) === undefined) return null;
  const names = named ? [named, ...(def.aliases ?? []).filter((a) => a !== named)] : current.names;
  return value ? { names, value } : { names };
}

/** The parameters of `op` as a server at `level` reads them, by their catalogue names (null: not read at all). */
const plans = new Map<Operation, Map<number, ReadonlyMap<string, ParamAtLevel | null>>>();

export function paramsAtLevel(op: Operation, level: number): ReadonlyMap<string, ParamAtLevel | null> {
  let byLevel = plans.get(op);
  if (!byLevel) {
    byLevel = new Map();
    plans.set(op, byLevel);
  }
  let plan = byLevel.get(level);
  if (!plan) {
    plan = new Map(Object.entries<ParamDef>(op.params).map(([name, def]) => [name, paramAtLevel(def, name, level)]));
    byLevel.set(level, plan);
  }
  return plan;
}
