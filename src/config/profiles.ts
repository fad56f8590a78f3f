/**
 * Named profiles and their credentials, in one JSON file (mode 0600, in a 0700 directory). Reading is a
 * plain JSON parse on every command; writing goes through conf (atomic writes, schema), loaded only by the
 * commands that write.
 */
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPlainObject } from '../api/schema.js';
import { systemReason } from '../errno.js';
import { ChatctlError } from '../errors.js';
import { makeDirs } from '../make-dirs.js';
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

/**
 * Why the config file cannot be used, with the way out: it is the user's file, never rewritten or dropped here.
 * `fix` says how to repair it where that is more than editing it.
 */
export function brokenConfig(path: string, problem: string, fix = 'fix the file'): ChatctlError {
  return new ChatctlError(
    `${path} ${problem}`,
    'usage',
    `${fix}, or move it away and log in again: mv ${path} ${path}.broken (meanwhile --data-dir DIR, --server URL with ZULIP_EMAIL and ZULIP_API_KEY, and --zuliprc FILE work without it)`,
  );
}

/** What is wrong with a parsed config file, or undefined when it has the shape chatctl writes. */
function shapeProblem(parsed: unknown): string | undefined {
  if (!isPlainObject(parsed)) return 'does not hold a JSON object';
  if (parsed.defaultProfile !== undefined && typeof parsed.defaultProfile !== 'string') return 'has a defaultProfile that is not a string';
  if (parsed.profiles === undefined) return undefined;
  if (!isPlainObject(parsed.profiles)) return 'has "profiles" that is not an object';
  for (const [name, p] of Object.entries(parsed.profiles)) {
    if (!isPlainObject(p)) return `has a profile "${name}" that is not an object`;
    for (const key of ['email', 'apiKey'] as const) if (typeof p[key] !== 'string') return `has a profile "${name}" without "${key}"`;
    if (typeof p.server !== 'string' && typeof p.embedded !== 'string') return `has a profile "${name}" with neither "server" nor "embedded"`;
  }
  return undefined;
}

/** The config file, or the error saying why it cannot be used (a missing file is an empty configuration). */
export function loadConfig(env: Env): { config: ConfigFile; error?: ChatctlError } {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { config: {} };
    // A directory, or a file chatctl may not read: said as a broken file, so a named target still works.
    return {
      config: {},
      error: brokenConfig(path, `cannot be read: ${systemReason(e)}`, `make it a file chatctl's user can read and write (ls -ld ${path}; chmod 600 ${path})`),
    };
  }
  assertPrivate(path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { config: {}, error: brokenConfig(path, `is not valid JSON (${e instanceof Error ? e.message : String(e)})`) };
  }
  const problem = shapeProblem(parsed);
  if (problem) return { config: {}, error: brokenConfig(path, problem) };
  return { config: parsed as ConfigFile };
}

/** The config file; throws when it cannot be used. */
export function readConfig(env: Env): ConfigFile {
  const { config, error } = loadConfig(env);
  if (error) throw error;
  return config;
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

/**
 * Applies `change` to the config file through conf, creating it private. A change that returns undefined
 * has nothing to write: the file is left as it is and conf is not loaded (false).
 */
export async function updateConfig(env: Env, change: (config: ConfigFile) => ConfigFile | undefined): Promise<boolean> {
  // A broken file holds the user's other profiles: say so rather than let conf drop or refuse it.
  const next = change(readConfig(env));
  if (next === undefined) return false;
  const dir = configDir(env);
  makeDirs(dir);
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
  store.store = next;
  chmodSync(join(dir, CONFIG_FILE), 0o600);
  return true;
}

/** The default profile before and after a change, for the commands that say when it changed. */
export interface DefaultChange {
  before?: string;
  after?: string;
  /** The other profiles there were: with none, the only profile is the default as a matter of course. */
  others: string[];
  /** What the profile held before, when it existed. */
  previous?: Profile;
}

/**
 * Stores `profile` under `name`. It becomes the default only when there is none (or it already is): a
 * profile named on the command line does not silently take over what every other command uses.
 */
export async function saveProfile(env: Env, name: string, profile: Profile): Promise<DefaultChange> {
  let change: DefaultChange = { others: [] };
  await updateConfig(env, (c) => {
    const after = c.defaultProfile && c.profiles?.[c.defaultProfile] ? c.defaultProfile : name;
    change = { before: c.defaultProfile, after, others: Object.keys(c.profiles ?? {}).filter((p) => p !== name), previous: c.profiles?.[name] };
    return { ...c, defaultProfile: after, profiles: { ...(c.profiles ?? {}), [name]: profile } };
  });
  return change;
}

/** Makes `name` the default profile; undefined (and nothing written) when there is no such profile. */
export async function useProfile(env: Env, name: string): Promise<DefaultChange | undefined> {
  let change: DefaultChange | undefined;
  await updateConfig(env, (c) => {
    if (!c.profiles?.[name]) return undefined;
    change = { before: c.defaultProfile, after: name, others: Object.keys(c.profiles).filter((p) => p !== name) };
    return { ...c, defaultProfile: name };
  });
  return change;
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
    if (!current || current.server !== server) return undefined;
    const next: Profile = { ...current, featureLevel: facts.featureLevel, checkedAt: facts.checkedAt };
    if (facts.serverVersion !== undefined) next.serverVersion = facts.serverVersion;
    return { ...c, profiles: { ...c.profiles, [name]: next } };
  });
}

export async function removeProfile(env: Env, name: string): Promise<boolean> {
  return updateConfig(env, (c) => {
    if (!c.profiles?.[name]) return undefined;
    const { [name]: _removed, ...profiles } = c.profiles;
    const next: ConfigFile = { ...c, profiles };
    if (c.defaultProfile === name) delete next.defaultProfile;
    return next;
  });
}
