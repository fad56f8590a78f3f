/**
 * The options every command takes, declared once: the program adds them, the shells complete them, help
 * lists them, and `GlobalOptions` is their parsed type. They may stand before or after the command words.
 */
import { DEFAULT_MAX_WAIT_SECONDS } from '../../timeouts.js';
import { flag, parseValues, takesValue, type Values } from '../core/flags.js';
import { COLOR_MODES } from '../output/output.js';

export const GLOBAL_FLAGS = {
  profile: flag.string('-p, --profile <name>', 'use this stored profile (env CHATCTL_PROFILE)', { complete: 'profiles' }),
  dataDir: flag.string('--data-dir <dir>', 'use the embedded organization in this directory (env CHATCTL_DATA_DIR)'),
  server: flag.string('--server <url>', 'use the Zulip-compatible server at this URL (env ZULIP_SITE)', { complete: 'none' }),
  zuliprc: flag.string('--zuliprc <file>', 'read site, email and key from this zuliprc (env ZULIP_CONFIG)'),
  caFile: flag.string('--ca-file <file>', 'trust this CA bundle for the server (env ZULIP_CERT_BUNDLE)'),
  insecure: flag.bool('--insecure', 'do not verify the server certificate (warns; env ZULIP_ALLOW_INSECURE=true)'),
  maxWait: flag.seconds('--max-wait <seconds>', 'longest wait for a rate limit or retry before giving up (exit 75)', { default: DEFAULT_MAX_WAIT_SECONDS }),
  verbose: flag.bool('-v, --verbose', 'show every request and response on stderr (never credentials)'),
  quiet: flag.bool('-q, --quiet', 'no hints, progress or summaries on stderr (errors and warnings still show)'),
  color: flag.choice('--color <when>', 'colour output', COLOR_MODES, { default: 'auto' }),
  input: flag.bool('--no-input', 'never prompt, even on a terminal'),
};

export type GlobalOptions = Values<typeof GLOBAL_FLAGS>;

/** What a command gets when no global option is given. */
export const GLOBAL_DEFAULTS: GlobalOptions = parseValues(GLOBAL_FLAGS, {});

/** The global flags that take a value (`-p`, `--profile`, `--max-wait` ...): the word after them is not a command word. */
export const VALUE_GLOBALS: readonly string[] = Object.values(GLOBAL_FLAGS).flatMap((f) => (takesValue(f.flags) ? (f.flags.match(/--?[\w-]+/g) ?? []) : []));
