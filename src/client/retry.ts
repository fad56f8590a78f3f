/**
 * When a failed request may be sent again, and how long to wait first.
 *
 * - A 429 was refused before the server did anything, so any request may follow it, after `Retry-After`
 *   (the body's float `retry-after`, else the header) plus jitter.
 * - Connection errors, timeouts and 502/503/504 are retried with exponential backoff and jitter, but only
 *   for requests that are safe to repeat (GET, and operations the catalogue marks idempotent). A request
 *   that creates something is retried only when it provably never reached the server: the connection was
 *   refused, the name did not resolve, or the connection never opened.
 * - Every wait counts against one budget per request (`--max-wait`); a wait that does not fit fails at
 *   once, with the response or error that asked for it.
 */
import { DEFAULT_MAX_WAIT_SECONDS } from '../timeouts.js';
import { errorCodes } from '../errno.js';

export interface RetryPolicy {
  /** Attempts for connection errors and 502/503/504, the first included. */
  maxAttempts: number;
  /** Attempts for 429s, the first included (each also bounded by the wait budget). */
  maxRateLimitAttempts: number;
  /** All the waiting one request may do, ms (`--max-wait`). */
  maxWaitMs: number;
  /** The first backoff, ms; doubled for each further attempt. */
  baseDelayMs: number;
  /** [0, 1): jitter. */
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return {
    maxAttempts: 3,
    maxRateLimitAttempts: 6,
    maxWaitMs: DEFAULT_MAX_WAIT_SECONDS * 1000,
    baseDelayMs: 500,
    random: Math.random,
    sleep,
    ...overrides,
  };
}

/** One attempt, no waiting: for clients nobody configured (test fixtures, the embedded organization). */
export const NO_RETRIES: RetryPolicy = retryPolicy({ maxAttempts: 1, maxRateLimitAttempts: 1, maxWaitMs: 0 });

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Statuses a gateway or an overloaded server answers with; the request may never have been handled. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * What a thrown transport error means for a retry:
 * - `unsent`: no byte of the request reached the server (refused, no such host, connect timeout);
 * - `transient`: the connection failed or timed out after the request may have been sent;
 * - `fatal`: not a network failure (an abort, a certificate the client does not trust, a bug).
 */
export type FailureKind = 'unsent' | 'transient' | 'fatal';

const UNSENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'UND_ERR_CONNECT_TIMEOUT']);
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
  // A CONNECT proxy that could not open the tunnel (`Proxy response (502) !== 200`).
  'UND_ERR_ABORTED',
]);

export function classifyFailure(e: unknown): FailureKind {
  if (!(e instanceof Error)) return 'fatal';
  if (e.name === 'AbortError') return 'fatal';
  const codes = errorCodes(e);
  if (codes.length && codes.every((c) => UNSENT_CODES.has(c))) return 'unsent';
  if (codes.some((c) => UNSENT_CODES.has(c) || TRANSIENT_CODES.has(c))) return 'transient';
  if (e.name === 'TimeoutError') return 'transient';
  return 'fatal';
}

/**
 * Seconds the server asked to wait: the body's `retry-after` (a float, Zulip), else the `Retry-After`
 * header (seconds, or an HTTP date). Undefined when neither is there or readable.
 */
export function retryAfterSeconds(headers: Record<string, string>, body: unknown, nowMs: number): number | undefined {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const v = (body as Record<string, unknown>)['retry-after'];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  }
  const header = headers['retry-after']?.trim();
  if (!header) return undefined;
  if (/^\d+(\.\d+)?$/.test(header)) return Number(header);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000);
}

/** A server-requested wait plus jitter, so clients told the same time do not all return at once. */
export function rateLimitDelayMs(seconds: number, policy: RetryPolicy): number {
  const ms = seconds * 1000;
  return Math.ceil(ms + policy.random() * Math.min(1000, ms * 0.2 + 100));
}

/** The backoff before attempt `attempt + 1`: base · 2^(attempt-1), plus up to one base of jitter. */
export function backoffDelayMs(attempt: number, policy: RetryPolicy): number {
  return Math.ceil(policy.baseDelayMs * 2 ** (attempt - 1) + policy.random() * policy.baseDelayMs);
}
