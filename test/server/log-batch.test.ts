/**
 * `serve`'s log (src/server/log-batch.ts): a quiet server's lines are written at the end of their turn, a busy
 * one's together at most every `everyMs`, in order, and flush() writes what waits at once.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { batchedLog } from '../../src/server/log-batch.js';

function capture(everyMs: number, maxChars?: number) {
  const writes: string[] = [];
  const clock = { ms: 1000 };
  const log = batchedLog((text) => writes.push(text), { everyMs, maxChars, nowMs: () => clock.ms });
  return { writes, clock, log };
}

describe('the batched log', () => {
  it("writes a quiet log's line at the end of the turn it was logged in, the turn's lines in one write", async () => {
    const { writes, log } = capture(50);
    log('first');
    log('second');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['first\nsecond\n']);
  });

  it('holds the lines of a busy log until the window since the last write has passed, then writes them together', async () => {
    const { writes, clock, log } = capture(30);
    log('a');
    await nextTurn();
    expect(writes).toEqual(['a\n']);
    clock.ms += 5;
    log('b');
    await nextTurn();
    log('c');
    await nextTurn();
    expect(writes).toEqual(['a\n']);
    clock.ms += 25;
    await sleep(60);
    expect(writes).toEqual(['a\n', 'b\nc\n']);
    // Quiet again: the next line goes out at the end of its turn.
    clock.ms += 100;
    log('d');
    await nextTurn();
    expect(writes).toEqual(['a\n', 'b\nc\n', 'd\n']);
  });

  it('writes at once when the lines waiting reach their bound, and on flush()', async () => {
    const { writes, log } = capture(1000, 10);
    log('x');
    await nextTurn();
    log('0123');
    log('45678');
    expect(writes).toEqual(['x\n', '0123\n45678\n']);
    log('tail');
    log.flush();
    expect(writes).toEqual(['x\n', '0123\n45678\n', 'tail\n']);
    log.flush();
    await sleep(20);
    expect(writes).toHaveLength(3);
  });
});
