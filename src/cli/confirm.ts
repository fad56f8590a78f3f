/** Destructive commands ask on a terminal, and need --yes anywhere else. */
import type { Context } from './context.js';
import { ChatctlError, usageError } from './errors.js';

export async function confirmOrExit(ctx: Context, yes: boolean, question: string): Promise<void> {
  if (yes) return;
  if (!ctx.prompter.interactive) throw usageError(`${question.replace(/\?$/, '')}: not running interactively; pass --yes`);
  if (!(await ctx.prompter.confirm(question, '--yes'))) throw new ChatctlError('cancelled', 'interrupted');
}

/**
 * Refuses a destructive run that could not ask, before anything is read: a cron entry without --yes fails
 * on its first run, not on the first run that finds something to change.
 */
export function requireYesUnlessInteractive(ctx: Context, o: { yes: boolean; dryRun: boolean }, what: string): void {
  if (!o.dryRun && !o.yes && !ctx.prompter.interactive)
    throw usageError(`${what}: not running interactively; pass --yes`, 'see what it would do with --dry-run');
}
