/**
 * What `serve` grants a client before it knows who the client is: how many connections it may hold, how long
 * it may take over its headers and its body, and an answer (JSON, as every other) to what arrives before a
 * request exists: a connection over the caps, a CONNECT, a request the parser refuses.
 */
import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../api/errors.js';
import { LIMITS } from '../api/limits.js';
import { SERVE_QUEUE_DEADLINE_MS, SERVE_RETRY_AFTER_SECONDS, SERVE_TIMEOUTS_MS } from '../timeouts.js';
import { isTrustedProxy, type TrustedProxies } from './client-address.js';

export interface HttpBounds {
  /**
   * Connections held at once, and from one address. A trusted proxy's connections carry many clients'
   * requests, so it is held to the total alone.
   */
  connections: number;
  connectionsPerAddress: number;
  /** Proxies whose X-Forwarded-For names the client (client-address.ts); empty: the header is never read. */
  trustedProxies: TrustedProxies;
  /** The request line and headers must have arrived this long after the connection (or the last answer) began. */
  headersTimeoutMs: number;
  /** How often the header and request timeouts are checked. */
  checkIntervalMs: number;
  /** The longest silence between two pieces of a body. */
  bodyIdleMs: number;
  /** A whole request, body included. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection. */
  keepAliveTimeoutMs: number;
  /** A request not started this long after it arrived is answered 503 instead (start-queue.ts). */
  queueDeadlineMs: number;
}

export const SERVE_BOUNDS: HttpBounds = {
  connections: LIMITS.connections,
  connectionsPerAddress: LIMITS.connectionsPerAddress,
  trustedProxies: new Set(),
  headersTimeoutMs: SERVE_TIMEOUTS_MS.headers,
  checkIntervalMs: SERVE_TIMEOUTS_MS.check,
  bodyIdleMs: SERVE_TIMEOUTS_MS.bodyIdle,
  requestTimeoutMs: SERVE_TIMEOUTS_MS.request,
  keepAliveTimeoutMs: SERVE_TIMEOUTS_MS.keepAlive,
  queueDeadlineMs: SERVE_QUEUE_DEADLINE_MS,
};

/** The answer to more than the server can take now: a connection over the caps, a request that waited too long. */
export const overloaded = (): ApiError =>
  new ApiError('The server is overloaded; try again later', 'BAD_REQUEST', 503, {}, { 'retry-after': String(SERVE_RETRY_AFTER_SECONDS) });

/** A whole JSON answer on a socket that carries no request Node could answer, which is then closed. */
export function answerOnSocket(socket: Duplex, error: ApiError): void {
  const body = JSON.stringify(error.body());
  const headers = Object.entries(error.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers}connection: close\r\n\r\n${body}`,
  );
}

/** Sockets refused by the caps: a request Node parses on one anyway is not answered. */
const refused = new WeakSet<object>();
export const wasRefused = (socket: object): boolean => refused.has(socket);

/** Applies `b` to `server`: its timeouts, the connection caps, and an answer to CONNECT. */
export function applyBounds(server: Server, b: HttpBounds): void {
  server.headersTimeout = b.headersTimeoutMs;
  server.requestTimeout = b.requestTimeoutMs;
  server.keepAliveTimeout = b.keepAliveTimeoutMs;
  let open = 0;
  const byAddress = new Map<string, number>();
  // Before Node's own listener: a connection over the caps is answered and closed before it is parsed.
  server.prependListener('connection', (socket: Duplex & { remoteAddress?: string }) => {
    const address = socket.remoteAddress ?? '';
    const mine = byAddress.get(address) ?? 0;
    if (open >= b.connections || (mine >= b.connectionsPerAddress && !isTrustedProxy(b.trustedProxies, address))) {
      refused.add(socket);
      answerOnSocket(socket, overloaded());
      return;
    }
    open++;
    byAddress.set(address, mine + 1);
    socket.once('close', () => {
      open--;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left) byAddress.set(address, left);
      else byAddress.delete(address);
    });
  });
  // Node hands CONNECT to this event, and with no listener closes the socket without a word.
  // As the router's 405 (zerver/lib/response.py json_method_not_allowed): no code, and nothing is allowed here.
  server.on('connect', (_req, socket: Duplex) => answerOnSocket(socket, new ApiError('Method Not Allowed', null, 405, { allowed_methods: [] })));
}
