/** `chatctl help exit-codes` and `chatctl help environment`: the contract a script relies on. */
import { EXIT, EXIT_DESCRIPTIONS, type ExitKind } from './errors.js';

/** Every environment variable chatctl reads, in one place. */
export const ENVIRONMENT: readonly { name: string; description: string }[] = [
  { name: 'CHATCTL_PROFILE', description: 'the profile to use (like --profile)' },
  { name: 'CHATCTL_CONFIG_DIR', description: 'where profiles and credentials live (default: $XDG_CONFIG_HOME/chatctl)' },
  {
    name: 'CHATCTL_DATA_DIR',
    description:
      'the embedded organization to use (like --data-dir; default: $XDG_DATA_HOME/chatctl); one without an organization is an error (exit 6), never created',
  },
  { name: 'ZULIP_SITE', description: 'the server URL (like --server)' },
  { name: 'ZULIP_EMAIL', description: 'the e-mail to authenticate as, with ZULIP_API_KEY (one without the other is an error, exit 2)' },
  { name: 'ZULIP_API_KEY', description: 'the API key to authenticate with, with ZULIP_EMAIL' },
  { name: 'ZULIP_CONFIG', description: 'a zuliprc file to read site, email and key from (like --zuliprc)' },
  { name: 'ZULIP_CERT_BUNDLE', description: 'a CA bundle to trust for the server (like --ca-file)' },
  { name: 'ZULIP_CERT, ZULIP_CERT_KEY', description: 'a client certificate and its key' },
  { name: 'ZULIP_ALLOW_INSECURE', description: 'true: do not verify the server certificate (warns); must be true or false' },
  { name: 'HTTPS_PROXY, HTTP_PROXY, NO_PROXY', description: 'proxies for remote servers' },
  { name: 'CHATCTL_WEBHOOK_TOKEN', description: 'the outgoing-webhook token for webhook trigger and listen (like --token, but not visible in ps)' },
  { name: 'NO_COLOR', description: 'set: no colour' },
  { name: 'FORCE_COLOR, CLICOLOR_FORCE', description: 'set (not 0): colour even when not on a terminal' },
  { name: 'CI', description: 'set: never prompt' },
  { name: 'XDG_CONFIG_HOME, XDG_DATA_HOME', description: 'base directories for configuration and data' },
  { name: 'CHATCTL_DEBUG', description: 'set: print stack traces of failures' },
];

const exitCodes = (): string =>
  `Exit codes:\n${(Object.keys(EXIT) as ExitKind[]).map((k) => `  ${String(EXIT[k]).padStart(3)}  ${EXIT_DESCRIPTIONS[k]}`).join('\n')}\n`;

const environment = (): string => {
  const width = Math.max(...ENVIRONMENT.map((e) => e.name.length));
  return `Environment (flags win over these; these win over profiles):\n${ENVIRONMENT.map((e) => `  ${e.name.padEnd(width)}  ${e.description}`).join('\n')}\n`;
};

export const HELP_TOPICS: Record<string, () => string> = { 'exit-codes': exitCodes, environment };

export const helpTopic = (name: string): string | undefined => HELP_TOPICS[name]?.();
