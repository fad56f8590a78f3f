/**
 * The cache of renderings serve keeps (model/rendered-cache.ts): bounded in entries and in characters of
 * JSON, the least lately made dropped first, and never giving a rendering something it was made of changed
 * since (store/changes.ts). Its limits in serve (USER_RENDERINGS, MESSAGE_RENDERINGS) are too large to reach
 * from outside, so the bounds are tested here with small ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderedCache, type Rendering } from '../../src/server/model/rendered-cache.js';
import { insertUser } from '../../src/server/model/users.js';
import { CHANGE_LOG_LIMITS, changeLog, dependency } from '../../src/server/store/changes.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';

const rendering = (json: string): Rendering<string> => ({ value: json, json });

describe('RenderedCache', () => {
  let org: TestOrg;
  let user: TestUser;
  let other: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    user = org.addUser();
    other = org.addUser();
  });
  afterAll(() => org.close());

  /** The newest change, as a read transaction that keeps renderings sees it. */
  const now = () => changeLog(org.db).sync();
  const kept = (cache: RenderedCache<string, string>, keys: string[]) => keys.filter((key) => cache.get(org.db, key) !== undefined);

  it('keeps at most its number of entries, dropping the oldest first', () => {
    const cache = new RenderedCache<string, string>({ entries: 3, characters: 1000 });
    const at = now();
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, at, [], rendering(`"${key}"`));
    expect(kept(cache, ['a', 'b', 'c', 'd'])).toEqual(['b', 'c', 'd']);
    expect(cache.get(org.db, 'd')).toMatchObject(rendering('"d"'));
  });

  it('keeps at most its number of characters of JSON, dropping the oldest first', () => {
    const cache = new RenderedCache<string, string>({ entries: 100, characters: 10 });
    const at = now();
    for (const key of ['a', 'b', 'c']) cache.set(key, at, [], rendering(`"${key}${key}"`));
    expect(kept(cache, ['a', 'b', 'c'])).toEqual(['b', 'c']);
    // One longer than the whole bound is not kept, and makes no room for itself.
    cache.set('huge', at, [], rendering('x'.repeat(11)));
    expect(kept(cache, ['b', 'c', 'huge'])).toEqual(['b', 'c']);
    // Made again, a rendering counts its new length alone.
    cache.set('b', at, [], rendering('"12345"'));
    expect(kept(cache, ['b', 'c'])).toEqual(['b']);
  });

  it('counts a rendering made again as the newest: the least lately made goes first', () => {
    const cache = new RenderedCache<string, string>({ entries: 3, characters: 1000 });
    const at = now();
    for (const key of ['a', 'b', 'c', 'a', 'd']) cache.set(key, at, [], rendering(`"${key}"`));
    expect(kept(cache, ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
  });

  it('never gives a rendering something it was made of changed since, and still gives the others', () => {
    const cache = new RenderedCache<string, string>({ entries: 10, characters: 1000 });
    const at = now();
    cache.set('user', at, [dependency('user', user.id)], rendering('"user"'));
    cache.set('other', at, [dependency('user', other.id)], rendering('"other"'));
    cache.set('org', at, [dependency('user', other.id), dependency('realm', 0)], rendering('"org"'));
    org.db.prepare('UPDATE users SET full_name = ? WHERE id = ?').run('Changed', user.id);
    now();
    expect(kept(cache, ['user', 'other', 'org'])).toEqual(['other', 'org']);
    org.db.prepare("UPDATE realm_settings SET value = value WHERE key = 'name'").run();
    now();
    expect(kept(cache, ['other', 'org'])).toEqual(['other']);
    // Made again after the change, it holds.
    cache.set('user', now(), [dependency('user', user.id)], rendering('"user again"'));
    expect(cache.get(org.db, 'user')?.json).toBe('"user again"');
  });

  it('checks a rendering against the few changes since it was last given, or against each of its rows further behind, alike', () => {
    const cache = new RenderedCache<string, string>({ entries: 10, characters: 1000 });
    const rename = org.db.prepare('UPDATE users SET full_name = ? WHERE id = ?');
    for (const behind of [1, CHANGE_LOG_LIMITS.walked, CHANGE_LOG_LIMITS.walked + 1, 3 * CHANGE_LOG_LIMITS.walked]) {
      const at = now();
      cache.set('mine', at, [dependency('user', user.id), dependency('realm', 0)], rendering('"mine"'));
      cache.set('theirs', at, [dependency('user', other.id)], rendering('"theirs"'));
      // Given once more: each is counted as made as of the newest change, and what comes after still tells.
      expect(kept(cache, ['mine', 'theirs'])).toEqual(['mine', 'theirs']);
      org.db.transaction(() => {
        for (let i = 0; i < behind - 1; i++) rename.run(`Other ${behind} ${i}`, other.id);
        rename.run(`Mine ${behind}`, user.id);
      })();
      now();
      expect(kept(cache, ['mine', 'theirs'])).toEqual(behind === 1 ? ['theirs'] : []);
      cache.set('theirs', now(), [dependency('user', other.id)], rendering('"theirs"'));
      org.db.transaction(() => {
        for (let i = 0; i < behind; i++) rename.run(`Mine ${behind} ${i}`, user.id);
      })();
      now();
      expect(kept(cache, ['theirs'])).toEqual(['theirs']);
    }
  });

  it('lists the rows changed since a change while it still lists them, and tells when it no longer does', () => {
    const log = changeLog(org.db);
    const at = now();
    expect(log.changedSince(at)).toEqual([]);
    const rename = org.db.prepare('UPDATE users SET full_name = ? WHERE id = ?');
    rename.run('First', user.id);
    rename.run('Second', other.id);
    rename.run('Third', user.id);
    const after = now();
    expect(log.changedSince(at)).toEqual([dependency('user', user.id), dependency('user', other.id), dependency('user', user.id)]);
    expect(log.changedSince(after - 1)).toEqual([dependency('user', user.id)]);
    expect(log.changedSince(after)).toEqual([]);
    // Past the changes it lists (at least CHANGE_LOG_LIMITS.recent of them), an older position is not known;
    // read in batches one read of the log takes, so that the log does not start afresh instead.
    for (let batch = 0; batch < 5; batch++) {
      org.db.transaction(() => {
        for (let i = 0; i < CHANGE_LOG_LIMITS.recent / 2; i += 1) rename.run(`Many ${batch} ${i}`, other.id);
      })();
      now();
    }
    expect(log.changedSince(at)).toBeUndefined();
    expect(log.changedSince(now() - 1)).toEqual([dependency('user', other.id)]);
  });

  it('gives nothing made before the change log started afresh', () => {
    const cache = new RenderedCache<string, string>({ entries: 10, characters: 1000 });
    cache.set('before', now(), [dependency('user', user.id)], rendering('"before"'));
    // More changes than one read of the log takes, none of them of the user: the log forgets what changed.
    const touch = org.db.prepare('UPDATE users SET timezone = ? WHERE id = ?');
    org.db.transaction(() => {
      for (let i = 0; i < CHANGE_LOG_LIMITS.read + 500; i++) touch.run(`Etc/GMT+${i % 12}`, other.id);
    })();
    cache.set('after', now(), [dependency('user', user.id)], rendering('"after"'));
    expect(kept(cache, ['before', 'after'])).toEqual(['after']);
  });

  it('forgets what changed, and so everything made before, once it would remember more rows than it may', () => {
    const cache = new RenderedCache<string, string>({ entries: 10, characters: 1000 });
    const count = CHANGE_LOG_LIMITS.remembered + 10;
    const ids = org.db.transaction(() =>
      Array.from({ length: count }, (_, i) => insertUser(org.db, { email: `many${i}@example.com`, full_name: `Many ${i}` }, 0).id),
    )();
    cache.set('kept', now(), [dependency('user', user.id)], rendering('"kept"'));
    // Each read takes fewer changes than one read may, but the distinct rows changed pass what it remembers.
    const rename = org.db.prepare('UPDATE users SET full_name = ? WHERE id = ?');
    for (let from = 0; from < count; from += CHANGE_LOG_LIMITS.read / 2) {
      org.db.transaction(() => {
        for (const id of ids.slice(from, from + CHANGE_LOG_LIMITS.read / 2)) rename.run('Renamed', id);
      })();
      now();
    }
    // Nothing `kept` was made of changed, yet it is no longer given: the log started afresh.
    expect(kept(cache, ['kept'])).toEqual([]);
  });
});
