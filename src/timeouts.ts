/**
 * chatctl's timeouts and waits, with their defaults, declared once for every layer: how long the client
 * waits on the network, the long poll it must outlast, the default of --max-wait, and how long an
 * interrupted command may take to stop.
 */

/** How long a Zulip server holds GET /events open before it answers with a heartbeat (event_queue_longpoll_timeout_seconds). */
export const LONG_POLL_SECONDS = 90;

/** Connecting to a server (TCP and TLS), ms. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** Waiting for the response headers, and between body chunks, ms: a long poll and then some. */
export const RESPONSE_TIMEOUT_MS = (LONG_POLL_SECONDS + 30) * 1000;

/** An idle keep-alive connection is dropped after this, ms: below the 5 s at which Node servers and common proxies close theirs. */
export const KEEP_ALIVE_TIMEOUT_MS = 4_000;

/** The default of --max-wait: all the waiting for rate limits and retries one request may do, seconds. */
export const DEFAULT_MAX_WAIT_SECONDS = 60;

/** The most a shell completion waits for the server's channel or user names, ms: a Tab must not hang the prompt. */
export const COMPLETION_TIMEOUT_MS = 1500;

/** How long an interrupted command may take to finish on its own before it is ended (exit 130), ms: the promise is a second. */
export const INTERRUPT_GRACE_MS = 1000;

/**
 * `serve`'s waits for its clients, ms: the request line and headers (checked every second, so a slowloris is
 * closed within 9 s), the silence allowed between two pieces of a body, a whole request, an idle keep-alive
 * connection (Node's default, which a client's KEEP_ALIVE_TIMEOUT_MS stays under).
 */
export const SERVE_TIMEOUTS_MS = { headers: 8_000, check: 1_000, bodyIdle: 10_000, request: 120_000, keepAlive: 5_000 } as const;

/**
 * How long a request `serve` has read may wait for its turn before it is answered 503 with Retry-After
 * instead, ms: under more load than it can take, clients learn it at once rather than after their own timeout,
 * as a Zulip server's nginx answers when uWSGI's listen queue is full.
 */
export const SERVE_QUEUE_DEADLINE_MS = 1_000;

/** The Retry-After of `serve`'s 503s (overloaded, or the store busy past its wait), s: try again soon. */
export const SERVE_RETRY_AFTER_SECONDS = 1;
