/**
 * Progress of long operations on stderr, only when stderr is a terminal (and not --quiet): a count, and
 * with a known total a percentage and an ETA.
 */
import type { Context } from './context.js';

export interface Progress {
  tick(n?: number): void;
  done(): void;
}

const SILENT: Progress = { tick: () => {}, done: () => {} };

/** `total` null: the end is not known in advance (walking a narrow batch by batch). */
export function startProgress(ctx: Context, total: number | null, unit = ''): Progress {
  if (!ctx.io.stderrIsTTY || ctx.globals.quiet || (total !== null && total < 2)) return SILENT;
  const started = ctx.nowMs();
  let count = 0;
  let last = 0;
  const draw = (final: boolean) => {
    let text = String(count);
    if (total !== null) {
      const elapsed = (ctx.nowMs() - started) / 1000;
      const eta = count > 0 && count < total ? Math.ceil((elapsed / count) * (total - count)) : 0;
      text += `/${total} (${Math.floor((count / total) * 100)}%)${eta ? ` ETA ${eta}s` : ''}`;
    }
    ctx.io.stderr.write(`\r\u001b[2K${text}${unit ? ` ${unit}` : ''}${final ? '\n' : ''}`);
  };
  return {
    tick(n = 1) {
      count += n;
      const now = ctx.nowMs();
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
