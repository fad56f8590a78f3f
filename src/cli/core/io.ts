/** The streams a command talks through, with their terminal state: injected, so tests can fake a TTY. */
import { addAbortSignal, type Readable, type Writable } from 'node:stream';

export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for tables; 80 when unknown. */
  columns: number;
}

export function processIO(): IO {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    columns: process.stdout.columns || 80,
  };
}

/**
 * Reads all of a stream as bytes (--from-file -). With `signal`, Ctrl-C stops the wait for a writer that
 * never finishes: the stream is destroyed and the read rejects with the abort. `inspect` sees each chunk
 * first and may refuse it by throwing, so a bound holds before the bytes are kept.
 */
export async function readBytes(stream: Readable, signal?: AbortSignal, inspect?: (chunk: Buffer) => void): Promise<Buffer> {
  if (signal) addAbortSignal(signal, stream);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    // Before the chunk is kept: an inspector that throws ends the read (and the stream) at this chunk.
    inspect?.(bytes);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

/** Reads all of stdin as UTF-8 text (for --password-stdin, a message body). */
export async function readAll(stream: Readable, signal?: AbortSignal): Promise<string> {
  return (await readBytes(stream, signal)).toString('utf8');
}

/** The first line of stdin, without its line ending: a secret piped in. */
export async function readSecret(stream: Readable): Promise<string> {
  return (await readAll(stream)).split(/\r?\n/)[0] ?? '';
}
