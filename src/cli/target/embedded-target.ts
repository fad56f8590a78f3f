/** Commands that work on the embedded organization's files (serve, server grant/revoke/reset-password): a server is no target for them. */
import type { Context } from '../command/context.js';
import { usageError } from '../core/errors.js';
import type { Target } from './target.js';

export function embeddedTarget(ctx: Pick<Context, 'target'>, command: string, remedy?: string): Extract<Target, { kind: 'embedded' }> {
  const target = ctx.target();
  if (target.kind === 'embedded') return target;
  throw usageError(
    `${command} works on an embedded organization's data dir, but the target is the server ${target.site} (chosen by ${target.source})`,
    remedy ?? 'name a data dir: --data-dir DIR, or --profile NAME of an embedded profile (chatctl profiles lists them)',
  );
}
