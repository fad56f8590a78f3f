/**
 * A list in an answer that travels a chunk at a time: the answer is still one JSON document (the same keys in
 * the same order, the same bytes on the wire), but one of its lists is produced, sent and read in bounded
 * chunks instead of being held whole. A server's handler makes one from pages it reads, `chatctl serve` writes
 * it as it comes, the embedded transport hands it to the client as it is, and the HTTP transport makes one
 * from the bytes as they arrive. Only a caller that asks for a list this way gets one (WireRequest.stream);
 * everyone else sees the list as an array.
 */

type Chunks<T> = Iterable<readonly T[]> | AsyncIterable<readonly T[]>;

export class StreamedList<T = unknown> implements AsyncIterable<readonly T[]> {
  constructor(readonly chunks: Chunks<T>) {}

  /** A list already whole, as one chunk (or none when empty). */
  static of<T>(items: readonly T[]): StreamedList<T> {
    return new StreamedList(items.length ? [items] : []);
  }

  /** Ends early (a consumer that stops, a client gone) return the source, so its `finally` runs. */
  async *[Symbol.asyncIterator](): AsyncIterator<readonly T[]> {
    yield* this.chunks;
  }

  /** The elements that pass `keep`, chunk by chunk; chunks left empty are skipped. */
  filter(keep: (item: T) => boolean): StreamedList<T> {
    const source = this;
    return new StreamedList(
      (async function* () {
        for await (const chunk of source) {
          const kept = chunk.filter(keep);
          if (kept.length) yield kept;
        }
      })(),
    );
  }

  /** The same list, `after` run once its last chunk has been read (not when the reader stops early). */
  whenDone(after: () => Promise<void> | void): StreamedList<T> {
    const source = this;
    return new StreamedList(
      (async function* () {
        yield* source;
        await after();
      })(),
    );
  }
}

/** Every element of a list whose chunks are made synchronously, as a server's pages are (read inside one transaction). */
export function collectNow<T>(list: StreamedList<T>): T[] {
  if (!(Symbol.iterator in list.chunks)) throw new Error('a list whose chunks arrive asynchronously cannot be read at once');
  const out: T[] = [];
  for (const chunk of list.chunks) for (const item of chunk) out.push(item);
  return out;
}

/** The keys of `R` whose values are lists. */
export type ListKey<R> = { [K in keyof R]-?: R[K] extends readonly unknown[] ? K : never }[keyof R] & string;

/** The element type of a list. */
export type ElementOf<L> = L extends readonly (infer E)[] ? E : never;

/** An answer whose lists may each be streamed: what a server's handler may return. */
export type Streamable<R> = { [K in keyof R]: R[K] extends readonly (infer E)[] ? R[K] | StreamedList<E> : R[K] };
