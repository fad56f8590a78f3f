/**
 * Storing a profile for `init` and `login`, and saying on stderr what that did to the default profile:
 * the default is what every other command uses, so it never changes without a word.
 */
import { saveProfile, type DefaultChange, type Profile } from '../../config/profiles.js';
import type { Context } from '../command/context.js';

export function announceDefault(ctx: Pick<Context, 'info'>, name: string, change: DefaultChange): void {
  if (change.after === name && change.before !== name && change.others.length) {
    ctx.info(`chatctl: "${name}" is now the default profile${change.before ? ` (it was "${change.before}")` : ''}`);
  } else if (change.after !== name) {
    ctx.info(`chatctl: the default profile stays "${change.after}"; to make "${name}" the default: chatctl profiles use ${name}`);
  }
}

const whereTo = (p: Profile): string => p.server ?? `the embedded organization in ${p.embedded}`;

export async function storeProfile(ctx: Pick<Context, 'env' | 'info'>, name: string, profile: Profile): Promise<void> {
  const change = await saveProfile(ctx.env, name, profile);
  if (change.previous && whereTo(change.previous) !== whereTo(profile)) {
    ctx.info(`chatctl: profile "${name}" pointed to ${whereTo(change.previous)}; it now points to ${whereTo(profile)}`);
  }
  announceDefault(ctx, name, change);
}
