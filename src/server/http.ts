/**
 * `chatctl serve`: the router on HTTP at /api/v1. Bodies are parsed as a Zulip server does (url-encoded or
 * multipart form data; parameters from the query string too, for every method); the multipart parser is
 * the one in Node's own fetch implementation. Rate limits (`--rate-limit`) and the answer cache are wrappers serve.ts composes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError } from '../api/errors.js';
import { LIMITS, showBytes } from '../api/limits.js';
import type { UploadedFile, WireRequest, WireResponse } from '../api/wire.js';
import { type ReadRequest, readRequest } from './answer-cache.js';
import { sendHeld, sendWhole, writeAnswer } from './http-body.js';
import { clientAddress } from './client-address.js';
import { answerOnSocket, applyBounds, type HttpBounds, overloaded, SERVE_BOUNDS, wasRefused } from './http-bounds.js';
import type { CachingAnswerer } from './answering.js';
import { StartQueue, type Turn } from './start-queue.js';
import type { Checkpoints } from './store/checkpointer.js';

const API_PREFIX = '/api/v1';

/** A body over one of the byte limits: answered 413 before the router (and so authentication) sees it. */
class TooLarge extends Error {
  constructor(what: string, limit: number) {
    super(`${what} is too large (limit: ${showBytes(limit)})`);
  }
}

/** A body whose sender fell silent for longer than the bounds allow between two pieces of it. */
class Stalled extends Error {}

/** The byte limit of a body: files come only in multipart bodies, so any other body is held to the form limit. */
const bodyLimit = (multipart: boolean): [what: string, limit: number] =>
  multipart ? ['The request body', LIMITS.bodyBytes] : ['The form data', LIMITS.formBytes];

/**
 * The body, read only as far as `limit`: a declared length over it is refused before one byte is read, and a
 * body that grows past it stops being read there. A sender that falls silent for `idleMs` is given up on.
 */
function readBody(req: IncomingMessage, res: ServerResponse, [what, limit]: [string, number], idleMs: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.reject(new TooLarge(what, limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => stop(new Stalled()), idleMs);
    const stop = (e: Error) => {
      clearTimeout(timer);
      // Not destroyed here: the answer still has to go out on this socket.
      req.off('data', onData);
      req.pause();
      reject(e);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return stop(new TooLarge(what, limit));
      timer.refresh();
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    req.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    // Its sender waits for this before it sends the body: only now that the body is wanted (see checkContinue).
    if (/^100-continue$/i.test(req.headers.expect ?? '')) res.writeContinue();
  });
}

const isMultipart = (contentType: string): boolean => contentType.startsWith('multipart/form-data');

async function parseForm(contentType: string, raw: Buffer): Promise<Parsed> {
  if (raw.length === 0) return { body: [], files: [] };
  if (isMultipart(contentType)) {
    const form = await new Request('http://localhost/', { method: 'POST', headers: { 'content-type': contentType }, body: new Uint8Array(raw) }).formData();
    const body: [string, string][] = [];
    const files: UploadedFile[] = [];
    for (const [key, value] of form.entries()) {
      if (typeof value === 'string') body.push([key, value]);
      else
        files.push({
          field: key,
          filename: value.name,
          contentType: value.type || 'application/octet-stream',
          data: new Uint8Array(await value.arrayBuffer()),
        });
    }
    if (body.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0) > LIMITS.formBytes) {
      throw new TooLarge('The form data', LIMITS.formBytes);
    }
    return { body, files };
  }
  // url-encoded, and bodies sent without a content type (some clients' PATCH/DELETE)
  return { body: [...new URLSearchParams(raw.toString('utf8'))], files: [] };
}

const JSON_TYPE = { 'content-type': 'application/json' };

const sendError = (res: ServerResponse, e: ApiError): void => sendWhole(res, e.status, { ...JSON_TYPE, ...e.headers }, e.body());

/**
 * How long, and how much more, an unwanted body is read and thrown away so that its sender sees the answer:
 * as much as a whole body when it was refused on its way (its sender may be deep in a write), and only a
 * little when it was refused on its headers alone (the answer went out before the sender wrote much), so that
 * 20 unauthenticated 25 MiB uploads cost no more than a few MB.
 */
const LINGER = { ms: 2000, bytes: LIMITS.bodyBytes, bytesBeforeBody: 1024 * 1024 };

/**
 * Answers before the body was read (a 404, a 413) without taking the rest of it. Closing the socket while the
 * sender still writes would reset the connection and lose the answer on the way, so what follows is read
 * and dropped unparsed, as nginx's lingering close does, until it ends (the connection stays usable) or
 * LINGER runs out (it is closed). Left to itself, Node would read any amount of it.
 */
function answerEarly(req: IncomingMessage, res: ServerResponse, error: ApiError, lingerBytes = LINGER.bytes): void {
  sendError(res, error);
  if (req.complete) return;
  const socket = req.socket;
  let dropped = 0;
  const close = () => socket.destroy();
  const timer = setTimeout(close, LINGER.ms).unref();
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > lingerBytes) close();
  });
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

/**
 * What Node's parser refuses before a request exists (an oversized header block, a malformed request line)
 * gets a JSON error too, where the socket can still take one.
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  answerOnSocket(
    socket,
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError(`The request headers are too large (limit: ${showBytes(LIMITS.headerBytes)})`, 'REQUEST_TOO_LARGE', 431)
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError('The request took too long to arrive', 'BAD_REQUEST', 408)
        : new ApiError('Malformed HTTP request', 'BAD_REQUEST', 400),
  );
}

/** A GET that the router may answer from its cache, waiting for the rest of the turn's (see gatherReads). */
interface WaitingRead {
  read: ReadRequest;
  remoteAddress: string | undefined;
  res: ServerResponse;
  /** Sends the request the whole way, when the cache has no answer for it. */
  handle(): void;
  done(status: number): void;
}

/**
 * GETs the router may answer from its cache are gathered while the event loop reads its sockets, and asked
 * for together once it has (setImmediate runs after that phase): one read of the store's stamp serves them all,
 * and it comes after every one of them arrived, so each is answered with every change made before it came.
 * Under load a turn reads many requests, and the stamp was most of what a cached answer cost.
 */
function gatherReads(router: CachingAnswerer, log: (line: string) => void): (waiting: WaitingRead) => void {
  let turn: WaitingRead[] = [];
  const answer = () => {
    // A client gone away meanwhile is neither answered nor counted by the rate limits.
    const reads = turn.filter((r) => {
      if (r.res.destroyed) r.done(499);
      return !r.res.destroyed;
    });
    turn = [];
    const answers = router.cachedAnswers(reads);
    reads.forEach((r, i) => {
      const cached = answers[i];
      try {
        if (!cached) r.handle();
        else {
          sendHeld(r.res, cached);
          r.done(cached.status);
        }
      } catch (e) {
        // One request's failure is its own: the others of the turn are still answered, and the server goes on.
        log(`internal error: ${(e instanceof Error ? e.message : String(e)).slice(0, 500)}`);
        r.res.destroy();
        r.done(500);
      }
    });
  };
  return (waiting) => {
    if (turn.push(waiting) === 1) setImmediate(answer);
  };
}

/**
 * The router over HTTP, within `bounds` (http-bounds.ts): a request is started in its turn (start-queue.ts),
 * a write once `o.checkpoints` lets it (serve: the store's), and its log line says how long it
 * waited for it.
 */
export function createApiServer(
  router: CachingAnswerer,
  log: (line: string) => void,
  bounds: HttpBounds = SERVE_BOUNDS,
  o: { checkpoints?: Pick<Checkpoints, 'beforeWrite' | 'pending'> } = {},
): Server {
  const checkpoints = o.checkpoints ?? { beforeWrite: () => undefined, pending: () => undefined };
  const ask = gatherReads(router, log);
  const queue = new StartQueue(bounds.queueDeadlineMs);
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (wasRefused(req.socket)) return void res.destroy();
    const started = performance.now();
    // Read now: once the socket is destroyed (a refused body) it is gone from the request.
    const address = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], bounds.trustedProxies);
    const remote = address ?? '-';
    let pathname = '-';
    let queued = 0;
    const done = (status: number) => {
      const ms = performance.now() - started;
      // The path only: query strings can carry secrets.
      log(`${remote} "${req.method} ${pathname}" ${status} ${ms.toFixed(1)}ms (queued ${queued.toFixed(1)}ms)`);
    };
    const handle = () => {
      const url = parseTarget(req.url ?? '/');
      if (url) pathname = url.pathname;
      handleFully(router, req, res, url, address, { bounds, queue, checkpoints, started: () => (queued = performance.now() - started) }, done, log);
    };
    const target = req.url ?? '/';
    if (req.method === 'GET' && PLAIN_TARGET.test(target) && !carriesBody(req)) {
      const read = readRequest(target.slice(API_PREFIX.length), [], req.headers);
      // Only a read with a kept answer waits for the rest of the turn's: any other goes the whole way at once.
      if (!router.mayAnswer(read)) return handle();
      pathname = target;
      ask({ read, remoteAddress: address, res, handle, done });
    } else handle();
  };
  const server = createServer({ maxHeaderSize: LIMITS.headerBytes, connectionsCheckingInterval: bounds.checkIntervalMs }, onRequest);
  // Node would say "100 Continue" at once; the body is asked for only once the key is checked (handleFully).
  server.on('checkContinue', onRequest);
  server.on('clientError', answerClientError);
  server.on('connection', () => queue.noteConnection());
  applyBounds(server, bounds);
  return server;
}

/** A request the whole way: checked on its headers, its body read and parsed, the router's answer written. */
function handleFully(
  router: CachingAnswerer,
  req: IncomingMessage,
  res: ServerResponse,
  url: Target | null,
  address: string | undefined,
  serving: { bounds: HttpBounds; queue: StartQueue; started(): void; checkpoints: Pick<Checkpoints, 'beforeWrite' | 'pending'> },
  done: (status: number) => void,
  log: (line: string) => void,
): void {
  const signal = clientGone(req.socket);
  const failed = (e: unknown) => {
    // Whatever went wrong, this request gets an answer and the server keeps serving the others.
    log(`internal error: ${(e instanceof Error ? e.message : String(e)).slice(0, 500)}`);
    if (!res.headersSent && !res.destroyed) sendError(res, new ApiError('Internal server error', 'BAD_REQUEST', 500));
    done(500);
  };
  const isApi = url?.pathname.startsWith(`${API_PREFIX}/`) === true;
  /** The request's work, as its turn has come: refused when its client left or it came too late, else answered. */
  const start = (target: Target, turn: Turn, parsed: Parsed): Promise<void> | undefined => {
    serving.started();
    if (signal.aborted) return void done(499);
    if (turn.late) {
      sendError(res, overloaded());
      return void done(503);
    }
    return answerAndWrite(router, req, res, wireOf(req, target, parsed, address), signal, done);
  };
  // A read without a body on an idle server has nothing to wait for (its turn is now, it needs no checkpoint):
  // it is answered in the turn it arrived, and so is the router's answer when it can be (Router.answer), with
  // no await between the request and its answer. Each request of bench:serve-everyday starts with cold caches,
  // so what it costs follows how much code it runs through: without the awaits, GET /messages came down from
  // ×2.02 to ×1.94 of the floor and GET /users/me from ×1.79 to ×1.74, side by side in one run.
  const turnNow = url && isApi && !writes(req) && !carriesBody(req) ? serving.queue.startNow() : undefined;
  if (url && turnNow) {
    try {
      start(url, turnNow, noBody())?.catch(failed);
    } catch (e) {
      failed(e);
    }
    return;
  }
  void (async () => {
    if (!url) {
      answerEarly(req, res, new ApiError('Malformed request target', 'BAD_REQUEST', 400));
      return done(400);
    }
    if (!isApi) {
      answerEarly(req, res, new ApiError('Not Found', 'BAD_REQUEST', 404));
      return done(404);
    }
    const contentType = req.headers['content-type'] ?? '';
    let limit = bodyLimit(isMultipart(contentType));
    let parsed: Parsed;
    try {
      // A body that may be large is read only once the request's route and key are checked (the declared
      // length first: refusing it costs nothing); one that needs no key may not be large.
      if (Number(req.headers['content-length'] ?? 0) <= limit[1] && mayBeLarge(req)) {
        const { refusal, open } = router.refusalBeforeBody(req.method ?? 'GET', url.pathname.slice(API_PREFIX.length), req.headers.authorization);
        if (refusal) {
          answerEarly(req, res, refusal, LINGER.bytesBeforeBody);
          return done(refusal.status);
        }
        if (open) limit = ['The request body', LIMITS.bodyBeforeAuthBytes];
      }
      // A request that says it has no body has none (RFC 9112 6.3): nothing to wait for, most GETs are such.
      parsed = carriesBody(req) ? await parseForm(contentType, await readBody(req, res, limit, serving.bounds.bodyIdleMs)) : noBody();
    } catch (e) {
      if (e instanceof TooLarge) {
        answerEarly(req, res, new ApiError(e.message, 'REQUEST_TOO_LARGE', 413));
        return done(413);
      }
      if (e instanceof Stalled) {
        // Nothing more is coming in time: the answer goes out and the connection is closed behind it.
        res.shouldKeepAlive = false;
        sendError(res, new ApiError('The request body took too long to arrive', 'BAD_REQUEST', 408));
        return done(408);
      }
      sendError(res, new ApiError('Malformed payload', 'BAD_REQUEST', 400));
      return done(400);
    }
    // A write first waits for a checkpoint the store may need (store/checkpointer.ts): it cannot start before,
    // and that wait counts toward its deadline as the queue's does. Its work starts as its turn comes (nothing
    // awaited in between), or it is refused for having waited too long.
    const ready = performance.now();
    const writing = writes(req);
    let turn: Turn;
    for (;;) {
      const wait = writing ? serving.checkpoints.beforeWrite() : undefined;
      // No longer than its deadline: past it, the turn says it is late, and it is answered 503 at once.
      if (wait) await withinMs(wait, serving.bounds.queueDeadlineMs - (performance.now() - ready));
      turn = await serving.queue.turn(ready);
      // A checkpoint asked for while this write waited for its turn holds the write lock now: starting would only
      // find the store busy and retry on the timers, in a line with every other write that did. It waits for that
      // checkpoint too, then for another turn, all of it counted toward its deadline; it asks for none itself
      // (a log a checkpoint could not empty, with an old reader on it, would have it ask again and again).
      if (!writing || turn.late || !serving.checkpoints.pending()) break;
    }
    await start(url, turn, parsed);
  })().catch(failed);
}

/** A request's body as the router takes it: its form fields and its files. */
interface Parsed {
  body: [string, string][];
  files: UploadedFile[];
}

/** The body of a request that carries none: its own lists, which the router may hand to a handler. */
const noBody = (): Parsed => ({ body: [], files: [] });

/** The request as the router takes it. */
function wireOf(req: IncomingMessage, url: Target, parsed: Parsed, address: string | undefined): WireRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
  return {
    method: req.method ?? 'GET',
    path: url.pathname.slice(API_PREFIX.length),
    query: url.query,
    body: parsed.body,
    files: parsed.files,
    headers,
    remoteAddress: address,
  };
}

const connectionSignals = new WeakMap<Socket, AbortSignal>();

/**
 * Aborted once the connection closes: its client is gone, with every request on it not answered yet (one that
 * was answered whole is done with it). One per connection, made at its first request, rather than one per
 * request: making a controller and listening for the response's end cost each read about 20 µs of its 400
 * (bench:serve-everyday). Who listens for the abort stops listening once done (handlers/events.ts), as a
 * connection kept alive serves many requests.
 */
function clientGone(socket: Socket): AbortSignal {
  let signal = connectionSignals.get(socket);
  if (!signal) {
    const abort = new AbortController();
    signal = abort.signal;
    // A request that waited for its turn (gatherReads, the start queue) may have lost its client meanwhile.
    if (socket.destroyed) abort.abort();
    else socket.once('close', () => abort.abort());
    connectionSignals.set(socket, signal);
  }
  return signal;
}

/**
 * The router's answer to `wire`, written: at once when the router answers at once and the answer is held whole,
 * else the promise of it (undefined when it is all done).
 */
function answerAndWrite(
  router: CachingAnswerer,
  req: IncomingMessage,
  res: ServerResponse,
  wire: WireRequest,
  signal: AbortSignal,
  done: (status: number) => void,
): Promise<void> | undefined {
  const write = (out: WireResponse): Promise<void> | undefined => {
    if (signal.aborted) return void done(499);
    const whole = writeAnswer(res, out, req.method === 'HEAD');
    if (whole instanceof Promise) return whole.then((w) => done(w ? out.status : 499));
    done(whole ? out.status : 499);
    return undefined;
  };
  const out = router.answer(wire, signal, { streamAll: true, rendersJson: true });
  return out instanceof Promise ? out.then(write) : write(out);
}

/** Resolves when `wait` does, or after `ms` (at once when `ms` is not above 0), whichever comes first. */
async function withinMs(wait: Promise<void>, ms: number): Promise<void> {
  if (ms <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([wait, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Whether a request's body may be over the bound of a body read before its key is checked. */
const mayBeLarge = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > LIMITS.bodyBeforeAuthBytes;

/** Whether a request may write (it waits for the checkpoint the store may need first: see handleFully). */
const writes = (req: IncomingMessage): boolean => req.method !== 'GET' && req.method !== 'HEAD';

/** Whether a request says it carries a body (one without either header has none). */
const carriesBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/**
 * A path the URL parser would leave as it stands (`/api/v1/users/me`): read without parsing, so that a repeated
 * read is answered from the router's cache at the least cost, and a plain query string behind it (PLAIN_QUERY)
 * is read on its own.
 */
const PLAIN_TARGET = /^\/api\/v1(?:\/[\w@+-][\w.@+-]*)+$/;

/** A request target: its path, and the parameters of its query string in order. */
interface Target {
  pathname: string;
  query: [string, string][];
}

/**
 * A query string that a URL parser hands URLSearchParams as it stands, but for characters it percent-encodes
 * and URLSearchParams decodes back (`'`, `<`, `>`): printable ASCII without a space, `"` or `#`. Such a query
 * behind a plain path is read without parsing the target as a URL, which cost GET /messages about 10 µs.
 */
const PLAIN_QUERY = /^[!$-~]*$/;

/** The request target's path and query parameters, or null when it is not a URL (`http://[`). */
function parseTarget(target: string): Target | null {
  const mark = target.indexOf('?');
  const pathname = mark < 0 ? target : target.slice(0, mark);
  const query = mark < 0 ? '' : target.slice(mark + 1);
  if (PLAIN_TARGET.test(pathname) && PLAIN_QUERY.test(query)) return { pathname, query: [...new URLSearchParams(query)] };
  try {
    const url = new URL(target, 'http://localhost');
    return { pathname: url.pathname, query: [...url.searchParams] };
  } catch {
    return null;
  }
}
