/**
 * Narrow operators by feature level (Zulip's `lib/narrow.py` and API changelog): which spelling a server
 * takes, and which operators it does not have at all. Applied to every `narrow` parameter by the client,
 * so a narrow typed once works at every level or is refused before anything is sent.
 */
import { NotAtLevel, type OlderParam } from './operation.js';

/** A narrow term: `{operator, operand, negated}` or the legacy `[operator, operand]` pair. */
export type NarrowTerm = { operator: string; operand: string | number | number[]; negated?: boolean } | [string, string];

type Term = Extract<NarrowTerm, { operator: string }>;

/** Operators renamed at a level, with the name servers below it take. */
const RENAMED: readonly { before: number; from: string; to: string }[] = [
  { before: 250, from: 'channel', to: 'stream' },
  { before: 250, from: 'channels', to: 'streams' },
  { before: 177, from: 'dm', to: 'pm-with' },
  { before: 177, from: 'dm-including', to: 'group-pm-with' },
];

/** `is:` operands renamed at a level. */
const RENAMED_IS: readonly { before: number; from: string; to: string }[] = [{ before: 177, from: 'dm', to: 'private' }];

/** Operators and operands servers below a level do not have in any spelling. */
const ADDED: readonly { before: number; operator: string; operand?: string }[] = [
  { before: 249, operator: 'has', operand: 'reaction' },
  { before: 265, operator: 'is', operand: 'followed' },
  { before: 271, operator: 'with' },
  { before: 366, operator: 'is', operand: 'muted' },
];

/** Every level at which narrows changed, newest first. */
const LEVELS = [...new Set([...RENAMED, ...RENAMED_IS, ...ADDED].map((r) => r.before))].sort((a, b) => b - a);

const operatorOf = (t: NarrowTerm): string => (Array.isArray(t) ? t[0] : t.operator);
const operandOf = (t: NarrowTerm): Term['operand'] => (Array.isArray(t) ? t[1] : t.operand);

function withOperator(t: NarrowTerm, operator: string, operand = operandOf(t)): NarrowTerm {
  if (Array.isArray(t)) return [operator, String(operand)];
  return { ...t, operator, operand };
}

/** The narrow as servers below `before` take it (the step from `before` to the level just under it). */
function stepDown(terms: readonly NarrowTerm[], before: number): NarrowTerm[] {
  return terms.map((t) => {
    const operator = operatorOf(t);
    const operand = operandOf(t);
    const added = ADDED.find((a) => a.before === before && a.operator === operator && (a.operand === undefined || a.operand === operand));
    if (added) throw new NotAtLevel(`the narrow ${added.operand === undefined ? `operator "${operator}:"` : `"${operator}:${operand}"`}`);
    const renamed = RENAMED.find((r) => r.before === before && r.from === operator);
    if (renamed) return withOperator(t, renamed.to);
    const renamedIs = operator === 'is' ? RENAMED_IS.find((r) => r.before === before && r.from === operand) : undefined;
    return renamedIs ? withOperator(t, 'is', renamedIs.to) : t;
  });
}

/** The older forms of a narrow, one per level at which narrows changed. */
export const NARROW_OLDER: readonly OlderParam<NarrowTerm[]>[] = LEVELS.map((before) => ({
  before,
  value: (terms: NarrowTerm[]) => stepDown(terms, before),
}));
