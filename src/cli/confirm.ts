/** Destructive commands ask on a terminal, and need --yes anywhere else. */
import type { Context } from './context.js';
import { ChatctlError, usageError } from './errors.js';

export async function confirmOrExit(ctx: Context, yes: boolean, question: string): Promise<void> {
  if (yes) return;
  if (!ctx.prompter.interactive) throw usageError(`${question.replace(/\?$/, '')}: not running interactively; pass --yes`);
  if (!(await ctx.prompter.confirm(question, '--yes'))) throw new ChatctlError('cancelled', 'interrupted');
}
