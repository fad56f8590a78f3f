/**
 * The embedded transport: hands each request to the router in this process. Nothing is special-cased:
 * the request carries the same parameters and Basic credentials an HTTP request would, and gets the
 * same status, headers and body back.
 */
import type { WireRequest, WireResponse } from '../api/wire.js';
import type { Router } from '../server/router.js';
import type { Transport } from './transport.js';

export class EmbeddedTransport implements Transport {
  readonly kind = 'embedded' as const;
  readonly target: string;

  constructor(
    readonly router: Router,
    readonly dataDir: string,
  ) {
    this.target = `embedded:${dataDir}`;
  }

  send(req: WireRequest, signal?: AbortSignal): Promise<WireResponse> {
    // The router builds fresh, JSON-safe bodies for every request, so they are handed over as they are; the
    // transport-parity suites hold the embedded and HTTP answers equal.
    return this.router.handle(req, signal);
  }

  async close(): Promise<void> {
    await this.router.drain();
    this.router.db.close();
  }
}
