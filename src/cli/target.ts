/**
 * Which server a command talks to, and as whom. Precedence, highest first:
 *   flags (--zuliprc, --server, --data-dir, --profile)
 *   > environment (ZULIP_CONFIG, ZULIP_SITE, CHATCTL_DATA_DIR, CHATCTL_PROFILE; ZULIP_EMAIL + ZULIP_API_KEY)
 *   > the default profile > ~/.zuliprc > the embedded organization in the default data dir.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Credentials } from '../client/client.js';
import type { TlsSettings } from '../client/tls.js';
import { defaultDataDir, defaultZuliprc, type Env } from '../config/paths.js';
import { readConfig, type ConfigFile, type Profile } from '../config/profiles.js';
import { readZuliprc, type Zuliprc } from '../config/zuliprc.js';
import type { GlobalOptions } from './context.js';
import { usageError } from './errors.js';

export type { TlsSettings };

interface TargetBase {
  credentials?: Credentials;
  /** The profile these credentials came from or would be saved under. */
  profileName: string;
  /** Whether `profileName` already holds these settings. */
  fromProfile: boolean;
  /** For messages: where the target was decided. */
  source: string;
}

export type Target =
  | (TargetBase & { kind: 'embedded'; dataDir: string })
  | (TargetBase & { kind: 'remote'; site: string; tls: TlsSettings; profile?: Profile });

const envCredentials = (env: Env): Credentials | undefined =>
  env.ZULIP_EMAIL && env.ZULIP_API_KEY ? { email: env.ZULIP_EMAIL, apiKey: env.ZULIP_API_KEY } : undefined;

const profileCredentials = (p: Profile | undefined): Credentials | undefined =>
  p ? { email: p.email, apiKey: p.apiKey } : undefined;

/**
 * A site as Zulip's own clients read it: https unless a scheme is given (http for this machine's own
 * names), and without a trailing `/api` or `/api/v1`, which people paste from API documentation.
 */
export const normalizeSite = (site: string): string => {
  const given = site.trim();
  const local = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i.test(given);
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `${local ? 'http' : 'https'}://${given}`;
  return withScheme.replace(/\/+$/, '').replace(/\/api(\/v1)?$/i, '').replace(/\/+$/, '');
};

/** TLS settings: environment > zuliprc > the profile's files. `--ca-file`/`--insecure` go on top (connect.ts). */
export function tlsFrom(env: Env, rc: Zuliprc = {}, profile?: Profile): TlsSettings {
  const insecure = env.ZULIP_ALLOW_INSECURE ?? rc.insecure;
  if (insecure !== undefined && !['true', 'false'].includes(insecure.toLowerCase())) {
    throw usageError(`ZULIP_ALLOW_INSECURE must be true or false, not "${insecure}"`);
  }
  return {
    caFile: env.ZULIP_CERT_BUNDLE ?? rc.cert_bundle ?? profile?.caFile,
    clientCert: env.ZULIP_CERT ?? rc.client_cert ?? profile?.clientCert,
    clientKey: env.ZULIP_CERT_KEY ?? rc.client_cert_key ?? profile?.clientKey,
    insecure: insecure?.toLowerCase() === 'true',
  };
}

export function selectedProfileName(globals: GlobalOptions, env: Env, config?: ConfigFile): string {
  return globals.profile ?? env.CHATCTL_PROFILE ?? config?.defaultProfile ?? 'default';
}

/** The four ways to name a target, as one level (the flags, or the environment) gives them. */
interface Naming {
  zuliprc?: string;
  server?: string;
  dataDir?: string;
  profile?: string;
  /** How `server` and `dataDir` were given, for messages. */
  serverSource: string;
  dataDirSource: string;
}

export function resolveTarget(globals: GlobalOptions, env: Env): Target {
  const config = readConfig(env);
  const profiles = config.profiles ?? {};
  const name = selectedProfileName(globals, env, config);
  const selected = profiles[name];
  const fromEnv = envCredentials(env);

  const fromZuliprc = (rcPath: string): Target => {
    const rc = readZuliprc(rcPath);
    // Within a zuliprc's target, --server and ZULIP_SITE still override its site, as in Zulip's own tools.
    const site = globals.server ?? env.ZULIP_SITE ?? rc.site;
    if (!site) throw usageError(`${rcPath} names no site; add site= to its [api] section or pass --server`);
    const fromRc = rc.email && rc.key ? { email: rc.email, apiKey: rc.key } : undefined;
    return { kind: 'remote', site: normalizeSite(site), tls: tlsFrom(env, rc), credentials: fromEnv ?? fromRc, profileName: name, fromProfile: false, source: rcPath };
  };

  const fromServer = (site: string, source: string): Target => {
    const normalized = normalizeSite(site);
    const match = selected?.server === normalized ? [name, selected] as const : Object.entries(profiles).find(([, p]) => p.server === normalized);
    return {
      kind: 'remote',
      site: normalized,
      tls: tlsFrom(env, {}, match?.[1]),
      credentials: fromEnv ?? profileCredentials(match?.[1]),
      profile: match?.[1],
      profileName: match?.[0] ?? name,
      fromProfile: Boolean(match),
      source,
    };
  };

  const fromDataDir = (dir: string, source: string): Target => {
    const dataDir = resolve(dir);
    const match = selected?.embedded === dataDir ? [name, selected] as const : Object.entries(profiles).find(([, p]) => p.embedded === dataDir);
    return {
      kind: 'embedded',
      dataDir,
      credentials: fromEnv ?? profileCredentials(match?.[1]),
      profileName: match?.[0] ?? name,
      fromProfile: Boolean(match),
      source,
    };
  };

  const fromProfile = (profile: Profile): Target => {
    const credentials = fromEnv ?? profileCredentials(profile);
    if (profile.server) {
      return { kind: 'remote', site: profile.server, tls: tlsFrom(env, {}, profile), credentials, profile, profileName: name, fromProfile: true, source: `profile ${name}` };
    }
    return { kind: 'embedded', dataDir: profile.embedded ?? defaultDataDir(env), credentials, profileName: name, fromProfile: true, source: `profile ${name}` };
  };

  // Every flag before any variable: `--profile work` wins over a ZULIP_SITE exported for other tools.
  const levels: Naming[] = [
    { zuliprc: globals.zuliprc, server: globals.server, dataDir: globals.dataDir, profile: globals.profile, serverSource: '--server', dataDirSource: '--data-dir' },
    { zuliprc: env.ZULIP_CONFIG, server: env.ZULIP_SITE, dataDir: env.CHATCTL_DATA_DIR, profile: env.CHATCTL_PROFILE, serverSource: 'ZULIP_SITE', dataDirSource: 'CHATCTL_DATA_DIR' },
  ];
  for (const level of levels) {
    if (level.zuliprc) return fromZuliprc(level.zuliprc);
    if (level.server) return fromServer(level.server, level.serverSource);
    if (level.dataDir) return fromDataDir(level.dataDir, level.dataDirSource);
    if (level.profile) {
      if (!selected) {
        const known = Object.keys(profiles);
        throw usageError(`no profile named "${level.profile}"`, known.length ? `profiles: ${known.join(', ')}` : 'log in first: chatctl login');
      }
      return fromProfile(selected);
    }
  }
  if (selected) return fromProfile(selected);

  const rc = defaultZuliprc(env);
  if (existsSync(rc)) {
    const parsed = readZuliprc(rc);
    if (parsed.site) {
      const fromRc = parsed.email && parsed.key ? { email: parsed.email, apiKey: parsed.key } : undefined;
      return { kind: 'remote', site: normalizeSite(parsed.site), tls: tlsFrom(env, parsed), credentials: fromEnv ?? fromRc, profileName: name, fromProfile: false, source: rc };
    }
  }

  return { kind: 'embedded', dataDir: defaultDataDir(env), credentials: fromEnv, profileName: name, fromProfile: false, source: 'default' };
}
