/**
 * A Map bounded in entries and in the size of its values, for the caches that keep what they made lately
 * (renderings, answers, pages of users): a value set is the newest, and room is made by dropping the oldest first.
 *
 * The oldest key comes from one iterator kept across calls. Asking a fresh `map.keys()` for its first key walks
 * past every entry deleted at the front since the Map last compacted its table: the cache of 20,000 users'
 * renderings, filled by the 100,000 users of one `GET /users`, walked thousands of them each time it made room
 * (3.5 s of a 4 s answer at that size, against 0.5 s before). A kept iterator passes each deleted entry once: a
 * Map's iterator goes on past what is deleted and reaches what is added after it, in order.
 */
export interface BoundedMapLimits {
  entries: number;
  /** The sizes of all values together, at most. */
  size: number;
  /** The size of one value, at most (`size` when not given): a larger one is not kept. */
  entrySize?: number;
}

export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  private keys: Iterator<K> = this.map.keys();
  private total = 0;

  constructor(
    private readonly limits: BoundedMapLimits,
    /** A value's size, in the unit of the limits. */
    private readonly sizeOf: (key: K, value: V) => number,
  ) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Keeps `value` for `key` as the newest, the oldest dropped until it fits; one larger than an entry may be is not kept (nor the value it replaces). */
  set(key: K, value: V): void {
    this.delete(key);
    const size = this.sizeOf(key, value);
    if (size > (this.limits.entrySize ?? this.limits.size)) return;
    while (this.map.size >= this.limits.entries || this.total + size > this.limits.size) {
      const oldest = this.oldest();
      if (oldest === undefined) break;
      this.delete(oldest);
    }
    this.map.set(key, value);
    this.total += size;
  }

  delete(key: K): void {
    const value = this.map.get(key);
    if (value === undefined) return;
    this.map.delete(key);
    this.total -= this.sizeOf(key, value);
  }

  clear(): void {
    this.map.clear();
    this.keys = this.map.keys();
    this.total = 0;
  }

  /** The oldest key still held, or undefined when none is. */
  private oldest(): K | undefined {
    let next = this.keys.next();
    // An iterator that has ended stays ended, whatever is added after: start another.
    if (next.done) {
      this.keys = this.map.keys();
      next = this.keys.next();
    }
    return next.done ? undefined : next.value;
  }
}
