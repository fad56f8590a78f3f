/** Choosing a password for an account (`init`, `server reset-password`): from stdin, a hidden prompt, or generated. */
import type { Context } from '../command/context.js';
import { usageError } from '../core/errors.js';
import { readSecret } from '../core/io.js';
import { randomAlphanumeric } from '../../random.js';

/** Zulip's own floor for a new password ("The password is too weak."). */
const MIN_LENGTH = 6;

/**
 * The password from stdin, or asked twice on a terminal, or (neither) generated and flagged so the caller
 * shows it once.
 */
export async function choosePassword(
  ctx: Pick<Context, 'io' | 'prompter'>,
  fromStdin: boolean,
  prompt: string,
): Promise<{ password: string; generated: boolean }> {
  let password: string;
  if (fromStdin) {
    password = await readSecret(ctx.io.stdin);
    if (!password) throw usageError('--password-stdin read an empty password');
  } else if (ctx.prompter.interactive) {
    password = await ctx.prompter.password(prompt, '--password-stdin');
    const again = await ctx.prompter.password('Repeat it:', '--password-stdin');
    if (password !== again) throw usageError('the passwords differ');
  } else {
    return { password: randomAlphanumeric(20), generated: true };
  }
  if (password.length < MIN_LENGTH) throw usageError(`the password is too weak (at least ${MIN_LENGTH} characters)`);
  return { password, generated: false };
}
