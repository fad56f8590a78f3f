/** Where chatctl keeps its configuration and the embedded organization, per the XDG base directories. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

const home = (env: Env): string => env.HOME || homedir();

export const configDir = (env: Env): string => resolve(env.CHATCTL_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(home(env), '.config'), 'chatctl'));

/** The data dir when nothing names one (CHATCTL_DATA_DIR and --data-dir name one: see cli/target/target.ts). */
export const defaultDataDir = (env: Env): string => resolve(join(env.XDG_DATA_HOME || join(home(env), '.local', 'share'), 'chatctl'));

export const defaultZuliprc = (env: Env): string => join(home(env), '.zuliprc');

export const CONFIG_FILE = 'config.json';
