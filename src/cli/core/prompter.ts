/**
 * Questions to the person at the terminal. Only when stdin and stdout are both TTYs (and --no-input is not
 * given); otherwise every question fails with a usage error naming the flag that answers it, so scripts
 * and cron jobs never hang.
 */
import type { IO } from './io.js';
import { usageError } from './errors.js';

export interface Prompter {
  readonly interactive: boolean;
  /** A hidden answer (passwords). `flag` is what a script passes instead. */
  password(message: string, flag: string): Promise<string>;
  confirm(message: string, flag: string): Promise<boolean>;
}

export function terminalPrompter(io: IO, allowed: boolean): Prompter {
  const interactive = allowed && io.stdinIsTTY && io.stdoutIsTTY;
  const refuse = (flag: string) => usageError(`not running interactively; pass ${flag}`);
  const context = { input: io.stdin, output: io.stderr, clearPromptOnDone: false };
  return {
    interactive,
    async password(message, flag) {
      if (!interactive) throw refuse(flag);
      const { password } = await import('@inquirer/prompts');
      return password({ message, mask: false }, context);
    },
    async confirm(message, flag) {
      if (!interactive) throw refuse(flag);
      const { confirm } = await import('@inquirer/prompts');
      return confirm({ message, default: false }, context);
    },
  };
}
