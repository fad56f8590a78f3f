/**
 * `chatctl serve`'s server: the router over HTTP, with what a long-running server does beside answering
 * requests (the housekeeping sweeps, WAL checkpoints off the event loop), started and stopped together.
 */
import { once } from 'node:events';
import { withAdmission } from './admission.js';
import { withAnswerCache } from './answer-cache.js';
import { batchedLog } from './log-batch.js';
import { systemClock } from './context.js';
import { startHousekeeping } from './housekeeping.js';
import { trustedProxies } from './client-address.js';
import { createApiServer } from './http.js';
import { SERVE_BOUNDS } from './http-bounds.js';
import { destinationsForServe } from './outgoing/destinations.js';
import { zulipRateLimits } from './rate-limit.js';
import { getSetting, setSetting } from './model/realm.js';
import { Router } from './router.js';
import { neverWaitInline } from './store/busy-retry.js';
import { checkpointOffLoop } from './store/checkpointer.js';
import type { Db } from './store/db.js';

export interface ServeOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  /** Enforce a Zulip server's default API rate limits. */
  rateLimit: boolean;
  /** Let outgoing webhooks call loopback, private and link-local addresses. */
  allowPrivateWebhooks: boolean;
  /** Addresses (IP or IP:PORT) outgoing webhooks may call whatever their network: `webhook listen`'s, say. */
  allowWebhookAddresses?: readonly string[];
  /** Proxies in front whose X-Forwarded-For names the client, for the limits kept per address (client-address.ts). */
  trustedProxies?: readonly string[];
  /** Where the request and handler log lines go (serve: stderr), several lines in one write. */
  write: (text: string) => void;
}

export interface Serving {
  /** Where the server is reached: `http://HOST:PORT`. */
  readonly url: string;
  /** Stops accepting, lets the requests and background work under way finish, stops the sweeps and checkpoints; the store stays open. */
  stop(): Promise<void>;
}

/** Serves the organization in `db` until stop(); rejects when the address cannot be listened on. */
export async function serveHttp(db: Db, dataDir: string, o: ServeOptions): Promise<Serving> {
  const checkpoints = checkpointOffLoop(db);
  const log = batchedLog(o.write);
  const cached = withAnswerCache(new Router({ db, dataDir, log, webhookDestinations: destinationsForServe(o.allowPrivateWebhooks, o.allowWebhookAddresses) }));
  // The limits count cached answers too, so they go outside the cache.
  const router = o.rateLimit ? withAdmission(zulipRateLimits(), cached) : cached;
  const stopHousekeeping = startHousekeeping(db, dataDir, systemClock, log);
  const server = createApiServer(router, log, { ...SERVE_BOUNDS, trustedProxies: trustedProxies(o.trustedProxies ?? []) }, { checkpoints });
  server.listen(o.port, o.host);
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([e]) => Promise.reject(e as Error))]);
  } catch (e) {
    stopHousekeeping();
    await checkpoints.stop();
    log.flush();
    throw e;
  }
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : o.port;
  const url = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${bound}`;
  // Outgoing links (realm_url) answer with where the server is reached; remember it for in-process use.
  if (getSetting(db, 'url') !== url) db.transaction(() => setSetting(db, 'url', url)).immediate();
  // From here on no wait for another process's lock holds the event loop (store/busy-retry.ts).
  const waitInlineAgain = neverWaitInline(db);
  return {
    url,
    async stop() {
      server.closeIdleConnections();
      await new Promise<void>((done) => server.close(() => done()));
      stopHousekeeping();
      await router.drain();
      waitInlineAgain();
      await checkpoints.stop();
      log.flush();
    },
  };
}
