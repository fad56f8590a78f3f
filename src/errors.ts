/**
 * chatctl's own errors and the exit-code contract they carry (docs/scripting.md, `chatctl help exit-codes`),
 * for every layer: the client and the configuration raise them as the CLI does. cli/core/errors.ts maps any error,
 * these and the server's, to a message and a code, in one place.
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  partial: 3,
  auth: 4,
  permission: 5,
  notFound: 6,
  pending: 10,
  temporary: 75,
  interrupted: 130,
} as const;

export type ExitKind = keyof typeof EXIT;

export const EXIT_DESCRIPTIONS: Record<ExitKind, string> = {
  ok: 'success (an empty list too: [] in JSON modes)',
  failure: 'failure not listed below (API error, bad response, bug)',
  usage: 'usage error: bad flag or argument; --yes or input missing when not interactive',
  partial: 'a bulk run in which rows failed: one, some or every row (per-row results are still printed)',
  auth: 'not authenticated: no or invalid credentials (401), or a credentials file others can read',
  permission: 'permission denied: the role is not enough',
  notFound: 'not found: no such user, message, attachment ..., no organization in the data dir named, no such profile for profiles use',
  pending: 'changes pending: org plan or org drift found the organization differs from the file (--exit-zero: 0)',
  temporary: 'temporary failure after retries (rate limit, 5xx, timeout, unreachable): cron can reschedule',
  interrupted: 'interrupted (Ctrl-C, or a prompt aborted)',
};

/** An error of chatctl itself (not of the server), with its exit kind and an optional hint. */
export class ChatctlError extends Error {
  constructor(
    message: string,
    readonly kind: ExitKind = 'failure',
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ChatctlError';
  }
}

/** Something chatctl looked for itself is not there (a profile, an organization, an account): exit 6. */
export const notFound = (message: string, hint?: string): ChatctlError => new ChatctlError(message, 'notFound', hint);
