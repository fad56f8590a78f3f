/**
 * Values kept while the store's stamp stays the same (src/server/store/stamped-cache.ts): an entry is kept
 * only under the stamp read before it was made, and never given once the store has changed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StampedCache } from '../../src/server/store/stamped-cache.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';

describe('a stamped cache', () => {
  let org: TestOrg | undefined;
  afterEach(() => org?.close());

  const setUp = () => {
    org = createTestOrg();
    const cache = new StampedCache<string>(org.db, { entries: 10 });
    const write = (db = org!.db) => db.prepare("UPDATE users SET timezone = 'Europe/Oslo' WHERE id = ?").run(org!.owner.id);
    return { cache, write, db: org.db };
  };

  it('gives an entry back while nothing is written', () => {
    const { cache } = setUp();
    const stamp = cache.stamp()!;
    cache.set('k', stamp, 'v');
    expect(cache.find(['k', 'other'])).toEqual(['v', undefined]);
  });

  it('keeps no entry made before another stamp was seen: a value read before a write is not kept after it', () => {
    const { cache, write } = setUp();
    const before = cache.stamp()!;
    write();
    cache.stamp();
    cache.set('k', before, 'stale');
    expect(cache.holds('k')).toBe(false);
  });

  it('never gives an entry once the store changed, whether the change came before or after it was kept, by this connection or another', () => {
    const { cache, write } = setUp();
    const stamp = cache.stamp()!;
    write();
    cache.set('k', stamp, 'made before the write');
    expect(cache.find(['k'])).toEqual([undefined]);
    const again = cache.stamp()!;
    cache.set('k', again, 'kept');
    write(org!.otherConnection());
    expect(cache.find(['k'])).toEqual([undefined]);
  });
});
