/**
 * A log whose lines are written together: under load `serve` answers thousands of requests a second, and each
 * write is a system call (synchronous to a file or a terminal), once about a tenth of a request's time when
 * every line was written by itself. A line is written at the end of the event-loop turn it was logged in,
 * unless the log was last written less than `everyMs` before: then once that much time has passed, or at
 * once when `maxChars` wait. So a quiet server's lines appear as they happen and a busy one's within
 * `everyMs`, as nginx's buffered access log (buffer=, flush=) does. flush() writes what waits at once
 * (before stopping, and before other output that must follow the lines).
 */
export interface BatchedLog {
  (line: string): void;
  flush(): void;
}

export interface BatchOptions {
  /** The least time between two writes while lines keep coming (10 ms). */
  everyMs?: number;
  /** Characters that are written at once, however recent the last write (64 Ki). */
  maxChars?: number;
  /** The clock, in milliseconds (performance.now). */
  nowMs?: () => number;
}

export function batchedLog(write: (text: string) => void, o: BatchOptions = {}): BatchedLog {
  const everyMs = o.everyMs ?? 10;
  const maxChars = o.maxChars ?? 64 * 1024;
  const nowMs = o.nowMs ?? (() => performance.now());
  let pending: string[] = [];
  let chars = 0;
  let lastWrite = Number.NEGATIVE_INFINITY;
  let turnEnd: NodeJS.Immediate | undefined;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (turnEnd) clearImmediate(turnEnd);
    if (timer) clearTimeout(timer);
    turnEnd = undefined;
    timer = undefined;
    if (!pending.length) return;
    const text = `${pending.join('\n')}\n`;
    pending = [];
    chars = 0;
    lastWrite = nowMs();
    write(text);
  };
  const endOfTurn = () => {
    turnEnd = undefined;
    const wait = lastWrite + everyMs - nowMs();
    if (wait <= 0) flush();
    else timer ??= setTimeout(flush, wait);
  };
  return Object.assign(
    (line: string) => {
      pending.push(line);
      chars += line.length + 1;
      if (chars >= maxChars) flush();
      else if (!timer) turnEnd ??= setImmediate(endOfTurn);
    },
    { flush },
  );
}
