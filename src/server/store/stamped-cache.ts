/**
 * Values computed from the store, kept while its stamp (stamp.ts) stays the same: any write, by this process or
 * another, empties the cache at the next read of the stamp. Bounded in entries and, where the owner measures
 * its values, in their size in all and each: the oldest entry makes room. While the store cannot be read (busy
 * for longer than its timeout) the stamp is undefined, and nothing is answered from the cache or kept in it.
 */
import type { Db } from './db.js';
import { BoundedMap } from './bounded-map.js';
import { storeStamp } from './stamp.js';

export interface StampedCacheLimits<V> {
  entries: number;
  /** The size of an entry, in whatever unit `size` and `entrySize` count (none: only entries are counted). */
  sizeOf?: (key: string, value: V) => number;
  /** The sizes of all entries together, at most. */
  size?: number;
  /** The size of one entry, at most: a larger one is not kept. */
  entrySize?: number;
}

export class StampedCache<V> {
  /** The stamp the entries held were kept at. */
  private kept: string | undefined;
  private readonly entries: BoundedMap<string, V>;

  constructor(
    private readonly db: Db,
    limits: StampedCacheLimits<V>,
  ) {
    const { sizeOf = () => 0, size = Number.POSITIVE_INFINITY, entrySize } = limits;
    this.entries = new BoundedMap({ entries: limits.entries, size, entrySize }, sizeOf);
  }

  /** The store's stamp now (undefined when it cannot be read); the cache is emptied when it is not the one its entries were kept at. */
  stamp(): string | undefined {
    let stamp: string | undefined;
    try {
      stamp = storeStamp(this.db);
    } catch {
      stamp = undefined;
    }
    if (stamp === undefined || stamp !== this.kept) {
      this.kept = stamp;
      this.entries.clear();
    }
    return stamp;
  }

  /** Whether an entry is held for `key`, as of whenever it was kept (it may be gone at the next read of the stamp). */
  holds(key: string): boolean {
    return this.entries.has(key);
  }

  /** The entries for `keys`, each when the store has not changed since it was kept; the stamp is read once for them all, and only when one of them is held. */
  find(keys: readonly string[]): (V | undefined)[] {
    if (!keys.some((key) => this.holds(key)) || this.stamp() === undefined) return keys.map(() => undefined);
    return keys.map((key) => this.entries.get(key));
  }

  /**
   * Keeps `value` for `key`, made from the store as it was at `stamp` or later (the stamp was read before the
   * value), unless the cache has seen another stamp since. The store is not read again: should it have changed
   * since `stamp` unseen, the next read of the stamp finds it changed and empties the cache, this entry with the
   * rest, so an entry is never given at a stamp older than what it was made from, nor newer.
   */
  set(key: string, stamp: string, value: V): void {
    if (this.kept === stamp) this.entries.set(key, value);
  }
}
