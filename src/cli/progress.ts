/** Progress of long operations on stderr: counts and an ETA, only when stderr is a terminal. */
import type { Context } from './context.js';

export interface Progress {
  tick(n?: number): void;
  done(): void;
}

const SILENT: Progress = { tick: () => {}, done: () => {} };

export function startProgress(ctx: Context, total: number): Progress {
  if (!ctx.io.stderrIsTTY || ctx.globals.quiet || total < 2) return SILENT;
  const started = ctx.now();
  let count = 0;
  let last = 0;
  const draw = (final: boolean) => {
    const elapsed = (ctx.now() - started) / 1000;
    const eta = count > 0 && count < total ? Math.ceil((elapsed / count) * (total - count)) : 0;
    const pct = Math.floor((count / total) * 100);
    ctx.io.stderr.write(`\r\u001b[2K${count}/${total} (${pct}%)${eta ? ` ETA ${eta}s` : ''}${final ? '\n' : ''}`);
  };
  return {
    tick(n = 1) {
      count += n;
      const now = ctx.now();
      if (now - last >= 100 || count === total) {
        last = now;
        draw(false);
      }
    },
    done() {
      if (count > 0) draw(true);
    },
  };
}
