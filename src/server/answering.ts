/**
 * What answers the API's requests: the router (router.ts), or a wrapper around it that `serve` and the
 * embedded organization compose (answer-cache.ts, admission.ts). A wrapper takes part through the options
 * each request carries down: the router calls them at their place in a Zulip server's order.
 */
import type { Operation } from '../api/operation.js';
import type { WireRequest, WireResponse } from '../api/wire.js';
import type { ApiError } from '../api/errors.js';
import type { ReadRequest } from './answer-cache.js';
import type { Admit } from './rate-limit.js';
import type { Db } from './store/db.js';

export interface HandleOptions {
  /**
   * Keep every list the handler makes in pages a StreamedList (`chatctl serve` writes each as it reads it);
   * without it only the one the request asks for by its key (`req.stream`) is.
   */
  streamAll?: boolean;
  /**
   * The answer is only ever written as JSON (`chatctl serve`): handlers may answer with values kept for other
   * requests and their kept JSON (HandlerContext.rendersJson).
   */
  rendersJson?: boolean;
  /**
   * Told the operation a request reached, before authentication: the answer cache keeps only answers of
   * cacheable operations, and learns which paths reach none (their reads then skip the store's stamp).
   */
  reached?: (op: Operation) => void;
  /** Asked once the request has reached an operation and authenticated, before the role gate (admission.ts). */
  admit?: Admit;
  /**
   * Told, with the answer, whom it was for, when the answer depends on nothing but the
   * store, the caller and the request (handler-context.ts decides which of the handler's means say it does not).
   */
  pure?: (answer: WireResponse, callerId: number | null) => void;
}

/** The router and what wraps it. */
export interface Answerer {
  /** The store it answers from. */
  readonly db: Db;
  handle(req: WireRequest, signal?: AbortSignal, o?: HandleOptions): Promise<WireResponse>;
  /**
   * Answers a request as `handle` does, in the turn it is asked when nothing is to be awaited (Router.answer):
   * `serve` writes such an answer before its event loop turns, as a bare HTTP server would.
   */
  answer(req: WireRequest, signal: AbortSignal, o?: HandleOptions): WireResponse | Promise<WireResponse>;
  /** Requests given together (a bulk run's rows): answered as `handle` answers each, in one write transaction. */
  handleBatch(reqs: readonly WireRequest[], signal?: AbortSignal, o?: Pick<HandleOptions, 'admit'>): Promise<WireResponse[]>;
  /** What a request is refused with on its headers alone, before its body is read (Router.refusalBeforeBody). */
  refusalBeforeBody(method: string, path: string, authorization: string | undefined): { refusal?: ApiError; open?: boolean };
  /** Resolves once every background task started so far (and any they start) has finished. */
  drain(): Promise<void>;
  /** Waits for the background work, then closes the store. */
  close(): Promise<void>;
}

/** A read as `serve` gathers them (http.ts), with the client's address the rate limits count it against. */
export interface GatheredRead {
  read: ReadRequest;
  remoteAddress: string | undefined;
}

/** An answerer that keeps answers to reads (answer-cache.ts): what `serve` and the embedded organization use. */
export interface CachingAnswerer extends Answerer {
  /** The kept answers to `reads`, each admitted by `admit` as a handled one would be; undefined where none is kept. */
  cachedAnswers(reads: readonly GatheredRead[], admit?: Admit): (WireResponse | undefined)[];
  /** Whether an answer is kept under the read's key, as of whenever it was kept: cachedAnswers may find it (nothing is read from the store). */
  mayAnswer(read: ReadRequest): boolean;
}
