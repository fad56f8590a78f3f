/**
 * The one function that maps any error (chatctl's own, the server's, the network's) to a message and an
 * exit code of the contract in ../../errors.ts. Commands throw; only the entry point exits.
 */
import { ApiError } from '../../api/errors.js';
import { classify } from '../../api/server-messages.js';
import { ChatctlError, EXIT, type ExitKind } from '../../errors.js';
import { Refusal } from './refusal.js';
import { systemReason } from '../../errno.js';

export { ChatctlError, EXIT, EXIT_DESCRIPTIONS, type ExitKind } from '../../errors.js';
import { BUSY_MESSAGE, isBusy } from '../../server/embedded-facts.js';

export const usageError = (message: string, hint?: string): ChatctlError => new ChatctlError(message, 'usage', hint);

/**
 * Rows of a bulk run failed: exit 3 whatever their number, so a script reads one code for a run of one row,
 * of many, or one where every row failed. A run of one row is said by that row's error (`only`), which a
 * person reads better than "1 of 1 rows failed"; its exit is still 3.
 */
export class RowsFailedError extends ChatctlError {
  constructor(
    /** The run's summary ("8 invited, 2 failed"): a failed run says it once, as its error. */
    summary: string,
    readonly only?: unknown,
  ) {
    super(summary, 'partial');
    this.name = 'RowsFailedError';
  }
}

/** Network-level failures of fetch and sockets: worth rescheduling. */
function isTransient(e: Error): boolean {
  const code = (e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code ?? '';
  return (
    e.name === 'TimeoutError' ||
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_)/.test(code) ||
    (e.name === 'TypeError' && e.message === 'fetch failed')
  );
}

export function exitKindOf(e: unknown): ExitKind {
  if (e instanceof ChatctlError || e instanceof Refusal) return e.kind;
  if (e instanceof ApiError) return classify(e)?.kind ?? 'failure';
  if (e instanceof Error && (e.name === 'ExitPromptError' || e.name === 'AbortPromptError')) return 'interrupted';
  if (e instanceof Error && (isTransient(e) || isBusy(e))) return 'temporary';
  return 'failure';
}

export interface ErrorReport {
  exitCode: number;
  /** The line for a person: `chatctl: <message> (<CODE>)`. */
  text: string;
  hint?: string;
  /** The object JSON modes print on stderr. */
  json: Record<string, unknown>;
}

export function reportError(e: unknown): ErrorReport {
  return e instanceof RowsFailedError && e.only !== undefined ? reportOf(e.only, EXIT.partial) : reportOf(e, EXIT[exitKindOf(e)]);
}

function reportOf(e: unknown, exitCode: number): ErrorReport {
  const kind = exitKindOf(e);
  if (e instanceof ApiError) {
    const suffix = e.code ? ` (${e.code})` : '';
    return {
      exitCode,
      text: `chatctl: ${e.msg}${suffix}`,
      hint: kind === 'auth' ? 'log in again: chatctl login' : undefined,
      json: { error: { message: e.msg, code: e.code, http_status: e.status, exit_code: exitCode, ...e.extra } },
    };
  }
  const message = e instanceof Error ? describeError(e) : String(e);
  const hint = e instanceof ChatctlError ? e.hint : undefined;
  return {
    exitCode,
    text: `chatctl: ${message}`,
    hint,
    json: { error: { message, code: kind.toUpperCase(), exit_code: exitCode, ...(hint ? { hint } : {}) } },
  };
}

/** Where a socket failed to go: the address and port it tried, or the host name it could not look up. */
function whereTried(cause: Error): string {
  const { address, port, hostname } = cause as { address?: unknown; port?: unknown; hostname?: unknown };
  if (typeof address === 'string') return ` at ${address.includes(':') ? `[${address}]` : address}${typeof port === 'number' ? `:${port}` : ''}`;
  return typeof hostname === 'string' ? ` ${hostname}` : '';
}

function describeError(e: Error): string {
  const cause = (e as { cause?: unknown }).cause;
  if (e.message === 'fetch failed' && cause instanceof Error) return `cannot reach the server${whereTried(cause)}: ${systemReason(cause)}`;
  if (isBusy(e)) return BUSY_MESSAGE;
  return e.message;
}
