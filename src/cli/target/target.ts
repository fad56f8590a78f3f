/**
 * Which server a command talks to, and as whom. Precedence, highest first:
 *   flags (--zuliprc, --server, --data-dir, --profile)
 *   > environment (ZULIP_CONFIG, ZULIP_SITE, CHATCTL_DATA_DIR, CHATCTL_PROFILE; ZULIP_EMAIL + ZULIP_API_KEY)
 *   > the default profile > ~/.zuliprc > the embedded organization in the default data dir.
 * This module is the one place that order is stated: `init`, `login --embedded` and `serve` ask it too.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Credentials } from '../../client/client.js';
import type { TlsSettings } from '../../client/tls.js';
import { defaultDataDir, defaultZuliprc, type Env } from '../../config/paths.js';
import { brokenConfig, configPath, loadConfig, type ConfigFile, type Profile } from '../../config/profiles.js';
import { readZuliprc, type Zuliprc } from '../../config/zuliprc.js';
import type { GlobalOptions } from '../command/context.js';
import { usageError } from '../core/errors.js';

export type { TlsSettings };

interface TargetBase {
  credentials?: Credentials;
  /** For whoami: where the credentials came from, and whose they replaced. */
  credentialsSource?: string;
  /** The profile these credentials came from or would be saved under. */
  profileName: string;
  /** Whether `profileName` already holds these settings. */
  fromProfile: boolean;
  /** For whoami and messages: what chose the target (a flag, an environment variable by name, a profile, a zuliprc). */
  source: string;
  /**
   * Nothing at all is configured (no flag, variable, profile or zuliprc names anything): only then may the
   * embedded organization be created in the default data dir on first use.
   */
  firstUse: boolean;
}

export type Target =
  | (TargetBase & { kind: 'embedded'; dataDir: string })
  | (TargetBase & { kind: 'remote'; site: string; tls: TlsSettings; profile?: Profile });

const ENV_CREDENTIALS = 'environment variables ZULIP_EMAIL and ZULIP_API_KEY';

/** ZULIP_EMAIL with ZULIP_API_KEY; one without the other is an error, not a silent fall-back to other credentials. */
function envCredentials(env: Env): Credentials | undefined {
  const email = env.ZULIP_EMAIL || undefined;
  const apiKey = env.ZULIP_API_KEY || undefined;
  if (email && apiKey) return { email, apiKey };
  if (email || apiKey) {
    const [set, unset] = email ? ['ZULIP_EMAIL', 'ZULIP_API_KEY'] : ['ZULIP_API_KEY', 'ZULIP_EMAIL'];
    throw usageError(`${set} is set but ${unset} is not: they replace the credentials together`, `set both, or unset ${set}`);
  }
  return undefined;
}

/** The credentials to use and, for whoami, where they came from. */
function credentialsOf(
  fromEnv: Credentials | undefined,
  stored: Credentials | undefined,
  storedIn: string,
): Pick<TargetBase, 'credentials' | 'credentialsSource'> {
  if (fromEnv) return { credentials: fromEnv, credentialsSource: stored ? `${ENV_CREDENTIALS}, in place of those of ${storedIn}` : ENV_CREDENTIALS };
  return stored ? { credentials: stored, credentialsSource: storedIn } : {};
}

const profileCredentials = (p: Profile | undefined): Credentials | undefined => (p ? { email: p.email, apiKey: p.apiKey } : undefined);

/**
 * A site as Zulip's own clients read it: https unless a scheme is given (http for this machine's own
 * names), and without a trailing `/api` or `/api/v1`, which people paste from API documentation.
 */
export const normalizeSite = (site: string): string => {
  const given = site.trim();
  const local = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i.test(given);
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `${local ? 'http' : 'https'}://${given}`;
  return withScheme
    .replace(/\/+$/, '')
    .replace(/\/api(\/v1)?$/i, '')
    .replace(/\/+$/, '');
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
  return globals.profile || env.CHATCTL_PROFILE || config?.defaultProfile || 'default';
}

/** What names the target: the first of these, every flag before any variable. */
type Naming = { kind: 'zuliprc' | 'server' | 'dataDir' | 'profile'; value: string; source: string };

/**
 * Every flag before any variable: `--profile work` wins over a ZULIP_SITE exported for other tools. Empty
 * values count as unset.
 */
function naming(globals: GlobalOptions, env: Env): Naming | undefined {
  const levels: { how: string; names: Record<Naming['kind'], [string | undefined, string]> }[] = [
    {
      how: 'flag',
      names: {
        zuliprc: [globals.zuliprc, '--zuliprc'],
        server: [globals.server, '--server'],
        dataDir: [globals.dataDir, '--data-dir'],
        profile: [globals.profile, '--profile'],
      },
    },
    {
      how: 'environment variable',
      names: {
        zuliprc: [env.ZULIP_CONFIG, 'ZULIP_CONFIG'],
        server: [env.ZULIP_SITE, 'ZULIP_SITE'],
        dataDir: [env.CHATCTL_DATA_DIR, 'CHATCTL_DATA_DIR'],
        profile: [env.CHATCTL_PROFILE, 'CHATCTL_PROFILE'],
      },
    },
  ];
  for (const { how, names } of levels) {
    for (const kind of ['zuliprc', 'server', 'dataDir', 'profile'] as const) {
      const [value, name] = names[kind];
      if (value) return { kind, value, source: `${how} ${name}` };
    }
  }
  return undefined;
}

/**
 * The data dir `init` and `login --embedded` work on, by the same precedence as every command: the data
 * dir named, else that of the embedded profile named or selected, else the default data dir (a server,
 * a zuliprc or a profile still to be made names no data dir).
 */
export function embeddedDataDir(globals: GlobalOptions, env: Env, config: ConfigFile): string {
  const named = naming(globals, env);
  if (named?.kind === 'dataDir') return resolve(named.value);
  const profile = config.profiles?.[selectedProfileName(globals, env, config)];
  if ((!named || named.kind === 'profile') && profile?.embedded) return profile.embedded;
  return defaultDataDir(env);
}

/**
 * `warn` hears of a config file that cannot be read while the target is named without it (--data-dir,
 * --server, --zuliprc): it is ignored then, so a broken file locks no one out.
 */
export function resolveTarget(globals: GlobalOptions, env: Env, warn: (message: string) => void = () => undefined): Target {
  const named = naming(globals, env);
  const fromEnv = envCredentials(env);
  const loaded = loadConfig(env);
  if (loaded.error) {
    if (!named || named.kind === 'profile') throw loaded.error;
    warn(`${loaded.error.message}; its profiles are ignored. To use them again: ${loaded.error.hint ?? ''}`);
  }
  const config = loaded.config;
  const profiles = config.profiles ?? {};
  const name = selectedProfileName(globals, env, config);
  const selected = profiles[name];

  /** The profile that already points where a flag or variable does: the selected one first, else any. */
  const profileWhere = (key: 'server' | 'embedded', value: string): readonly [string, Profile] | undefined =>
    selected?.[key] === value ? [name, selected] : Object.entries(profiles).find(([, p]) => p[key] === value);

  const fromZuliprc = (rcPath: string, source: string): Target => {
    const rc = readZuliprc(rcPath);
    // Within a zuliprc's target, --server and ZULIP_SITE still override its site, as in Zulip's own tools.
    const site = globals.server || env.ZULIP_SITE || rc.site;
    if (!site) throw usageError(`${rcPath} names no site; add site= to its [api] section or pass --server`);
    const fromRc = rc.email && rc.key ? { email: rc.email, apiKey: rc.key } : undefined;
    return {
      kind: 'remote',
      site: normalizeSite(site),
      tls: tlsFrom(env, rc),
      ...credentialsOf(fromEnv, fromRc, `zuliprc ${rcPath}`),
      profileName: name,
      fromProfile: false,
      source,
      firstUse: false,
    };
  };

  const fromServer = (site: string, source: string): Target => {
    const normalized = normalizeSite(site);
    const match = profileWhere('server', normalized);
    return {
      kind: 'remote',
      site: normalized,
      tls: tlsFrom(env, {}, match?.[1]),
      ...credentialsOf(fromEnv, profileCredentials(match?.[1]), `profile ${match?.[0]}`),
      profile: match?.[1],
      profileName: match?.[0] ?? name,
      fromProfile: Boolean(match),
      source,
      firstUse: false,
    };
  };

  const fromDataDir = (dir: string, source: string): Target => {
    const dataDir = resolve(dir);
    const match = profileWhere('embedded', dataDir);
    return {
      kind: 'embedded',
      dataDir,
      ...credentialsOf(fromEnv, profileCredentials(match?.[1]), `profile ${match?.[0]}`),
      profileName: match?.[0] ?? name,
      fromProfile: Boolean(match),
      source,
      firstUse: false,
    };
  };

  const fromProfile = (profile: Profile, source: string): Target => {
    const base = { ...credentialsOf(fromEnv, profileCredentials(profile), `profile ${name}`), profileName: name, fromProfile: true, source, firstUse: false };
    if (profile.server) return { kind: 'remote', site: profile.server, tls: tlsFrom(env, {}, profile), profile, ...base };
    if (profile.embedded) return { kind: 'embedded', dataDir: profile.embedded, ...base };
    throw brokenConfig(configPath(env), `has a profile "${name}" with neither "server" nor "embedded"`);
  };

  switch (named?.kind) {
    case 'zuliprc':
      return fromZuliprc(named.value, `${named.source} (${named.value})`);
    case 'server':
      return fromServer(named.value, named.source);
    case 'dataDir':
      return fromDataDir(named.value, named.source);
    case 'profile': {
      if (!selected) {
        const known = Object.keys(profiles);
        throw usageError(`no profile named "${named.value}"`, known.length ? `profiles: ${known.join(', ')}` : 'log in first: chatctl login');
      }
      return fromProfile(selected, named.source);
    }
    case undefined:
      break;
  }
  if (selected) return fromProfile(selected, `default profile`);

  const rc = defaultZuliprc(env);
  const hasZuliprc = existsSync(rc);
  if (hasZuliprc) {
    const parsed = readZuliprc(rc);
    if (parsed.site) return fromZuliprc(rc, `zuliprc ${rc}`);
  }

  return {
    kind: 'embedded',
    dataDir: defaultDataDir(env),
    ...credentialsOf(fromEnv, undefined, ''),
    profileName: name,
    fromProfile: false,
    source: 'nothing configured: the default data dir',
    firstUse: !fromEnv && Object.keys(profiles).length === 0 && !hasZuliprc,
  };
}
