/**
 * Progress of long operations on stderr, only when stderr is a terminal (and not --quiet): a count, and
 * with a known total a percentage and an ETA. The count is redrawn in place on a line of its own, which
 * the output layer clears before it writes to a terminal stdout (`clearProgress`), so a table or a row never
 * starts on the count's line; the next tick draws it again below.
 */
import type { IO } from '../core/io.js';

export interface Progress {
  tick(n?: number): void;
  done(): void;
}

const SILENT: Progress = { tick: () => {}, done: () => {} };

/** The streams whose stderr holds a count without its line ending, drawn in place. */
const drawn = new WeakSet<IO>();

const CLEAR_LINE = '\r\u001b[2K';

/** Erases the count on stderr when stdout shares its terminal: called before anything is written to stdout. */
export function clearProgress(io: IO): void {
  if (!drawn.has(io)) return;
  drawn.delete(io);
  if (io.stdoutIsTTY) io.stderr.write(CLEAR_LINE);
}

/** `total` null: the end is not known in advance (walking a narrow batch by batch). */
/** What progress needs of a command's context (output sits below the command's declaration, so it names no `Context`). */
export interface ProgressContext {
  readonly io: IO;
  readonly globals: { readonly quiet: boolean };
  nowMs(): number;
}

export function startProgress(ctx: ProgressContext, total: number | null, unit = ''): Progress {
  if (!ctx.io.stderrIsTTY || ctx.globals.quiet || (total !== null && total < 2)) return SILENT;
  const { io } = ctx;
  const started = ctx.nowMs();
  let count = 0;
  let last = 0;
  let finished = false;
  const draw = (final: boolean) => {
    let text = String(count);
    if (total !== null) {
      const elapsed = (ctx.nowMs() - started) / 1000;
      const eta = count > 0 && count < total ? Math.ceil((elapsed / count) * (total - count)) : 0;
      text += `/${total} (${Math.floor((count / total) * 100)}%)${eta ? ` ETA ${eta}s` : ''}`;
    }
    io.stderr.write(`${CLEAR_LINE}${text}${unit ? ` ${unit}` : ''}${final ? '\n' : ''}`);
    if (final) drawn.delete(io);
    else drawn.add(io);
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
    // Idempotent: a run may end its count before printing (a table) and again on its way out.
    done() {
      if (finished) return;
      finished = true;
      if (count > 0) draw(true);
    },
  };
}
