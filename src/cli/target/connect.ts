/**
 * Opens the transport of the resolved target and builds the client over it, with what the global options
 * ask for: TLS (--ca-file, --insecure, ZULIP_CERT*), proxies from the environment, the retry budget
 * (--max-wait), rate-limit pacing, the feature-level cache of the profile, and --verbose tracing.
 */
import { ChatClient, type ClientHooks, type ClientOptions, type Credentials } from '../../client/client.js';
import type { HttpOptions } from '../../client/http.js';
import type { TlsSettings } from '../../client/tls.js';
import type { Transport } from '../../client/transport.js';
import type { Profile } from '../../config/profiles.js';
import type { Context } from '../command/context.js';
import { ChatctlError } from '../core/errors.js';
import type { Target } from './target.js';

/** TLS settings with the flags on top of what the target resolution found. */
export function tlsSettings(ctx: Context, base: TlsSettings): TlsSettings {
  return { ...base, caFile: ctx.globals.caFile ?? base.caFile, insecure: Boolean(ctx.globals.insecure) || Boolean(base.insecure) };
}

/** Contexts already warned that certificate checks are off (login opens more than one client). */
const warnedInsecure = new WeakSet<Context>();

/** Transport options for a remote site; warns (once per command) when certificate checks are off. */
export async function httpOptions(ctx: Context, site: string, tls: TlsSettings): Promise<HttpOptions> {
  const [{ loadTls }, { proxyFromEnv }] = await Promise.all([import('../../client/tls.js'), import('../../client/dispatcher.js')]);
  const settings = tlsSettings(ctx, tls);
  if (settings.insecure && !warnedInsecure.has(ctx)) {
    warnedInsecure.add(ctx);
    ctx.warn(
      `TLS certificate verification is off (--insecure or ZULIP_ALLOW_INSECURE): anyone on the path to ${site} can read and change the traffic, API key included`,
    );
  }
  return { tls: loadTls(settings), proxy: proxyFromEnv(ctx.env) };
}

/** `--max-wait` in ms. */
export const maxWaitMs = (ctx: Context): number => ctx.globals.maxWait * 1000;

export function clientHooks(ctx: Context): ClientHooks {
  return {
    warn: (m) => ctx.warn(m),
    notice: (m) => ctx.info(`chatctl: ${m}`),
    trace: ctx.globals.verbose ? (line) => ctx.io.stderr.write(`chatctl: ${line}\n`) : undefined,
  };
}

/** The profile a remote client caches the server's facts in. */
export interface CachingProfile {
  name: string;
  server: string;
  cached?: Pick<Profile, 'featureLevel' | 'serverVersion' | 'checkedAt'>;
}

/**
 * Retries and pacing for a remote server; the feature level from the profile's cache (refreshed and
 * stored when stale) and operations gated by it. The embedded organization gets no retries or pacing (it
 * is this process), but its level is read as a remote one's is (GET /server_settings, once, when a call
 * depends on it) and calls are shaped for it: a copy of a real organization answers at that server's
 * level (org mirror), and chatctl must send it what it would send that server, or a rehearsal proves nothing.
 */
export async function clientOptions(ctx: Context, transport: Transport, profile?: CachingProfile): Promise<ClientOptions> {
  const wait = maxWaitMs(ctx);
  const { FeatureCache } = await import('../../client/features.js');
  if (transport.kind === 'embedded') return { features: new FeatureCache({ gate: true, nowMs: () => ctx.nowMs() }) };
  const [{ Pacer }, { retryPolicy }] = await Promise.all([import('../../client/pacing.js'), import('../../client/retry.js')]);
  const cached = profile?.cached;
  return {
    retry: retryPolicy({ maxWaitMs: wait }),
    pacer: new Pacer({ maxWaitMs: wait, onWait: (m) => ctx.info(`chatctl: ${m}`) }),
    features: new FeatureCache({
      gate: true,
      nowMs: () => ctx.nowMs(),
      cached: cached && { featureLevel: cached.featureLevel, version: cached.serverVersion, checkedAt: cached.checkedAt },
      save: profile
        ? async (facts) => {
            const { cacheServerFacts } = await import('../../config/profiles.js');
            await cacheServerFacts(ctx.env, profile.name, profile.server, {
              featureLevel: facts.featureLevel,
              serverVersion: facts.version,
              checkedAt: facts.checkedAt,
            }).catch((e: unknown) => ctx.warn(`could not cache the server's feature level: ${e instanceof Error ? e.message : String(e)}`));
          }
        : undefined,
    }),
  };
}

export async function openTransport(target: Target, ctx: Context): Promise<Transport> {
  if (target.kind === 'embedded') {
    const { openOrganization, noteOn } = await import('./data-dir.js');
    const note = noteOn(ctx);
    return openOrganization(target.dataDir, { create: target.firstUse, source: target.source, log: note, warn: note });
  }
  const { HttpTransport } = await import('../../client/http.js');
  return new HttpTransport(target.site, await httpOptions(ctx, target.site, target.tls));
}

export async function connect(ctx: Context, open: (t: Target, c: Context) => Promise<Transport> = openTransport): Promise<ChatClient> {
  const target = ctx.target();
  const transport = await open(target, ctx);
  let credentials = target.credentials ?? null;
  if (!credentials && target.kind === 'embedded' && target.firstUse) {
    const [{ autoInitialize }, { OrganizationTransport }] = await Promise.all([import('./embedded-org.js'), import('./data-dir.js')]);
    if (transport instanceof OrganizationTransport) credentials = await autoInitialize(ctx, transport, target);
  }
  const profile =
    target.kind === 'remote' && target.fromProfile && target.profile?.server === target.site
      ? { name: target.profileName, server: target.site, cached: target.profile }
      : undefined;
  return new ChatClient(transport, credentials, clientHooks(ctx), await clientOptions(ctx, transport, profile));
}

/** A client for a remote site outside any profile (login): TLS from flags and environment. */
export async function remoteClient(ctx: Context, site: string, tls: TlsSettings, credentials: Credentials | null = null): Promise<ChatClient> {
  const { HttpTransport } = await import('../../client/http.js');
  const transport = new HttpTransport(site, await httpOptions(ctx, site, tls));
  return new ChatClient(transport, credentials, clientHooks(ctx), await clientOptions(ctx, transport));
}

export function noCredentials(target: Target): ChatctlError {
  return target.kind === 'remote'
    ? new ChatctlError(`no credentials for ${target.site}`, 'auth', `run: chatctl login --server ${target.site} --email EMAIL`)
    : new ChatctlError(
        `no credentials for the embedded organization in ${target.dataDir}`,
        'auth',
        `whoever can read its files may sign in as its owner, no password needed: chatctl login --embedded --data-dir ${target.dataDir}`,
      );
}
