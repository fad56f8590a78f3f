/**
 * Declarations flags.ts has no builder for yet: a positional argument with a parser of its own (its error
 * worded as the command has always worded it), and a flag every run must give. Both parse in the same
 * validation step as the builders there, before anything runs.
 */
import { usageError } from './errors.js';
import type { Arg, Flag } from './flags.js';

/** A required positional argument whose text becomes a T through `convert`; throws usage errors. */
export function customArg<T>(description: string, convert: (value: string) => T, o: { suggestions?: readonly string[] } = {}): Arg<T> {
  return {
    kind: 'arg',
    description,
    required: true,
    variadic: false,
    ...(o.suggestions ? { suggestions: o.suggestions } : {}),
    parse: (raw) => convert(typeof raw === 'string' ? raw : ''),
  };
}

/** `f`, which must be given: absent, it is the usage error `message`. */
export function requiredFlag<T>(f: Flag<T | undefined>, message: string): Flag<T> {
  return {
    ...f,
    parse(raw) {
      const value = f.parse(raw);
      if (value === undefined) throw usageError(message);
      return value;
    },
  };
}
