/**
 * Named profiles and their credentials, in one JSON file (mode 0600, in a 0700 directory). Reading is a
 * plain JSON parse on every command; writing goes through conf (atomic writes, schema), loaded only by the
 * commands that write.
 */
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../cli/errors.js';
import { assertPrivate } from './credentials-file.js';
import { CONFIG_FILE, configDir, type Env } from './paths.js';

export interface Profile {
  /** A remote server's URL; absent for the embedded organization. */
  server?: string;
  /** The embedded organization's data dir. */
  embedded?: string;
  email: string;
  apiKey: string;
  /** Cached GET /server_settings facts (remote profiles); `checkedAt` in UNIX seconds. */
  featureLevel?: number;
  serverVersion?: string;
  checkedAt?: number;
  /** TLS files given at login (absolute paths), used when neither flags nor environment name others. */
  caFile?: string;
  clientCert?: string;
  clientKey?: string;
}

export interface ConfigFile {
  defaultProfile?: string;
  profiles?: Record<string, Profile>;
}

export const configPath = (env: Env): string => join(configDir(env), CONFIG_FILE);

export function readConfig(env: Env): ConfigFile {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  assertPrivate(path);
  try {
    return JSON.parse(text) as ConfigFile;
  } catch {
    throw new CliError(`${path} is not valid JSON`, 'failure', 'fix or remove the file, then log in again');
  }
}

const profileSchema = {
  type: 'object',
  properties: {
    server: { type: 'string' },
    embedded: { type: 'string' },
    email: { type: 'string' },
    apiKey: { type: 'string', pattern: '^[A-Za-z0-9]{32}$' },
    featureLevel: { type: 'integer' },
    serverVersion: { type: 'string' },
    checkedAt: { type: 'number' },
    caFile: { type: 'string' },
    clientCert: { type: 'string' },
    clientKey: { type: 'string' },
  },
  required: ['email', 'apiKey'],
} as const;

/** Applies `change` to the config file through conf, creating it private. */
export async function updateConfig(env: Env, change: (config: ConfigFile) => ConfigFile): Promise<void> {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const { default: Conf } = await import('conf');
  const store = new Conf<ConfigFile>({
    projectName: 'chatctl',
    cwd: dir,
    configName: CONFIG_FILE.replace(/\.json$/, ''),
    configFileMode: 0o600,
    schema: {
      defaultProfile: { type: 'string' },
      profiles: { type: 'object', additionalProperties: profileSchema },
    },
  });
  const next = change(store.store);
  store.store = next;
  chmodSync(join(dir, CONFIG_FILE), 0o600);
}

export async function saveProfile(env: Env, name: string, profile: Profile, makeDefault: boolean): Promise<void> {
  await updateConfig(env, (c) => ({
    ...c,
    defaultProfile: makeDefault || !c.defaultProfile ? name : c.defaultProfile,
    profiles: { ...(c.profiles ?? {}), [name]: profile },
  }));
}

/**
 * Stores freshly read server facts in a profile's cache, if the profile still points at `server` (another
 * command may have logged in elsewhere meanwhile). The file is written only when the facts are read,
 * not on every command.
 */
export async function cacheServerFacts(
  env: Env,
  name: string,
  server: string,
  facts: { featureLevel: number; serverVersion?: string; checkedAt: number },
): Promise<void> {
  await updateConfig(env, (c) => {
    const current = c.profiles?.[name];
    if (!current || current.server !== server) return c;
    const next: Profile = { ...current, featureLevel: facts.featureLevel, checkedAt: facts.checkedAt };
    if (facts.serverVersion !== undefined) next.serverVersion = facts.serverVersion;
    return { ...c, profiles: { ...c.profiles, [name]: next } };
  });
}

export async function removeProfile(env: Env, name: string): Promise<boolean> {
  let existed = false;
  await updateConfig(env, (c) => {
    const profiles = { ...(c.profiles ?? {}) };
    existed = name in profiles;
    delete profiles[name];
    const next: ConfigFile = { ...c, profiles };
    if (c.defaultProfile === name) delete next.defaultProfile;
    return next;
  });
  return existed;
}
