/** The message ID positional argument of `messages` and `reactions` commands. */
import { usageError } from './errors.js';
import { arg } from './flags.js';

export function parseMessageId(value: string): number {
  if (!/^\d+$/.test(value)) throw usageError(`a message ID is a number, not "${value}"`);
  return Number(value);
}

export const messageIdArg = () => arg.custom('message ID', parseMessageId);
