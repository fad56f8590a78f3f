/**
 * The three-way plan of a copy made by org mirror (three-way.ts): its saved base, the copy now (read as its
 * operator) and production now (read through a stored profile: the one it was mirrored from, unless another is
 * named), each read as org export reads an organization.
 */
import type { Context } from '../command/context.js';
import { ChatctlError } from '../core/errors.js';
import { profileClient } from '../target/profile-client.js';
import { copyClient } from './mirror.js';
import { readLive } from './read.js';
import { liveFromSnapshot } from './snapshot.js';
import { threeWayPlan } from './three-way.js';
import type { LiveOrg, Plan } from './model.js';

/** Plans against production what changed on the copy in `dir`; the client returned is production's (close it). */
export async function planRehearsal(ctx: Context, dir: string, against: string | undefined): Promise<Plan> {
  const copy = await copyClient(ctx, dir);
  const profile = against ?? copy.record.source.profile;
  let mine: LiveOrg;
  try {
    if (!profile) {
      throw new ChatctlError(`${dir} records no profile it was mirrored from`, 'usage', 'name production: --against PROFILE');
    }
    mine = await readLive(ctx, copy.client);
  } finally {
    await copy.client.close();
  }
  const base = liveFromSnapshot(copy.record.snapshot, copy.record.operator.id);
  const production = await profileClient(ctx, profile);
  try {
    return threeWayPlan(base, mine, await readLive(ctx, production.client), production.site);
  } finally {
    await production.client.close();
  }
}
