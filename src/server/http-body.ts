/**
 * An answer's JSON on an HTTP response. A body holding a StreamedList is written as it comes: the keys before
 * the list, its elements a chunk at a time, then the keys after it, byte for byte what JSON.stringify makes of
 * the whole answer. The next chunk is read only once the socket has taken the last one (so a slow client holds
 * up its own answer, not the server's memory), and reading stops when the client goes away.
 */
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { answerJson, elementsJson, valueJson } from '../api/rendered-list.js';
import { isPlainObject } from '../api/schema.js';
import { StreamedList } from '../api/streamed-list.js';
import type { WireResponse } from '../api/wire.js';

/** Writes an answer held whole (null: no body) and ends the response. */
export function sendWhole(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  sendText(res, status, headers, body === null ? '' : answerJson(body));
}

/**
 * Writes a router's answer held whole and ends the response: the JSON text the router holds already (an answer
 * it kept), else its body's; nothing for HEAD.
 */
export function sendHeld(res: ServerResponse, out: WireResponse, head = false): void {
  if (head || out.text === undefined) sendWhole(res, out.status, out.headers, head ? null : out.body);
  else sendText(res, out.status, out.headers, out.text);
}

/** Writes an answer's text as it is and ends the response; its length is counted unless the headers carry it. */
export function sendText(res: ServerResponse, status: number, headers: Record<string, string>, text: string): void {
  res.writeHead(status, 'content-length' in headers ? headers : { ...headers, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Text held back before an answer holding a list starts going out: one shorter than this (a user list of a small
 * organization) goes out whole, with its length, in one write, as an answer held whole does, instead of in
 * chunks each a write (and a packet) of its own, the last one a turn later.
 */
const HOLD_CHARS = 64 * 1024;

/**
 * Writes a router's answer and ends the response (no body for HEAD); false when the client went away before
 * all of it was written. An answer held whole is written at once (true); one with a list still streaming
 * resolves when it is all written. A list that fails midway, after the status went out, cuts the answer short
 * (the connection is destroyed, so the client sees a truncated answer, never a shorter list) and the failure
 * is thrown.
 */
export function writeAnswer(res: ServerResponse, out: WireResponse, head = false): boolean | Promise<boolean> {
  const { body } = out;
  if (head || !isPlainObject(body) || !Object.values(body).some((v) => v instanceof StreamedList)) {
    sendHeld(res, out, head);
    return true;
  }
  return writeStreaming(res, out, body);
}

/** writeAnswer for an answer with a list still streaming. */
async function writeStreaming(res: ServerResponse, { status, headers }: WireResponse, body: Record<string, unknown>): Promise<boolean> {
  const sink = new HeldSink(res, status, headers);
  let keys = 0;
  for (const [key, value] of Object.entries(body)) {
    const json = value instanceof StreamedList ? '[' : valueJson(value);
    // JSON.stringify leaves out keys whose value has no JSON form (undefined).
    if (json === undefined) continue;
    sink.add(`${keys++ ? ',' : '{'}${JSON.stringify(key)}:${json}`);
    if (!(value instanceof StreamedList)) continue;
    if (!(await writeList(sink, value))) return false;
    sink.add(']');
  }
  sink.end(keys ? '}' : '{}');
  return true;
}

/**
 * Where an answer's text goes: held until it passes HOLD_CHARS, then written as it comes (chunked: the length
 * is not known before the end); an answer that ends first is written whole with its length.
 */
class HeldSink {
  private pending = '';
  private started = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly status: number,
    private readonly headers: Record<string, string>,
  ) {}

  add(text: string): void {
    this.pending += text;
  }

  /** Whether nothing has gone out yet: the text is held, to go whole with its length if it ends in time. */
  get holding(): boolean {
    return !this.started;
  }

  /** Writes what is pending once past the hold; resolves false when the client has gone away. */
  async flush(): Promise<boolean> {
    if (!this.started && this.pending.length < HOLD_CHARS) return !this.res.destroyed;
    if (!this.started) {
      this.res.writeHead(this.status, this.headers);
      this.started = true;
    }
    const text = this.pending;
    this.pending = '';
    return writeSome(this.res, text);
  }

  /** Cuts the answer short: the client sees it end early (or no answer), never a shorter list. */
  destroy(): void {
    this.res.destroy();
  }

  end(text: string): void {
    if (this.started) this.res.end(this.pending + text);
    else sendText(this.res, this.status, this.headers, this.pending + text);
  }
}

/** Writes a list's elements to `sink`; false when the client went away. */
async function writeList(sink: HeldSink, list: StreamedList): Promise<boolean> {
  let first = true;
  try {
    for await (const chunk of list) {
      if (!chunk.length) continue;
      // The array's own text without its brackets: each element exactly as JSON.stringify writes it in one.
      sink.add(`${first ? '' : ','}${elementsJson(chunk)}`);
      first = false;
      if (!(await sink.flush())) return false;
      // A turn of the event loop between chunks once the answer is going out, even when the socket takes each
      // at once: other requests are served meanwhile, and a client gone away is noticed. While the text is
      // still held (under HOLD_CHARS in all) there is too little work to yield for, and a small list then
      // goes out in the turn it was read.
      if (!sink.holding) await nextTurn();
    }
  } catch (e) {
    sink.destroy();
    throw e;
  }
  return true;
}

/** Writes `text`; resolves once the socket takes more, true, or when the client has gone away, false. */
function writeSome(res: ServerResponse, text: string): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (res.write(text)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (ok: boolean) => () => {
      res.off('drain', drained);
      res.off('close', closed);
      resolve(ok);
    };
    const drained = settle(true);
    const closed = settle(false);
    res.once('drain', drained);
    res.once('close', closed);
  });
}
