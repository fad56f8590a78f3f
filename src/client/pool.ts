/**
 * A bounded pool for bulk commands: runs `worker` over `items` with at most `concurrency` at a time, over
 * the keep-alive connection pool, and never gives up the whole run for one item's failure.
 *
 *   const results = await runPool(ids, (id) => client.call(removeAttachment, { attachment_id: id }), {
 *     concurrency: 4,              // default 4 (`--concurrency`)
 *     pacer: client.pacer,         // waits before starting an item while the rate limit is nearly used up
 *     signal: ctx.signal,          // Ctrl-C: start nothing more; items not started come back `skipped`
 *     stopWhen: (e) => exitKindOf(e) === 'auth',   // one such failure skips the rest
 *     onProgress: ({ done, total }) => ...,        // after each item settles, in completion order
 *   });
 *   // results[i] belongs to items[i]: { ok: true, value } | { ok: false, error, skipped }
 *
 * Results come back in the order of `items`, whatever order the items finished in, so a command can
 * print per-item lines and choose its exit code (0, or 3 for a partial failure) from them.
 */
import { getMaxListeners, setMaxListeners } from 'node:events';
import type { Pacer } from './pacing.js';

/**
 * Chosen from `npm run bench:bulk` (attachment deletes, 20 ms a request, on a 2-core machine shared with
 * other work, load average about 2):
 * - Past 200 items the per-minute rule sets the pace: 2,000 items took 1.01x to 1.02x the least time the
 *   rules allow at every concurrency from 1 to 16, with no 429. Concurrency cannot help there.
 * - Up to 200 items, the speed-up over concurrency 1 at concurrency 2/4/8/16 was 2.0/3.9/4.2/4.2x against
 *   a server of 4 workers (what Zulip's installer gives a 3-6 GB server), 2.0/3.8/7.3/8.4x against 8, and
 *   2.0/3.8/7.1/12.8x with unbounded workers (latency all network).
 * 4 comes within 10% of what a server of 4 workers gives (8 fills it). More gains at most about 0.6 s on a
 * job of 200 items, and only on bigger servers or slow networks, at the price of holding every worker of
 * the organization's server and of sending more requests before the first answer shows how much of the
 * rate limit is left (a budget nearly used up answers those with 429). `--concurrency` raises it.
 */
export const DEFAULT_CONCURRENCY = 4;

export type PoolResult<T, R> = { item: T; index: number; ok: true; value: R } | { item: T; index: number; ok: false; error: unknown; skipped: boolean };

export interface PoolProgress<T, R> {
  done: number;
  failed: number;
  total: number;
  result: PoolResult<T, R>;
}

export interface PoolOptions<T, R> {
  /** Items in flight at once; at least 1. */
  concurrency?: number;
  /** Consulted before each item starts. */
  pacer?: Pick<Pacer, 'ready'>;
  signal?: AbortSignal;
  /** A failure for which the items not yet started are skipped. */
  stopWhen?: (error: unknown) => boolean;
  onProgress?: (progress: PoolProgress<T, R>) => void;
}

export async function runPool<T, R>(
  items: readonly T[],
  worker: (item: T, index: number, signal?: AbortSignal) => Promise<R>,
  opts: PoolOptions<T, R> = {},
): Promise<PoolResult<T, R>[]> {
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? DEFAULT_CONCURRENCY));
  const results = new Array<PoolResult<T, R>>(items.length);
  let next = 0;
  let done = 0;
  let failed = 0;
  let stopReason: unknown;
  let stopped = false;
  // Ends the pacing waits of lanes left without an item: one waiting for room in a full window while another
  // lane took the last item would otherwise hold the run a whole window after its last answer (bench:bulk).
  const itemsTaken = new AbortController();
  const paceSignal = opts.signal ? AbortSignal.any([opts.signal, itemsTaken.signal]) : itemsTaken.signal;
  // Each lane waits on these signals once at a time (a pacing wait, a request in flight): as many listeners as
  // lanes is the design, not a leak, and Node would warn past 10 (--concurrency goes to 32).
  for (const signal of [paceSignal, opts.signal]) if (signal && getMaxListeners(signal) < concurrency + 10) setMaxListeners(concurrency + 10, signal);

  const settle = (result: PoolResult<T, R>) => {
    results[result.index] = result;
    done++;
    if (!result.ok) failed++;
    opts.onProgress?.({ done, failed, total: items.length, result });
  };

  const lane = async (): Promise<void> => {
    while (next < items.length) {
      if (opts.signal?.aborted) {
        stopped = true;
        stopReason = opts.signal.reason;
      }
      if (stopped) return;
      if (opts.pacer) {
        try {
          await opts.pacer.ready(paceSignal);
        } catch (e) {
          if (itemsTaken.signal.aborted && !opts.signal?.aborted) return;
          stopped = true;
          stopReason = e;
          return;
        }
        if (stopped || next >= items.length) return;
      }
      const index = next++;
      if (next === items.length) itemsTaken.abort();
      const item = items[index] as T;
      try {
        settle({ item, index, ok: true, value: await worker(item, index, opts.signal) });
      } catch (error) {
        settle({ item, index, ok: false, error, skipped: false });
        if (opts.stopWhen?.(error)) {
          stopped = true;
          stopReason = error;
        }
      }
    }
  };

  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  for (let index = 0; index < items.length; index++) {
    if (!results[index]) settle({ item: items[index] as T, index, ok: false, error: stopReason, skipped: true });
  }
  return results;
}
