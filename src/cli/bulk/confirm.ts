/** Destructive commands ask on a terminal, and need --yes anywhere else. */
import type { Context } from '../command/context.js';
import { ChatctlError, usageError } from '../core/errors.js';

export async function confirmOrExit(ctx: Pick<Context, 'prompter'>, yes: boolean, question: string): Promise<void> {
  if (yes) return;
  if (!ctx.prompter.interactive) throw usageError(`${question.replace(/\?$/, '')}: not running interactively; pass --yes`);
  if (!(await ctx.prompter.confirm(question, '--yes'))) throw new ChatctlError('cancelled', 'interrupted');
}

/**
 * Refuses a destructive run that could not ask, before anything is read: a cron entry without --yes fails
 * on its first run, not on the first run that finds something to change.
 */
export function requireYesUnlessInteractive(ctx: Pick<Context, 'prompter'>, o: { yes: boolean; dryRun: boolean }, what: string): void {
  if (!o.dryRun && !o.yes && !ctx.prompter.interactive)
    throw usageError(`${what}: not running interactively; pass --yes`, 'see what it would do with --dry-run');
}

/** Targets a question names before it counts the rest: enough to recognise a run, short enough for one line. */
const NAMED_IN_QUESTION = 3;

/**
 * A question that names what it acts on, so the answer is given knowing it: `Revoke link 3 (https://…)?`,
 * or for several a count and the first few: `Deactivate 12 users: user 8 (ada@…, Ada), … and 9 more?`.
 */
export function namingQuestion(verb: string, labels: readonly string[], plural: string): string {
  if (labels.length === 1) return `${verb} ${labels[0]}?`;
  const shown = labels.slice(0, NAMED_IN_QUESTION).join(', ');
  const rest = labels.length - NAMED_IN_QUESTION;
  return `${verb} ${labels.length} ${plural}: ${shown}${rest > 0 ? ` and ${rest} more` : ''}?`;
}

/** The row calls of a run a question is about: those that will be sent, by their labels; else `fallback`. */
export function questionAbout(
  verb: string,
  calls: readonly { call?: unknown; inPlace?: unknown; label?: string; target: string }[],
  plural: string,
  fallback: readonly string[],
): string {
  const named = calls.filter((c) => c.call && !c.inPlace).map((c) => c.label ?? c.target);
  return namingQuestion(verb, named.length ? named : fallback, plural);
}
