/**
 * The embedded transport: hands each request to the server in this process. Nothing is special-cased:
 * the request carries the same parameters and Basic credentials an HTTP request would, and gets the
 * same status, headers and body back.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { WireRequest, WireResponse } from '../api/wire.js';
import { NotSentError, type Transport } from './transport.js';

/**
 * What the transport needs of a server running in this process. Declared here, so that the client does not
 * depend on the server: the embedded server's entry (and its router) fit it.
 */
export interface InProcessServer {
  handle(req: WireRequest, signal?: AbortSignal): Promise<WireResponse>;
  /** Answers requests given together as `handle` answers each, in one write transaction. */
  handleBatch(reqs: readonly WireRequest[], signal?: AbortSignal): Promise<WireResponse[]>;
  /** Waits for the work the server started in the background, then releases its store. */
  close(): Promise<void>;
}

export class EmbeddedTransport implements Transport {
  readonly kind = 'embedded' as const;
  readonly target: string;

  constructor(
    private readonly server: InProcessServer,
    readonly dataDir: string,
  ) {
    this.target = `embedded:${dataDir}`;
  }

  async send(req: WireRequest, signal?: AbortSignal): Promise<WireResponse> {
    // In-process work (password hashing above all) runs on the event loop: without a turn of it between
    // requests, a bulk run would never see Ctrl-C or SIGTERM until its last row. A request not yet handed
    // over when the signal came is not sent, as an HTTP request would not be.
    await nextTurn();
    if (signal?.aborted) throw new NotSentError(signal.reason);
    // The router builds fresh, JSON-safe bodies for every request, so they are handed over as they are; the
    // transport-parity suites hold the embedded and HTTP answers equal. A list asked for as a stream comes as
    // the router's StreamedList: its pages go to the caller as objects, with no JSON in between.
    return this.server.handle(req, signal);
  }

  /** As `send`, for requests given together: a turn of the event loop first, and nothing sent after an abort. */
  async batch(reqs: readonly WireRequest[], signal?: AbortSignal): Promise<WireResponse[]> {
    await nextTurn();
    if (signal?.aborted) throw new NotSentError(signal.reason);
    return this.server.handleBatch(reqs, signal);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
