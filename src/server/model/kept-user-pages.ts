/**
 * `GET /users` from kept renderings (rendered-cache.ts), for `serve` (HandlerContext.rendersJson): each user's
 * wire form is kept with its JSON while nothing it was made of changed, and each page of users is kept as a
 * whole as its viewers of one kind see it (those who may see every address, or not), its JSON joined: a read
 * takes what changed since the page was kept from the change log (store/changes.ts) and renders again only
 * the users among it, then puts in the viewer's own entry (their own address shows). Only an answer written as
 * JSON takes kept values.
 */
import { withJson } from '../../api/rendered-list.js';
import type { User } from '../../api/types.js';
import { changeLog, dependency, type Dependency, userOf } from '../store/changes.js';
import type { Db } from '../store/db.js';
import { BoundedMap } from '../store/bounded-map.js';
import { limitClause } from '../store/limit-clause.js';
import { inReadSnapshot } from '../store/transactions.js';
import { renderedCacheOf, type RenderedCache, type RenderedCacheLimits, type Rendering } from './rendered-cache.js';
import {
  policyLetsSee,
  profilesOf,
  USER_PAGE,
  type UserViewOptions,
  usersForView,
  userViewPages,
  viewSettings,
  type ViewSettings,
  viewWithProfiles,
} from './user-view.js';
import type { Viewer } from './users.js';

/** Users' renderings kept per connection: about 400 characters of JSON each. */
const userRenderings = new WeakMap<Db, RenderedCache<User>>();
const USER_RENDERINGS: RenderedCacheLimits = { entries: 20_000, characters: 8 * 1024 * 1024 };

/**
 * Pages kept per connection at most: of IDs (emptied when full), and of renderings, in pages and in characters
 * of their joined JSON (the least lately kept going first).
 */
const KEPT_PAGES = 200;
const KEPT_PAGE_CHARACTERS = 8 * 1024 * 1024;

/**
 * Users of one list whose renderings and pages are kept: the first this many, as many as the cache of renderings
 * holds (its characters sized for them, as are the pages'); the users past them are read and rendered as when
 * nothing is kept (userViewPages). A list longer than the caches would push out each rendering
 * before the next list came back for it, and keeping what is about to go cost more than making it: `GET /users`
 * of 100,000 users took 1.0–1.3 s through `serve`, which grew to 350 MB, with every page kept; with the first
 * 20,000 kept, 0.36 s read again and 0.46 s after a change of every user, at 190 MB (bench:scale).
 */
export const KEPT_USERS = USER_RENDERINGS.entries;

/** A page of users as its viewers of one kind see it, as of change `at`: its renderings and their JSON joined. */
interface KeptPage {
  at: number;
  /** The page's IDs (pageIds' own list: another list means other users). */
  ids: readonly number[];
  renderings: Rendering<User>[];
  json: string;
}

/** Per connection: the pages kept, and the pages made whole once but not kept, as of which change (keptPage). */
const keptPages = new WeakMap<Db, { pages: BoundedMap<number, KeptPage>; madeOnce: BoundedMap<number, number> }>();

/** What makes the page stale whoever is on it: the organization's settings, or who the users are. */
const WHOLE_PAGE: readonly Dependency[] = [dependency('realm', 0), dependency('users', 0)];

/**
 * The wire form of every user (only those in `only`, when given) as `viewer` sees them, in ID order, each page
 * with its JSON (api/rendered-list.ts), as user-view.ts userViewPages pages them. The first page is read at
 * once, in the transaction of whoever asks (the handler's), the others as they are asked for; a list of one
 * page is that page, whole.
 */
export function keptUserPages(
  db: Db,
  viewer: Viewer | null,
  opts: UserViewOptions,
  realmUrl: string,
  only: ReadonlySet<number> | undefined,
): User[] | Generator<User[]> {
  const cache = renderedCacheOf(userRenderings, db, USER_RENDERINGS);
  const options = (opts.clientGravatar ? 2 : 0) + (opts.includeCustomProfileFields ? 1 : 0);
  const read = (after: number) =>
    inReadSnapshot(db, () => {
      // The settings a rendering is made under are read in the snapshot it is kept as of.
      const log = changeLog(db);
      const at = log.sync();
      const settings = viewSettingsAsOf(db, at);
      const letsSee = policyLetsSee(settings.policy, viewer);
      /**
       * The renderings of `ids` (ascending) as `as` sees them, kept by `keyOf` (what a rendering depends on
       * besides the user's rows and the settings: whether the viewer sees the address, and what was asked for).
       */
      const renderingsOf = (ids: readonly number[], as: Viewer | null, keyOf: (id: number) => number, keep = true): Rendering<User>[] => {
        const found: (Rendering<User> | undefined)[] = ids.map((id) => cache.get(db, keyOf(id)));
        const missing = ids.filter((_, i) => found[i] === undefined);
        if (missing.length) {
          const view = viewWithProfiles(db, as, opts, realmUrl, settings);
          const rows = usersForView(db, missing).sort((a, b) => a.id - b.id);
          const profiles = profilesOf(db, opts, rows);
          const made = new Map(rows.map((row) => view(row, profiles)).map((value) => [value.user_id, { value, json: JSON.stringify(value) }]));
          ids.forEach((id, i) => {
            const rendering = made.get(id);
            if (!rendering) return;
            found[i] = rendering;
            if (keep) cache.set(keyOf(id), at, [dependency('user', id), dependency('realm', 0)], rendering);
          });
        }
        return found.filter((r) => r !== undefined);
      };
      /** Where a user's rendering is kept (or a page's, by the ID it follows): besides the ID, whether the address shows, and the options. */
      const keyOf = (id: number, seesAddress: boolean) => id * 8 + (seesAddress ? 4 : 0) + options;
      const asViewer = (id: number) => keyOf(id, letsSee || viewer?.id === id);
      const all = pageIds(db, after, at);
      const answer = (values: User[], json: string) => ({ last: all.at(-1), count: all.length, users: withJson(values, json) });
      if (only) {
        const renderings = renderingsOf(
          all.filter((id) => only.has(id)),
          viewer,
          asViewer,
        );
        return answer(
          renderings.map((r) => r.value),
          joinedJson(renderings),
        );
      }
      // The page as every viewer of this kind sees it: rendered for nobody on it, then the viewer's own entry.
      const others: Viewer | null = viewer && { id: -1, role: viewer.role };
      const page = keptPage(db, keyOf(after, letsSee), at, all, (ids, keep) => renderingsOf(ids, others, (id) => keyOf(id, letsSee), keep));
      const values = page.renderings.map((r) => r.value);
      const own = letsSee || !viewer ? -1 : indexOf(page.renderings, viewer.id, (r) => r.value.user_id);
      const [mine] = own < 0 ? [] : renderingsOf([viewer!.id], viewer, asViewer);
      if (!mine) return answer(values, page.json);
      values[own] = mine.value;
      // Where the entry starts in the joined JSON: the ones before it, each with its comma.
      let start = 0;
      for (let i = 0; i < own; i++) start += page.renderings[i]!.json.length + 1;
      return answer(values, `${page.json.slice(0, start)}${mine.json}${page.json.slice(start + page.renderings[own]!.json.length)}`);
    });
  const first = read(0);
  // One page is the whole list (an organization of up to USER_PAGE users): no pages to read as it is written.
  if (first.count < USER_PAGE || first.last === undefined) return first.users;
  return (function* () {
    let page = first;
    for (let listed = first.count; ; listed += page.count) {
      if (page.users.length) yield page.users;
      if (page.count < USER_PAGE || page.last === undefined) return;
      if (listed + USER_PAGE > KEPT_USERS) return yield* userViewPages(db, viewer, opts, realmUrl, only, page.last);
      page = read(page.last);
    }
  })();
}

/** The JSON of renderings as the elements of one list. */
const joinedJson = (renderings: readonly Rendering<User>[]): string => renderings.map((r) => r.json).join(',');

/**
 * The page of `ids` kept under `key` as of change `at`: the one kept, with the users changed since rendered
 * again (`render`: their renderings, ascending, kept when `keep`), or made whole when the settings, the users
 * listed or what changed since are not known (and kept the second time: see below).
 */
function keptPage(db: Db, key: number, at: number, ids: readonly number[], render: (ids: readonly number[], keep: boolean) => Rendering<User>[]): KeptPage {
  let kept = keptPages.get(db);
  if (!kept) {
    kept = {
      pages: new BoundedMap({ entries: KEPT_PAGES, size: KEPT_PAGE_CHARACTERS }, (_, page) => page.json.length),
      madeOnce: new BoundedMap({ entries: KEPT_PAGES, size: KEPT_PAGES }, () => 1),
    };
    keptPages.set(db, kept);
  }
  const log = changeLog(db);
  const before = kept.pages.get(key);
  const changed = before?.ids === ids ? log.changedSince(before.at) : undefined;
  let page: KeptPage;
  if (!before || !changed || changed.some((row) => WHOLE_PAGE.includes(row))) {
    // Kept from the second time it is made whole with nothing the whole page depends on changed between: a page
    // read once after each change of the settings, or of who the users are, would pay for keeping its users
    // every time and never be read from what it kept (as nginx caches an answer asked for proxy_cache_min_uses
    // times). Keeping costs more than making: 10,000 users listed after each change of the settings took 150 ms
    // through `serve` when kept every time, 40 ms when not.
    const once = kept.madeOnce.get(key);
    const keep = once !== undefined && log.holds(once, WHOLE_PAGE);
    page = joinedPage(at, ids, render(ids, keep));
    if (!keep) {
      kept.pages.delete(key);
      kept.madeOnce.set(key, at);
      return page;
    }
    kept.madeOnce.delete(key);
  } else {
    const stale = new Set<number>();
    for (const row of changed) {
      const user = userOf(row);
      if (user !== undefined && indexOf(ids, user, (id) => id) >= 0) stale.add(user);
    }
    if (!stale.size) {
      before.at = at;
      return before;
    }
    const fresh = new Map(
      render(
        [...stale].sort((a, b) => a - b),
        true,
      ).map((r) => [r.value.user_id, r]),
    );
    page = joinedPage(
      at,
      ids,
      before.renderings.map((r) => fresh.get(r.value.user_id) ?? r),
    );
  }
  // Kept last: the least lately kept goes first.
  kept.pages.set(key, page);
  return page;
}

/** A page of these renderings, their JSON joined. */
const joinedPage = (at: number, ids: readonly number[], renderings: Rendering<User>[]): KeptPage => ({ at, ids, renderings, json: joinedJson(renderings) });

/** Where the element whose ID is `id` is in `list`, ascending by ID, or -1. */
function indexOf<T>(list: readonly T[], id: number, idOf: (element: T) => number): number {
  let low = 0;
  let high = list.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const found = idOf(list[mid]!);
    if (found === id) return mid;
    if (found < id) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

/** The IDs of each page of users kept per connection, while nobody joins or leaves the list. */
const keptPageIds = new WeakMap<Db, Map<number, { at: number; ids: number[] }>>();

/** The IDs of the users listed after `after` (a page of them, in order), as of change `at` of this transaction's snapshot. */
function pageIds(db: Db, after: number, at: number): number[] {
  let pages = keptPageIds.get(db);
  if (!pages) {
    pages = new Map();
    keptPageIds.set(db, pages);
  }
  const kept = pages.get(after);
  if (kept && changeLog(db).holds(kept.at, [dependency('users', 0)])) return kept.ids;
  const ids = db
    .prepare(`SELECT id FROM users WHERE id > ? AND is_system_bot = 0 ORDER BY id ${limitClause(USER_PAGE)}`)
    .pluck()
    .all(after) as number[];
  if (pages.size >= KEPT_PAGES) pages.clear();
  pages.set(after, { at, ids });
  return ids;
}

/** The view settings kept per connection, as of a change of the log, while the organization's settings are unchanged. */
const keptViewSettings = new WeakMap<Db, { at: number; settings: ViewSettings }>();

/** viewSettings in a transaction that has just read the change log (ChangeLog.sync, newest change `at`): read again only once the settings changed. */
function viewSettingsAsOf(db: Db, at: number): ViewSettings {
  const kept = keptViewSettings.get(db);
  if (kept && changeLog(db).holds(kept.at, [dependency('realm', 0)])) return kept.settings;
  const settings = viewSettings(db);
  keptViewSettings.set(db, { at, settings });
  return settings;
}
