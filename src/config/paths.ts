/** Where chatctl keeps its configuration and the embedded organization, per the XDG base directories. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

const home = (env: Env): string => env.HOME || homedir();

export const configDir = (env: Env): string =>
  resolve(env.CHATCTL_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(home(env), '.config'), 'chatctl'));

export const defaultDataDir = (env: Env): string =>
  resolve(env.CHATCTL_DATA_DIR || join(env.XDG_DATA_HOME || join(home(env), '.local', 'share'), 'chatctl'));

export const defaultZuliprc = (env: Env): string => join(home(env), '.zuliprc');

export const CONFIG_FILE = 'config.json';
