/**
 * An HTTP answer read as it arrives, for a request that takes one of its lists as a stream (WireRequest.stream):
 * the keys before the list are parsed at once, the list's elements are handed over as each read completes
 * them, and the keys after it are set on the body once the list has been read. Only the bytes of one read and
 * the elements they complete are held at a time. The parser is loaded on the first such answer: start-up does
 * not pay for it.
 */
import { StreamedList } from '../api/streamed-list.js';
import { ChatctlError } from '../errors.js';

/** Larger buffers than the parser's defaults: strings and numbers of a user object fit, and it parses faster. */
const PARSER_BUFFERS = { stringBufferSize: 64 * 1024, numberBufferSize: 64 };

/**
 * The body of a JSON answer whose list `key` is streamed; when the document turns out to have no such list
 * (another answer, or not JSON at all), the whole body as the transport would read it otherwise: its JSON, or
 * its text.
 */
export async function readStreamed(bytes: AsyncIterable<Uint8Array>, key: string, whole: (text: string) => unknown): Promise<unknown> {
  const { JSONParser } = await import('@streamparser/json');
  const parser = new JSONParser({ paths: ['$.*', `$.${key}.*`], keepStack: false, ...PARSER_BUFFERS });
  const head: Record<string, unknown> = {};
  const tail: Record<string, unknown> = {};
  let pending: unknown[] = [];
  // Whether the list has begun: an element of it, or its end, has been parsed.
  let begun = false;
  parser.onValue = ({ value, key: at, stack }) => {
    if (stack.length === 2 && typeof at === 'number') {
      pending.push(value);
      begun = true;
    } else if (stack.length === 1 && at === key && Array.isArray(value)) {
      // The list itself, emptied as its elements were handed over.
      begun = true;
    } else if (stack.length === 1 && typeof at === 'string') {
      (begun ? tail : head)[at] = value;
    }
  };

  const reader = bytes[Symbol.asyncIterator]();
  // The text read before the list begins, in case there is none: small, as it holds no element.
  const decoder = new TextDecoder();
  let text = '';
  const rest = async (): Promise<string> => {
    for (let next = await reader.next(); !next.done; next = await reader.next()) text += decoder.decode(next.value, { stream: true });
    return text + decoder.decode();
  };
  while (!begun) {
    const next = await reader.next();
    if (next.done) return whole(text + decoder.decode());
    text += decoder.decode(next.value, { stream: true });
    try {
      parser.write(next.value);
    } catch {
      return whole(await rest());
    }
  }
  text = '';

  const body: Record<string, unknown> = { ...head };
  body[key] = new StreamedList(
    (async function* () {
      let done = false;
      try {
        for (;;) {
          if (pending.length) {
            const chunk = pending;
            pending = [];
            yield chunk;
          }
          if (parser.isEnded) break;
          const next = await reader.next();
          if (next.done) throw new ChatctlError("the server's answer ended in the middle of its list", 'temporary');
          parser.write(next.value);
        }
        done = true;
        Object.assign(body, tail);
      } finally {
        // Stopped early (the reader went away, or a failure): the rest of the answer is not read.
        if (!done) await reader.return?.();
      }
    })(),
  );
  return body;
}
