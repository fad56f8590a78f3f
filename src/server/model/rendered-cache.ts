/**
 * Renderings kept across requests and writes: a user's or a message's wire form and its JSON text, made once
 * and given again while nothing it was made of has changed (store/changes.ts). Reading rows into values and
 * encoding them was most of what `GET /users` and `GET /messages` cost `serve`; a real Zulip server keeps the
 * same in memcached (user dicts, message dicts) for the same reason.
 *
 * Only answers written as JSON take kept values (HandlerContext.rendersJson: `serve`): whoever gets values
 * in-process could change a kept one. Bounded in entries and in characters of JSON (the values take about twice as
 * much memory again), the least lately made going first.
 */
import { changeLog, type Dependency } from '../store/changes.js';
import type { Db } from '../store/db.js';
import { BoundedMap } from '../store/bounded-map.js';

export interface Rendering<V> {
  value: V;
  /** JSON.stringify(value), exactly. */
  json: string;
  /** What else it depends on, if anything, given again only to a request with the same (the URL a request reached `serve` by). */
  scope?: string;
}

/**
 * A kept rendering as the cache gives it: with the forms made from it (by what they add: a message's flags), kept as
 * long as it is, in a short list searched in order (a Map was a hash table more to reach for each rendering given).
 */
export interface KeptRendering<V> extends Rendering<V> {
  forms: Form<V>[] | undefined;
}

/** A form of a kept rendering, and what it was made for (a message's flag bits). */
export interface Form<V> extends Rendering<V> {
  bits: number;
}

interface Kept<V> extends KeptRendering<V> {
  /** The change log's newest change when it was made, or when it was last given and so seen to hold (get). */
  at: number;
  made: readonly Dependency[];
}

export interface RenderedCacheLimits {
  entries: number;
  characters: number;
}

export class RenderedCache<V, K extends string | number = number> {
  private readonly entries: BoundedMap<K, Kept<V>>;

  constructor(limits: RenderedCacheLimits) {
    this.entries = new BoundedMap({ entries: limits.entries, size: limits.characters }, (_, kept) => kept.json.length);
  }

  /**
   * The rendering kept for `key`, if what it was made of is unchanged as of this transaction's ChangeLog.sync,
   * and it was made in `scope` where it depends on one.
   */
  get(db: Db, key: K, scope?: string): KeptRendering<V> | undefined {
    const kept = this.entries.get(key);
    if (!kept) return undefined;
    const as = kept.scope === undefined || kept.scope === scope ? changeLog(db).confirmed(kept.at, kept.made) : undefined;
    if (as === undefined) {
      this.entries.delete(key);
      return undefined;
    }
    // Checked as of the newest change read: the next request walks only the changes made after this one.
    kept.at = as;
    return kept;
  }

  /** Keeps a rendering made as of change `at` from the rows `made` names. */
  set(key: K, at: number, made: readonly Dependency[], rendering: Rendering<V>): void {
    // Named, not spread: a spread copy cost a third of making a user's rendering again once every one was stale.
    this.entries.set(key, { value: rendering.value, json: rendering.json, scope: rendering.scope, at, made, forms: undefined });
  }
}

/** One cache of each kind per connection. */
export function renderedCacheOf<V>(caches: WeakMap<Db, RenderedCache<V>>, db: Db, limits: RenderedCacheLimits): RenderedCache<V> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new RenderedCache<V>(limits);
    caches.set(db, cache);
  }
  return cache;
}
