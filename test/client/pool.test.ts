import { describe, expect, it } from 'vitest';
import { DEFAULT_CONCURRENCY, runPool } from '../../src/client/pool.js';

/** A worker whose items finish in an order the test chooses. */
function gated<T>() {
  const gates = new Map<T, () => void>();
  let inFlight = 0;
  let maxInFlight = 0;
  const started: T[] = [];
  const worker = (item: T) => {
    started.push(item);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return new Promise<T>((resolve) =>
      gates.set(item, () => {
        inFlight--;
        resolve(item);
      }),
    );
  };
  const open = async (item: T) => {
    while (!gates.has(item)) await new Promise((r) => setTimeout(r, 1));
    gates.get(item)!();
  };
  return { worker, open, started, stats: () => ({ inFlight, maxInFlight }) };
}

describe('runPool', () => {
  it('runs at most `concurrency` items at once (default 4) and returns results in item order', async () => {
    const items = Array.from({ length: 10 }, (_, i) => i);
    const g = gated<number>();
    const run = runPool(items, g.worker);
    for (const i of [3, 1, 0, 2, 5, 4, 9, 7, 8, 6]) await g.open(i);
    const results = await run;
    expect(DEFAULT_CONCURRENCY).toBe(4);
    expect(g.stats().maxInFlight).toBe(4);
    expect(results.map((r) => (r.ok ? r.value : null))).toEqual(items);
    expect(results.map((r) => r.index)).toEqual(items);
  });

  it('keeps going past failures and reports each one with its item', async () => {
    const progress: string[] = [];
    const results = await runPool(
      ['a', 'b', 'c'],
      async (item) => {
        if (item === 'b') throw new Error('b failed');
        return item.toUpperCase();
      },
      { concurrency: 1, onProgress: (p) => progress.push(`${p.done}/${p.total} failed=${p.failed}`) },
    );
    expect(results).toMatchObject([
      { item: 'a', ok: true, value: 'A' },
      { item: 'b', ok: false, skipped: false, error: new Error('b failed') },
      { item: 'c', ok: true, value: 'C' },
    ]);
    expect(progress).toEqual(['1/3 failed=0', '2/3 failed=1', '3/3 failed=1']);
  });

  it('skips the items not yet started after a failure `stopWhen` picks', async () => {
    const seen: number[] = [];
    const results = await runPool(
      [1, 2, 3, 4, 5],
      async (n) => {
        seen.push(n);
        if (n === 2) throw Object.assign(new Error('Invalid API key'), { fatal: true });
        return n;
      },
      { concurrency: 1, stopWhen: (e) => (e as { fatal?: boolean }).fatal === true },
    );
    expect(seen).toEqual([1, 2]);
    expect(results.map((r) => (r.ok ? 'ok' : r.skipped ? 'skipped' : 'failed'))).toEqual(['ok', 'failed', 'skipped', 'skipped', 'skipped']);
    expect(results[3]).toMatchObject({ ok: false, error: { message: 'Invalid API key' } });
  });

  it('on abort starts nothing more, lets running items finish, and marks the rest skipped', async () => {
    const controller = new AbortController();
    const g = gated<number>();
    const run = runPool([1, 2, 3, 4, 5, 6], g.worker, { concurrency: 2, signal: controller.signal });
    await g.open(1);
    controller.abort(new Error('interrupted'));
    await g.open(2);
    await g.open(3);
    const results = await run;
    expect(g.started).toEqual([1, 2, 3]);
    expect(results.map((r) => (r.ok ? 'ok' : r.skipped ? 'skipped' : 'failed'))).toEqual(['ok', 'ok', 'ok', 'skipped', 'skipped', 'skipped']);
    expect(results[5]).toMatchObject({ error: { message: 'interrupted' } });
  });

  it('consults the pacer before starting each item', async () => {
    const order: string[] = [];
    const pacer = {
      ready: async () => {
        order.push('ready');
      },
    };
    await runPool(
      ['x', 'y'],
      async (item) => {
        order.push(item);
      },
      { concurrency: 1, pacer },
    );
    expect(order).toEqual(['ready', 'x', 'ready', 'y']);
  });

  it("ends when the last item is answered, though a lane still waits for the pacer's room", async () => {
    // The first lane's waits end at once; the second's only on its signal (a full window's wait, for ever).
    let calls = 0;
    const pacer = {
      ready: (signal?: AbortSignal) =>
        new Promise<void>((resolve, reject) => {
          if (++calls !== 2) return resolve();
          signal?.addEventListener('abort', () => reject(signal.reason));
        }),
    };
    const run = runPool(['x', 'y'], async (item) => item, { concurrency: 2, pacer });
    const outcome = await Promise.race([run, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1000))]);
    expect(outcome).toEqual([
      { item: 'x', index: 0, ok: true, value: 'x' },
      { item: 'y', index: 1, ok: true, value: 'y' },
    ]);
  });

  it('handles an empty list and a concurrency above the item count', async () => {
    expect(await runPool([], async () => 1)).toEqual([]);
    const g = gated<number>();
    const run = runPool([1, 2], g.worker, { concurrency: 50 });
    await g.open(2);
    await g.open(1);
    expect((await run).map((r) => r.ok)).toEqual([true, true]);
    expect(g.stats().maxInFlight).toBe(2);
  });

  it('waits with as many lanes as --concurrency allows (32) without Node warning of a listener leak', async () => {
    const warnings: string[] = [];
    const note = (w: Error) => warnings.push(w.name);
    process.on('warning', note);
    try {
      const wait = (ms: number, signal?: AbortSignal) =>
        new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, ms);
          signal?.addEventListener('abort', done);
        });
      const results = await runPool(
        Array.from({ length: 100 }, (_, i) => i),
        async (i, _index, signal) => {
          await wait(2, signal);
          return i;
        },
        { concurrency: 32, signal: new AbortController().signal, pacer: { ready: (signal: AbortSignal) => wait(2, signal) } },
      );
      expect(results.every((r) => r.ok)).toBe(true);
      // A warning is emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', note);
    }
  });
});
