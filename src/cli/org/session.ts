/** What the org commands share: the target's name in files and plans, and a file planned against the live organization. */
import type { ChatClient } from '../../client/client.js';
import type { Context } from '../command/context.js';
import { ChatctlError } from '../core/errors.js';
import { readDocument } from './file.js';
import type { LiveOrg, OrgDoc, Plan } from './model.js';
import { makePlan } from './plan.js';
import { readLive } from './read.js';

/** The organization as files and plans name it: the server's URL, or the embedded organization's data dir. */
export function siteOf(ctx: Pick<Context, 'target'>): string {
  const t = ctx.target();
  return t.kind === 'embedded' ? `embedded:${t.dataDir}` : t.site;
}

export interface Planned {
  doc: OrgDoc;
  live: LiveOrg;
  plan: Plan;
  client: ChatClient;
}

/** Reads `file` (validated before anything is read from the server), then the live organization, and plans. */
export async function planFile(ctx: Context, file: string): Promise<Planned> {
  const doc = await readDocument(ctx, file);
  const client = await ctx.client();
  const live = await readLive(ctx, client, { members: doc.channels !== undefined });
  return { doc, live, plan: makePlan(doc, live, { site: siteOf(ctx) }), client };
}

/** The live organization, planned against a document (a saved plan's staleness check reads it this way). */
export async function readFor(ctx: Context, client: ChatClient, plan: Plan): Promise<LiveOrg> {
  return readLive(ctx, client, { members: plan.managed.includes('channels') });
}

export class PendingChanges extends ChatctlError {
  constructor(count: number) {
    super(`${count} change${count === 1 ? '' : 's'} pending`, 'pending');
  }
}
