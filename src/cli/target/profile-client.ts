/**
 * A client for a stored profile other than the command's own target (org mirror --from, org plan --against):
 * the profile named as `--profile NAME` would name it, with the same TLS, retries, pacing and cached level.
 */
import type { ChatClient } from '../../client/client.js';
import type { Context } from '../command/context.js';
import { connect, noCredentials } from './connect.js';
import { resolveTarget, type Target } from './target.js';

export interface ProfileClient {
  client: ChatClient;
  target: Target;
  /** The organization as files and plans name it: the server's URL, or `embedded:DIR`. */
  site: string;
}

/** Opens the profile `name` (a usage error naming the known ones when there is none); close the client after. */
export async function profileClient(ctx: Context, name: string): Promise<ProfileClient> {
  // The profile is named as the flag names it: before any variable, and nothing else chosen by flags.
  const globals = { ...ctx.globals, profile: name, dataDir: undefined, server: undefined, zuliprc: undefined };
  const target = resolveTarget(globals, ctx.env, ctx.warn);
  const client = await connect({ ...ctx, globals, target: () => target });
  if (!client.credentials) {
    await client.close();
    throw noCredentials(target);
  }
  return { client, target, site: target.kind === 'embedded' ? `embedded:${target.dataDir}` : target.site };
}
