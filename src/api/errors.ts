/**
 * The error envelope of a Zulip-compatible server, shared by both sides: the embedded router throws it,
 * the client rebuilds it from a response. `extra` carries the code-specific fields (`queue_id`, `errors`, ...).
 */
import { INSUFFICIENT_PERMISSION, ROLE_REQUIRED } from './server-messages.js';

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'REQUEST_VARIABLE_MISSING'
  | 'REQUEST_VARIABLE_INVALID'
  | 'REQUEST_CONFUSING_VAR'
  | 'INVALID_JSON'
  | 'BAD_NARROW'
  | 'STREAM_DOES_NOT_EXIST'
  | 'UNAUTHORIZED'
  | 'UNAUTHORIZED_PRINCIPAL'
  | 'INVALID_API_KEY'
  | 'AUTHENTICATION_FAILED'
  | 'USER_DEACTIVATED'
  | 'REALM_DEACTIVATED'
  | 'PASSWORD_AUTH_DISABLED'
  | 'RATE_LIMIT_HIT'
  | 'BAD_EVENT_QUEUE_ID'
  | 'INVITATION_FAILED'
  | 'REACTION_ALREADY_EXISTS'
  | 'REACTION_DOES_NOT_EXIST'
  | 'CANNOT_DEACTIVATE_LAST_USER'
  | 'REALM_UPLOAD_QUOTA'
  | 'REQUEST_TOO_LARGE'
  | 'STORAGE_FULL'
  | (string & {});

export class ApiError extends Error {
  constructor(
    readonly msg: string,
    readonly code: ErrorCode | null = 'BAD_REQUEST',
    readonly status = 400,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(msg);
    this.name = 'ApiError';
  }

  /** The JSON body the server sends for this error (without `code` only when rebuilt from a server that sent none). */
  body(): Record<string, unknown> {
    const body: Record<string, unknown> = { result: 'error', msg: this.msg };
    if (this.code !== null) body.code = this.code;
    return { ...body, ...this.extra };
  }
}

export const badRequest = (msg: string, extra: Record<string, unknown> = {}): ApiError => new ApiError(msg, 'BAD_REQUEST', 400, extra);

/** Every Basic-auth failure on a real server: 401, code UNAUTHORIZED, with the Basic challenge. */
export const unauthorized = (msg: string): ApiError => new ApiError(msg, 'UNAUTHORIZED', 401, {}, { 'www-authenticate': 'Basic realm="zulip"' });

export const mustBe = (what: 'administrator' | 'owner' | 'member'): ApiError => new ApiError(`${ROLE_REQUIRED} ${what}`, 'UNAUTHORIZED_PRINCIPAL', 400);

export const insufficientPermission = (): ApiError => badRequest(INSUFFICIENT_PERMISSION);

/**
 * The server's disk is full (ours: a Zulip server answers 500 when PostgreSQL cannot write). 507 with a code
 * of its own, so a client can tell it from a bug and try again later; nothing of the request was kept.
 */
export const storageFull = (): ApiError =>
  new ApiError('The server is out of disk space; nothing was changed. Try again later.', 'STORAGE_FULL', 507, {}, { 'retry-after': '60' });

/**
 * A `change_all` move that would take messages older than the mover's time limit (zerver/lib/exceptions.py
 * MessageMoveError): says how many of the topic's messages could be moved, from which one on.
 */
export const moveTimeLimitExceeded = (firstAllowedId: number, total: number, allowed: number): ApiError =>
  new ApiError(`You only have permission to move the ${allowed}/${total} most recent messages in this topic.`, 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', 400, {
    first_message_id_allowed_to_move: firstAllowedId,
    total_messages_in_topic: total,
    total_messages_allowed_to_move: allowed,
  });
