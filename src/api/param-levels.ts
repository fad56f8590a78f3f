/**
 * How a server of an older feature level reads the catalogue: which operations it has and which parameters it
 * takes, under which names and values, from what the catalogue declares (an operation's and a parameter's
 * `minFeatureLevel`, a parameter's `older` forms). Catalogue facts only: the embedded server applies them to
 * the requests and the state of an organization answering as such a server (server/feature-level.ts), and a
 * mirror reads a real server's answers through them.
 */
import { catalogue } from './catalogue.js';
import type { Operation, ParamDef } from './operation.js';

/**
 * The feature level the embedded server speaks: that of the newest change the API document lists (reverse
 * linkifier fields, 471), so a client gating on the level finds every operation and parameter it describes.
 */
export const FEATURE_LEVEL = 471;

/**
 * The oldest level whose parameters the router can take as such a server would: below it, some parameter had
 * another name *and* another encoding (`url_format_string`, `invite_expires_in_days`, `slim_presence`, typing's
 * `to`), and the catalogue says only how to write such a value, not how to read it back.
 */
export const MIN_FEATURE_LEVEL = Math.max(
  ...catalogue.flatMap((op) => Object.values<ParamDef>(op.params).flatMap((def) => (def.older ?? []).filter((f) => f.name && f.value).map((f) => f.before))),
);

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

/** A parameter as a server at some level reads it: its catalogue name and declaration, and how (null: not read at all). */
export interface PlannedParam {
  readonly name: string;
  readonly def: ParamDef;
  readonly at: ParamAtLevel | null;
}

/** The parameters of `op` as a server at `level` reads them, in declaration order; made once per operation and level. */
const plans = new Map<Operation, Map<number, readonly PlannedParam[]>>();

export function paramsAtLevel(op: Operation, level: number): readonly PlannedParam[] {
  let byLevel = plans.get(op);
  if (!byLevel) {
    byLevel = new Map();
    plans.set(op, byLevel);
  }
  let plan = byLevel.get(level);
  if (!plan) {
    plan = Object.entries<ParamDef>(op.params).map(([name, def]) => ({ name, def, at: paramAtLevel(def, name, level) }));
    byLevel.set(level, plan);
  }
  return plan;
}
