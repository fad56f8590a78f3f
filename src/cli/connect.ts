/** Opens the transport of the resolved target and builds the client over it. */
import { ChatClient } from '../client/client.js';
import type { Transport } from '../client/transport.js';
import type { Context } from './context.js';
import { CliError } from './errors.js';
import type { Target } from './target.js';

export async function openTransport(target: Target, ctx: Context): Promise<Transport> {
  if (target.kind === 'embedded') {
    const { openEmbedded } = await import('../client/embedded.js');
    return openEmbedded(target.dataDir, (line) => ctx.io.stderr.write(`chatctl: ${line}\n`));
  }
  const { HttpTransport } = await import('../client/http.js');
  return new HttpTransport(target.site);
}

export async function connect(ctx: Context, open: (t: Target, c: Context) => Promise<Transport> = openTransport): Promise<ChatClient> {
  const target = ctx.target();
  const transport = await open(target, ctx);
  const hooks = {
    warn: (m: string) => ctx.warn(m),
    trace: ctx.globals.verbose ? (line: string) => ctx.io.stderr.write(`${line}\n`) : undefined,
  };
  let credentials = target.credentials ?? null;
  if (!credentials && target.kind === 'embedded') {
    const { autoInitialize } = await import('./embedded-org.js');
    credentials = await autoInitialize(ctx, transport, target);
  }
  return new ChatClient(transport, credentials, hooks);
}

export function noCredentials(target: Target): CliError {
  return target.kind === 'remote'
    ? new CliError(`no credentials for ${target.site}`, 'auth', `run: chatctl login --server ${target.site} --email EMAIL`)
    : new CliError(`no credentials for the embedded organization in ${target.dataDir}`, 'auth', `run: chatctl login --embedded --data-dir ${target.dataDir}`);
}
