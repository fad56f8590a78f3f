/**
 * The keys of a Map from the oldest on, for the caches that make room by dropping what was kept least lately.
 * Asking a fresh `map.keys()` for its first key walks past every entry deleted at the front since the Map last
 * compacted its table: the cache of 20,000 users' renderings, filled by the 100,000 users of one `GET /users`,
 * walked thousands of them each time it made room (3.5 s of a 4 s answer at that size, against 0.5 s before).
 * One iterator kept across calls passes each deleted entry once: a Map's iterator goes on past what is deleted
 * and reaches what is added after it, in order.
 */
export class OldestKeys<K> {
  private keys: Iterator<K>;

  constructor(private readonly map: Map<K, unknown>) {
    this.keys = map.keys();
  }

  /** The oldest key still in the map (the caller drops it), or undefined when the map is empty. */
  next(): K | undefined {
    let next = this.keys.next();
    // An iterator that has ended stays ended, whatever is added after: start another.
    if (next.done) {
      this.keys = this.map.keys();
      next = this.keys.next();
    }
    return next.done ? undefined : next.value;
  }
}
