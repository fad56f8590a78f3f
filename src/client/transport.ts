import type { WireRequest, WireResponse } from '../api/wire.js';

/** Carries one request to a server, embedded or remote, and brings back its response. */
export interface Transport {
  /** A short description for messages: the site URL, or `embedded:<dir>`. */
  readonly target: string;
  readonly kind: 'embedded' | 'http';
  send(req: WireRequest, signal?: AbortSignal): Promise<WireResponse>;
  /**
   * Carries several requests at once, their responses in order, each as `send` would have brought it: the
   * server in this process answers them in one write transaction (Router.handleBatch). Absent over HTTP,
   * where a batch is its requests one by one.
   */
  batch?(reqs: readonly WireRequest[], signal?: AbortSignal): Promise<WireResponse[]>;
  /** Waits for work the server started in the background (embedded), then releases resources. */
  close(): Promise<void>;
}

/**
 * A request the transport did not hand over because its signal was aborted first: unlike an abort in
 * flight, it is known to have had no effect.
 */
export class NotSentError extends Error {
  override readonly name = 'NotSentError';
  constructor(readonly reason: unknown) {
    super('interrupted before the request was sent');
  }
}
