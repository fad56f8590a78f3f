/**
 * An answer's JSON on an HTTP response. A body holding a StreamedList is written as it comes: the keys before
 * the list, its elements a chunk at a time, then the keys after it, byte for byte what JSON.stringify makes of
 * the whole answer. The next chunk is read only once the socket has taken the last one (so a slow client holds
 * up its own answer, not the server's memory), and reading stops when the client goes away.
 */
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isPlainObject } from '../api/schema.js';
import { StreamedList } from '../api/streamed-list.js';
import type { WireResponse } from '../api/wire.js';

/** Writes an answer held whole (null: no body) and ends the response. */
export function sendWhole(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  sendText(res, status, headers, body === null ? '' : JSON.stringify(body));
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
 * Writes a router's answer and ends the response (no body for HEAD); false when the client went away before
 * all of it was written. A list that fails midway, after the status went out, cuts the answer short (the
 * connection is destroyed, so the client sees a truncated answer, never a shorter list) and the failure is thrown.
 */
export async function writeAnswer(res: ServerResponse, out: WireResponse, head = false): Promise<boolean> {
  const { status, headers, body } = out;
  if (head || !isPlainObject(body) || !Object.values(body).some((v) => v instanceof StreamedList)) {
    sendHeld(res, out, head);
    return true;
  }
  // No length: it is not known before the end, so the answer goes out chunked.
  res.writeHead(status, headers);
  let text = '{';
  let keys = 0;
  for (const [key, value] of Object.entries(body)) {
    const json = value instanceof StreamedList ? '[' : JSON.stringify(value);
    // JSON.stringify leaves out keys whose value has no JSON form (undefined).
    if (json === undefined) continue;
    text += `${keys++ ? ',' : ''}${JSON.stringify(key)}:${json}`;
    if (!(value instanceof StreamedList)) continue;
    const rest = await writeList(res, value, text);
    if (rest === undefined) return false;
    text = `${rest}]`;
  }
  res.end(`${text}}`);
  return true;
}

/** Writes `text` and a list's elements after it; undefined when the client went away, else what is left to write. */
async function writeList(res: ServerResponse, list: StreamedList, text: string): Promise<string | undefined> {
  let pending = text;
  let first = true;
  try {
    for await (const chunk of list) {
      if (!chunk.length) continue;
      // The array's own text without its brackets: each element exactly as JSON.stringify writes it in one.
      pending += `${first ? '' : ','}${JSON.stringify(chunk).slice(1, -1)}`;
      first = false;
      if (!(await writeSome(res, pending))) return undefined;
      pending = '';
      // A turn of the event loop between chunks, even when the socket takes each at once: other requests
      // are served meanwhile, and a client gone away is noticed.
      await nextTurn();
    }
  } catch (e) {
    res.destroy();
    throw e;
  }
  return pending;
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
