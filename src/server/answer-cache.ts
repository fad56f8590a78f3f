/**
 * Answers to reads the server has given before, given again while the store is unchanged (store/stamp.ts):
 * a client polling `GET /users/me`, or a script reading the same group or user again and again, costs one
 * read of the store's stamp (about 3 µs, and `serve` reads one for all the reads of an event-loop turn)
 * instead of authentication, a read transaction and the handler. Only operations the catalogue
 * declares `cacheable` are kept, and only when handling them read nothing but the store, the caller and the
 * request: the router says so (HandleOptions.pure) when the handler used none of the means handler-context.ts
 * classifies impure, and the stamp must be the same after the handler as before it.
 *
 * An answer is keyed by everything else it can depend on: the Authorization header as sent (an entry exists
 * only once those very credentials were accepted at this stamp, and they cannot have been revoked without a
 * write), the Host and X-Forwarded-Proto headers (links in answers use them), the path and query (of a GET).
 * A wrong key never matches an entry, so it goes the whole way through authentication as before: how fast
 * an answer comes tells nobody without the credentials whether they were used.
 */
import { answerJson } from '../api/rendered-list.js';
import type { WireRequest, WireResponse } from '../api/wire.js';
import type { Answerer, CachingAnswerer, GatheredRead, HandleOptions } from './answering.js';
import type { Admit } from './rate-limit.js';
import type { Db } from './store/db.js';
import { StampedCache } from './store/stamped-cache.js';

/**
 * What a GET is answered by, for those the cache can hold: parameters from the query string only, and the three
 * headers an answer can depend on, when sent once. Its key (the cache's) is made the first time it is asked
 * for and kept with it: serve asks whether an answer is kept, then for it.
 */
export class ReadRequest {
  /** null: not made yet; undefined: the request has none. */
  #key: string | undefined | null = null;

  constructor(
    readonly path: string,
    readonly query: [string, string][],
    readonly authorization: string | undefined,
    readonly host: string | undefined,
    readonly forwardedProto: string | undefined,
  ) {}

  /**
   * The key of the request's answer: each part as it came, a header left out told apart from an empty one.
   * Parts are joined by newlines, which no header value or encoded path holds over HTTP; a request with one
   * anyway (only an in-process caller could make it) has no key, and is never kept.
   */
  get key(): string | undefined {
    if (this.#key === null) this.#key = makeKey(this);
    return this.#key;
  }
}

export interface CachedAnswer {
  status: number;
  /** Content-Length included: a kept answer is written as it is. */
  headers: Record<string, string>;
  /** The body's JSON text, as it goes on the wire. */
  text: string;
  /** Whom a rate limit counts the request against: the caller, or null for an operation without authentication. */
  userId: number | null;
}

/** A GET that carries no body, as the cache reads it. */
export const readRequest = (path: string, query: [string, string][], headers: Readonly<Record<string, string | string[] | undefined>>): ReadRequest =>
  new ReadRequest(path, query, single(headers.authorization), single(headers.host), single(headers['x-forwarded-proto']));

/** A header's value when it is one string (an in-process caller may give a list). */
const single = (value: string | string[] | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** Bounds, so that the cache's memory does not grow with the organization: the oldest answer makes room. */
export const ANSWER_CACHE_LIMITS = { answers: 1000, characters: 16 * 1024 * 1024, answerCharacters: 64 * 1024 };

function makeKey(r: ReadRequest): string | undefined {
  const query = r.query.length === 0 ? '' : new URLSearchParams(r.query).toString();
  const parts = [r.path, query, present(r.authorization), present(r.host), present(r.forwardedProto)];
  return parts.some((part) => part.includes('\n')) ? undefined : parts.join('\n');
}

/** A header's value with a mark that it was sent, or nothing when it was not. */
const present = (value: string | undefined): string => (value === undefined ? '' : `=${value}`);

/** The answers of one store (withAnswerCache keeps them), bounded by ANSWER_CACHE_LIMITS. */
export class AnswerCache extends StampedCache<CachedAnswer> {
  constructor(db: Db) {
    super(db, {
      entries: ANSWER_CACHE_LIMITS.answers,
      sizeOf: (key, answer) => key.length + answer.text.length,
      size: ANSWER_CACHE_LIMITS.characters,
      entrySize: ANSWER_CACHE_LIMITS.answerCharacters,
    });
  }
}

/** `inner` with the answers to its reads kept while the store is unchanged, and given again from there. */
export function withAnswerCache(inner: Answerer): CachingAnswerer {
  const answers = new AnswerCache(inner.db);
  const cachedAnswers = (reads: readonly GatheredRead[], admit?: Admit): (WireResponse | undefined)[] => {
    // Only answers of cacheable operations are kept (see handle), so the key alone finds them; no key is
    // empty, so a request with no key finds nothing. A store that cannot be read finds nothing either.
    const found = answers.find(reads.map(({ read }) => read.key ?? ''));
    return reads.map(({ remoteAddress }, i) => {
      const answer = found[i];
      return answer && fromCache(answer, remoteAddress, admit);
    });
  };
  /**
   * Where the answer to a read would be kept once handled, and the stamp it would be kept at (read before the
   * router reads anything, the organization's level included).
   */
  const keepFor = (read: ReadRequest): { key: string; stamp: string } | undefined => {
    const key = read.key;
    const stamp = key === undefined ? undefined : answers.stamp();
    return key === undefined || stamp === undefined ? undefined : { key, stamp };
  };
  /** Paths, without their query, whose last read reached an operation whose answers are not kept; bounded. */
  const notKept = new Set<string>();
  const learn = (path: string, cacheable: boolean) => {
    if (cacheable) notKept.delete(path);
    else if (!notKept.has(path)) {
      if (notKept.size >= ANSWER_CACHE_LIMITS.answers) notKept.clear();
      notKept.add(path);
    }
  };
  /** Answers from the cache, else from `inner`, keeping the answer when it may (in the turn asked, as inner answers). */
  const answer = (req: WireRequest, signal: AbortSignal, o: HandleOptions = {}): WireResponse | Promise<WireResponse> => {
    const read = readOf(req);
    if (!read) return inner.answer(req, signal, o);
    // A path whose last read reached an operation whose answers are not kept (GET /messages, GET /users) has
    // none to find nor to keep: its read skips the key (a query string to encode) and the stamp.
    const mayKeep = !notKept.has(read.path);
    const cached = mayKeep && cachedAnswers([{ read, remoteAddress: req.remoteAddress }], o.admit)[0];
    if (cached) return cached.text === undefined ? cached : { ...cached, body: JSON.parse(cached.text) as unknown };
    // Only an answer of a cacheable operation is kept (the router names the operation it reached), and only
    // when the stamp was read before: a path learned wrong, either way, keeps nothing it should not.
    const keep = mayKeep ? keepFor(read) : undefined;
    let cacheable = false;
    let kept: string | undefined;
    const withKept = (out: WireResponse): WireResponse => (kept === undefined ? out : { ...out, text: kept });
    const out = inner.answer(req, signal, {
      ...o,
      reached: (op) => {
        cacheable = op.cacheable === true;
        learn(read.path, cacheable);
      },
      pure: (answer, callerId) => {
        if (!keep || !cacheable) return;
        const text = answerJson(answer.body);
        const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(text)) };
        answers.set(keep.key, keep.stamp, { status: answer.status, headers, text, userId: callerId });
        kept = text;
      },
    });
    return out instanceof Promise ? out.then(withKept) : withKept(out);
  };
  // handle goes through answer as the object has it, so that whoever stands in for answer sees every request.
  const answerer: CachingAnswerer = {
    db: inner.db,
    cachedAnswers,
    mayAnswer: (read) => {
      if (notKept.has(read.path)) return false;
      const key = read.key;
      return key !== undefined && answers.holds(key);
    },
    handle: async (req, signal = new AbortController().signal, o) => answerer.answer(req, signal, o),
    answer,
    handleBatch: (reqs, signal, o) => inner.handleBatch(reqs, signal, o),
    refusalBeforeBody: (method, path, authorization) => inner.refusalBeforeBody(method, path, authorization),
    drain: () => inner.drain(),
    close: () => inner.close(),
  };
  return answerer;
}

/** A kept answer as a response: the request is counted by the rate limits as an answered one is. */
function fromCache(answer: CachedAnswer, remoteAddress: string | undefined, admit: Admit | undefined): WireResponse {
  const admission = admit?.(answer.userId === null ? { address: remoteAddress ?? '' } : { userId: answer.userId });
  if (admission?.refusal) return admission.refusal;
  return { status: answer.status, headers: { ...answer.headers, ...admission?.headers }, body: null, text: answer.text };
}

/** A request the answer cache could hold: a GET that carries no body. */
function readOf(req: WireRequest): ReadRequest | null {
  if (req.method.toUpperCase() !== 'GET' || req.body.length > 0 || (req.files?.length ?? 0) > 0) return null;
  return readRequest(req.path, req.query, req.headers);
}
