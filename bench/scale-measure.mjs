// Timing and the table of the scale benchmark. Budgets are ratios within one run, as the issue states them,
// so they hold on a noisy machine; the verdict compares each ratio with its budget.
import { AsyncLocalStorage } from 'node:async_hooks';

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/**
 * One piece of work at a time, in the order asked, however many callers: the sizes are measured side by side,
 * each taking its turn for one run (or one untimed request), so that the machine's slow minutes fall on every
 * size alike instead of on whichever size was being measured then. A turn may ask for more work inside it
 * (a timed run's requests): that work is part of the turn.
 */
class Turns {
  #last = Promise.resolve();
  #inside = new AsyncLocalStorage();

  run(work) {
    if (this.#inside.getStore()) return work();
    const before = this.#last;
    let done;
    this.#last = new Promise((resolve) => {
      done = resolve;
    });
    return before.then(() => this.#inside.run(true, work)).finally(done);
  }
}

export const turns = new Turns();

/**
 * Median milliseconds of up to `runs` calls of `fn(i)` after one warm-up; `fn` returns a promise. `after(i)`
 * runs untimed after each call (to undo what it did, so every run finds the same state). An operation whose
 * warm-up shows that `runs` runs would take more than `spendMs` gets fewer (at least one), and one slower
 * than `spendMs` is timed by its warm-up alone: the run stays within minutes, and the figure is still measured.
 */
export async function timeMedian(runs, fn, after = async () => {}, spendMs = 30_000) {
  const times = [];
  let planned = runs;
  for (let i = 0; i <= planned; i++) {
    const ms = await turns.run(async () => {
      const t = process.hrtime.bigint();
      await fn(i);
      const took = Number(process.hrtime.bigint() - t) / 1e6;
      await after(i);
      return took;
    });
    if (i === 0) {
      planned = Math.min(runs, Math.floor(spendMs / Math.max(ms, 1e-3)));
      if (planned === 0) return ms;
    } else times.push(ms);
  }
  return median(times);
}

/**
 * One row of the table. `kind`:
 * - 'one': one object; ratio = largest size / smallest, budget 1.5;
 * - 'k': k objects (k grows with the size); ratio normalized by the growth of k, budget 1.2;
 * - 'spread': costs of the same work at several positions (the flags walk's batches); ratio = the largest / the
 *   smallest at one size, the worst size shown, budget 1.5 (the cost does not depend on the position);
 * - 'memory': peak RSS in MB; the budget is an absolute ceiling at the largest size;
 * - 'info': printed without a verdict.
 */
export class Table {
  constructor(sizes) {
    this.sizes = sizes;
    this.rows = [];
  }

  add(name, kind, bySize, budget = null) {
    this.rows.push({ name, kind, bySize, budget });
  }

  verdictOf(row) {
    const { sizes } = this;
    const first = row.bySize.get(sizes[0]);
    const last = row.bySize.get(sizes.at(-1));
    if (row.kind === 'spread') {
      const worst = Math.max(...[...row.bySize.values()].map((ms) => Math.max(...ms) / Math.min(...ms)));
      const budget = row.budget ?? 1.5;
      return { ratio: `${worst.toFixed(2)}x`, budget: `${budget.toFixed(1)}x`, verdict: worst <= budget ? 'within' : 'OVER' };
    }
    if (row.kind === 'info' || typeof first !== 'number' || last === undefined) return { ratio: '', budget: '', verdict: '' };
    // A skipped operation was projected to take at least `projectedMs`: its ratio is at least that.
    const lastMs = typeof last === 'number' ? last : last.projectedMs;
    const atLeast = typeof last === 'number' ? '' : '≥';
    const budget = row.budget ?? (row.kind === 'k' ? 1.2 : 1.5);
    if (row.kind === 'memory') return { ratio: '', budget: `≤${budget} MB`, verdict: lastMs <= budget ? 'within' : 'OVER' };
    const ratio = row.kind === 'k' ? lastMs / first / (sizes.at(-1) / sizes[0]) : lastMs / first;
    return { ratio: `${atLeast}${ratio.toFixed(2)}x`, budget: `${budget.toFixed(1)}x`, verdict: ratio <= budget ? (atLeast ? '' : 'within') : 'OVER' };
  }

  print(note) {
    const cell = (v, kind) => {
      if (v === undefined) return '-';
      if (typeof v === 'string') return v;
      if (v.projectedMs !== undefined) return `skipped (≥${fmtMs(v.projectedMs)})`;
      if (kind === 'memory') return `${v.toFixed(0)} MB`;
      if (kind === 'spread') return v.map(fmtMs).join(' / ');
      return fmtMs(v);
    };
    const header = ['operation', ...this.sizes.map((s) => `${s.toLocaleString('en')} users`), 'ratio', 'budget', 'verdict'];
    const lines = this.rows.map((row) => {
      const v = this.verdictOf(row);
      return [row.name, ...this.sizes.map((s) => cell(row.bySize.get(s), row.kind)), v.ratio, v.budget, v.verdict];
    });
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
    const fmt = (l) => l.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    console.log(`\n${note}`);
    console.log(fmt(header));
    for (const l of lines) console.log(fmt(l));
    return lines.every((l) => l.at(-1) !== 'OVER');
  }
}

export const fmtMs = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);
