/** `chatctl help exit-codes`, `environment` and `output`: the contract a script relies on. */
import { EXIT, EXIT_DESCRIPTIONS, type ExitKind } from '../core/errors.js';
import { DURATION_UNITS } from '../core/units.js';

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

const exitCodes = (): string => `Exit codes:
${(Object.keys(EXIT) as ExitKind[]).map((k) => `  ${String(EXIT[k]).padStart(3)}  ${EXIT_DESCRIPTIONS[k]}`).join('\n')}

Bulk runs (commands that take a list of targets or --from-file rows, and attachments clean):
  ${bulkExits()}
`;

/** How a bulk run's exit code is chosen, for `help exit-codes` and the manual. */
export const bulkExits = (): string =>
  `${EXIT.partial} whenever at least one row failed, however many rows the run had: one, some or all of them; ${EXIT.ok} when every row was done or already so (unchanged). Another code ends a run only for what no row gets past: a usage error or a bad file (${EXIT.usage}, before anything is sent), bad credentials (${EXIT.auth}), the server still unreachable or rate-limited after the retries (${EXIT.temporary}), Ctrl-C (${EXIT.interrupted}), or a permission every row lacks alike (${EXIT.permission}). A command that names one thing (linkifiers add, users update USER, status set) is one request and exits as its error would (${EXIT.notFound}, ${EXIT.permission}, ${EXIT.failure} ...).`;

const environment = (): string => {
  const width = Math.max(...ENVIRONMENT.map((e) => e.name.length));
  return `Environment (flags win over these; these win over profiles):\n${ENVIRONMENT.map((e) => `  ${e.name.padEnd(width)}  ${e.description}`).join('\n')}\n`;
};

const output = (): string => `Output (every command that prints records):

  On a terminal a table; piped, tab-separated values. --json prints the data itself (wire field names); --format table|tsv|csv|json|ndjson picks a format; --fields a,b picks and orders fields.

--jq EXPRESSION
  Runs a jq program (real jq 1.7, built in: no jq binary needed) over the JSON result: a list as one array, every page and every batch of it. Strings print raw, other values as compact JSON, one a line, as with gh --jq. With --format ndjson the program runs once per record, as records arrive. A program that prints nothing (empty, a select that matches nothing) prints nothing and exits 0, as jq does. A bad expression is a usage error (exit 2) before anything is sent; an error while it runs is exit 1 with jq's message.

    chatctl users list --jq '.[] | select(.role <= 200) | .email'
    chatctl users list --jq 'group_by(.role) | map({role: .[0].role, n: length})'
    chatctl users list --jq '.[] | "\\(.full_name) <\\(.email)>"'
    chatctl users list --format ndjson --jq '[.user_id, .email] | @csv'
    chatctl users deactivate --from-file gone.csv --yes --jq 'map(select(.ok | not)) | length'

--template TEMPLATE, --template @FILE
  Prints the JSON result through a Handlebars template (handlebarsjs.com): {{field}}, {{#each .}}, {{#if}}, {{lookup}}. Nothing is HTML-escaped. Runs once over the whole result (a list as one array), or once per record with --format ndjson. A bad template, or a helper that does not exist, is a usage error.
  Helpers:
    tablerow A B ...    a row of a table, columns aligned when the table is printed
    tablerender         prints the rows so far (rows left at the end are printed then)
    timeago T           "3 days ago", "in 2 hours" (T: seconds, milliseconds or an ISO 8601 time)
    rfc3339 T           2026-11-20T09:30:00Z (UTC)
    color STYLE X       X in a chalk style (red, bold, bgBlue ... joined by +: "bold+red"), only when colour is on (--color, NO_COLOR, a terminal)
    join LIST [SEP]     a list's items joined by SEP (default ", ")
    pluck LIST FIELD    that field of every item of a list
    json X              X as compact JSON

    chatctl users list --template '{{#each .}}{{tablerow full_name email (timeago date_joined)}}{{/each}}'
    chatctl users list --template '{{join (pluck . "email") ", "}}'
    chatctl users get 8 --template $'{{color "bold" full_name}} joined {{rfc3339 date_joined}}\\n'

  --jq and --template exclude each other, --fields, and formats other than json and ndjson.
`;

const durations = (): string => `Durations (every flag that takes one: --older-than 30d, --expires 7d ...):

  A number and a unit, several of them added up: 30d, 12h, 1h30m, 1.5h, 2w. The units are ${DURATION_UNITS}, in lower case and nothing else.

  Anything else is a usage error (exit 2) before anything is read or sent: 1M (months to systemd, minutes to others), 6mo and 1y among them. A month or a year has no one length, and a flag in a cron job must have one reading; give days or weeks instead (30d, 180d, 52w).
`;

export const HELP_TOPICS: Record<string, () => string> = { 'exit-codes': exitCodes, environment, output, durations };

/** What a topic covers beyond its name, where the name does not say it, for the help footer. */
const TOPIC_NOTES: Partial<Record<keyof typeof HELP_TOPICS, string>> = { output: '--jq, --template' };

/** The help footer's pointer to every topic. */
export const topicsFooter = (): string =>
  `Run ${Object.keys(HELP_TOPICS)
    .map((t) => `"chatctl help ${t}"${TOPIC_NOTES[t] ? ` (${TOPIC_NOTES[t]})` : ''}`)
    .join(', ')
    .replace(/, ([^,]*)$/, ' and $1')} for the scripting contract.`;

export const helpTopic = (name: string): string | undefined => HELP_TOPICS[name]?.();
