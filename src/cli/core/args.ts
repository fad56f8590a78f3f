/**
 * Positional arguments beyond the builders of flags.ts: an argument whose value goes through a parser of
 * its own, and numeric IDs whose usage error names what they identify (`linkifier IDs are numbers, not "x"`).
 * Like every declaration, they are parsed once, before the command runs.
 */
import { usageError } from './errors.js';
import { arg, type Arg } from './flags.js';
import { parseIdArgs } from './units.js';

/** `base`, its value then turned by `convert` (which throws usage errors). */
export function converted<T, U>(base: Arg<T>, convert: (value: T) => U): Arg<U> {
  return { ...base, parse: (raw) => convert(base.parse(raw)) };
}

/** One numeric ID, worded as a list of them is: `what` is what it identifies (`message`). */
export const parseIdArg = (value: string, what: string): number => parseIdArgs([value], what)[0];

/** A required ID argument (`linkifiers update ID ...`). */
export const idArg = (description: string, what: string, o: { label?: string } = {}): Arg<number> =>
  converted(arg.required(description, o), (value) => parseIdArg(value, what));

/** One or more ID arguments (`attachments delete 12 13`). */
export const idsArg = (description: string, what: string): Arg<number[]> =>
  converted(arg.variadic(description, { required: true }), (values) => parseIdArgs(values, what));

/** A message ID, as `messages` and `reactions` commands word its error. */
export function parseMessageId(value: string): number {
  if (!/^\d+$/.test(value)) throw usageError(`a message ID is a number, not "${value}"`);
  return Number(value);
}

/** The message ID positional argument of `messages` and `reactions` commands. */
export const messageIdArg = () => arg.custom('message ID', parseMessageId);
