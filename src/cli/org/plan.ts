/**
 * The planner: a desired document against the live organization, as changes, each with the requests that
 * make it. Pure: it reads nothing and sends nothing (the live organization is read before, by read.ts).
 *
 * Only the sections the file holds are managed, and in an object only the keys it gives. Objects match by
 * ID, then by natural key; a new key with the ID of a live object is a rename. Membership fields change
 * by adding and removing members, never by replacing the list. Changes come in the order apply sends
 * them: what others name first (folders, groups, users), memberships after the objects, removals last.
 */
import { createHash } from 'node:crypto';
import { LIMITS } from '../../api/limits.js';
import { ChatctlError, usageError } from '../core/errors.js';
import { isMembershipChange, isSystemGroupName, managedSections, memberFields, memberKey, naturalKey, objectKey } from './document.js';
import {
  type Action,
  type Change,
  isObj,
  type Json,
  LIST_SECTIONS,
  type ListSectionName,
  type LiveObj,
  type LiveOrg,
  type Obj,
  type OrgDoc,
  type Plan,
  type Ref,
  type SectionName,
  strings,
} from './model.js';
import { membershipDiff } from './membership-diff.js';
import { Cannot, isRealmGroupSetting, LIST_DECLS, PLAN_OPERATIONS, type Resolver, SETTINGS_FIELDS, settingsUpdate, type Writes } from './sections.js';

/** Deep equality of JSON values, ignoring key order. */
export function same(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && same(a[k], b[k]));
  }
  return false;
}

/**
 * A group-setting value as the server keeps it: an anonymous group's members and subgroups are sets (a
 * missing list is empty), and one subgroup with no members is that group itself. api_docs/group-setting-values.md:
 * "The server will canonicalize an object with an empty direct_member_ids list and a direct_subgroup_ids
 * list that contains just a single group ID to the integer format."
 */
function groupSettingForm(v: Json | undefined): Json | undefined {
  if (!isObj(v)) return v;
  const set = (x: Json | undefined, lower: boolean) =>
    [...new Set((Array.isArray(x) ? x : []).filter((e): e is string => typeof e === 'string').map((e) => (lower ? e.toLowerCase() : e)))].sort();
  const members = set(v.members, true);
  const subgroups = set(v.subgroups, false);
  return !members.length && subgroups.length === 1 ? subgroups[0]! : { members, subgroups };
}

/** Whether a field's file value and live value are the same, group-setting values compared as the server keeps them. */
const sameValue = (groupSetting: boolean, a: Json | undefined, b: Json | undefined): boolean =>
  groupSetting ? same(groupSettingForm(a), groupSettingForm(b)) : same(a, b);

const canonical = (v: Json | undefined): string =>
  v === undefined
    ? 'null'
    : Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : isObj(v)
        ? `{${Object.keys(v)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
            .join(',')}}`
        : JSON.stringify(v);

/** The live object a change is about (by ID, else natural key), or a setting's live value. */
function liveAt(live: LiveOrg, c: Pick<Change, 'section' | 'id' | 'name'>): Json {
  if (c.section === 'settings') return live.settings[c.name] ?? null;
  const section = c.section;
  const index = indexOf(section, live);
  return (c.id !== null ? index.byId.get(c.id) : index.byKey.get(naturalKey(section, c.name)))?.file ?? null;
}

/** A hash of the live state of every object `changes` touch: what a saved plan is checked against. */
export function fingerprint(live: LiveOrg, changes: readonly Pick<Change, 'section' | 'id' | 'name' | 'address'>[]): string {
  const parts = [...new Set(changes.map((c) => `${c.section}\u0000${c.id ?? ''}\u0000${c.name}`))].sort();
  const hash = createHash('sha256');
  for (const p of parts) {
    const [section, id, name] = p.split('\u0000') as [SectionName, string, string];
    const c = { section, id: id === '' ? null : /^\d+$/.test(id) && section !== 'domains' ? Number(id) : id, name };
    hash.update(`${p}\u0001${canonical(liveAt(live, c))}\u0002`);
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Where apply sends a change: what others name before those naming them, removals last. */
function phaseOf(c: Change): number {
  if (c.action === 'cannot' || c.action === 'conflict') return 20;
  const membership = isMembershipChange(c);
  if (c.action === 'remove') return membership ? 12 : 13;
  const order = c.address.endsWith('/(order)');
  const phases: Record<SectionName, number> = { domains: 0, profile_fields: 1, folders: 2, linkifiers: 3, groups: 5, users: 6, channels: 8, settings: 10 };
  if (order) return c.section === 'linkifiers' ? 4 : 11;
  return phases[c.section] + (membership ? 1 : 0);
}

interface Built {
  changes: Change[];
  /** Requests use refs to objects created in the plan; these are the keys created, by section. */
  created: Record<'groups' | 'folders' | 'channels', Set<string>>;
}

export interface PlanOptions {
  site: string;
}

/** The plan of `desired` against `live`. A field the server's level cannot take fails it, before anything is sent. */
export function makePlan(desired: OrgDoc, live: LiveOrg, o: PlanOptions): Plan {
  const managed = managedSections(desired);
  for (const name of managed) {
    const why = name === 'settings' ? undefined : live.unreadable[name];
    if (why)
      throw new ChatctlError(`the file manages ${name}, which this server cannot give: ${why}`, 'failure', `leave ${name} out of the file for this server`);
  }
  const built: Built = { changes: [], created: { groups: new Set(), folders: new Set(), channels: new Set() } };
  // Creations are known first, so that any request may refer to an object another creates.
  for (const name of ['groups', 'folders', 'channels'] as const) {
    for (const d of desired[name] ?? []) if (!match(name, d, live)) built.created[name].add(objectKey(name, d));
  }
  const r = resolver(live, built);
  for (const name of LIST_SECTIONS) if (desired[name]) planList(name, desired[name], live, r, built, desired);
  if (desired.settings) planSettings(desired.settings, live, r, built);
  guardOwners(live, built.changes);
  checkLevels(live.level, built.changes);
  const changes = built.changes
    .map((c, i) => ({ c, i }))
    .sort((a, b) => phaseOf(a.c) - phaseOf(b.c) || a.i - b.i)
    .map(({ c }) => c);
  return {
    format_version: 1,
    server: { site: o.site, feature_level: live.level, version: live.version },
    base_fingerprint: fingerprint(live, changes),
    managed,
    changes,
  };
}

/** Each section's live objects by ID and by natural key, built once a plan: matching is a lookup, not a scan. */
const indexes = new WeakMap<LiveOrg, Map<ListSectionName, { byId: Map<number | string, LiveObj>; byKey: Map<string, LiveObj> }>>();

function indexOf(section: ListSectionName, live: LiveOrg): { byId: Map<number | string, LiveObj>; byKey: Map<string, LiveObj> } {
  let all = indexes.get(live);
  if (!all) {
    all = new Map();
    indexes.set(live, all);
  }
  let index = all.get(section);
  if (!index) {
    const list = live.lists[section];
    index = { byId: new Map(list.map((l) => [l.id, l])), byKey: new Map(list.map((l) => [objectKey(section, l.file), l])) };
    all.set(section, index);
  }
  return index;
}

function match(section: ListSectionName, d: Obj, live: LiveOrg): LiveObj | undefined {
  const { byId, byKey } = indexOf(section, live);
  const id = d.id;
  return ((typeof id === 'number' || typeof id === 'string') && byId.get(id)) || byKey.get(objectKey(section, d));
}

function resolver(live: LiveOrg, built: Built): Resolver {
  const object = (section: 'groups' | 'folders' | 'channels', key: string): number | Ref | undefined => {
    if (section === 'groups' && live.groupIds.has(key)) return live.groupIds.get(key);
    const found = indexOf(section, live).byKey.get(key);
    if (found) return Number(found.id);
    return built.created[section].has(key) ? { $ref: `${section}/${key}` } : undefined;
  };
  const user = (email: string) => live.userIds.get(email.toLowerCase());
  return {
    level: live.level,
    live,
    user,
    object,
    groupSetting: (v) => {
      if (typeof v === 'string') return object('groups', v) ?? v;
      if (!isObj(v)) return v;
      const members = Array.isArray(v.members) ? v.members.flatMap((e) => (typeof e === 'string' ? (user(e) ?? []) : [])) : [];
      const subgroups = Array.isArray(v.subgroups) ? v.subgroups.flatMap((g) => (typeof g === 'string' ? (object('groups', g) ?? []) : [])) : [];
      return { direct_members: members, direct_subgroups: subgroups };
    },
  };
}

const risky = (action: Action, section: SectionName, changed: Obj | null): Change['risk'] =>
  action === 'remove' ? 'high' : action === 'rename' || (section === 'users' && changed && ('role' in changed || 'active' in changed)) ? 'medium' : 'low';

function push(
  built: Built,
  base: Pick<Change, 'address' | 'section' | 'id' | 'name' | 'action'> & { before: Obj | null; after: Obj | null; removals?: number; notifies?: number[] },
  writes: Writes,
  protectedWhy?: string,
): void {
  const cannot = protectedWhy !== undefined ? new Cannot(protectedWhy) : writes instanceof Cannot ? writes : undefined;
  if (!cannot && Array.isArray(writes) && !writes.length) return;
  built.changes.push({
    address: base.address,
    section: base.section,
    id: base.id,
    name: base.name,
    action: cannot ? 'cannot' : base.action,
    before: base.before,
    after: base.after,
    requests: cannot || !Array.isArray(writes) ? [] : writes,
    risk: risky(base.action, base.section, base.after),
    ...(cannot ? { reason: cannot.reason } : {}),
    removals: cannot ? 0 : (base.removals ?? 0),
    notifies: cannot ? [] : (base.notifies ?? []),
  });
}

function planList(section: ListSectionName, desired: readonly Obj[], live: LiveOrg, r: Resolver, built: Built, doc: OrgDoc): void {
  const d = LIST_DECLS[section];
  const protect = new Set((doc.protect?.[section] ?? []).map((k) => naturalKey(section, k)));
  const guard = (key: string) => (protect.has(naturalKey(section, key)) ? `protected: ${section} ${key} is under protect:` : undefined);
  const membershipFields = memberFields(section);
  const matched = new Map<LiveObj, number>();
  const renames: Rename[] = [];
  const order: { key: string; target: number | Ref; was?: string }[] = [];
  for (const [i, want] of desired.entries()) {
    const key = String(want[d.key]);
    const have = match(section, want, live);
    const address = `${section}/${key}`;
    // One object by its ID and another by its name can be the same object on the server; planning both would
    // send two contradicting changes to it, so the file is refused, as validate refuses a repeated ID or name.
    const first = have && matched.get(have);
    if (have && first !== undefined)
      throw usageError(
        `${section}[${i}] is ${section}/${String(have.file[d.key])} (id ${have.id}), which ${section}[${first}] names too`,
        'name each object once; a new object taking the name another is renamed from is added once the rename is applied',
      );
    if (!have) {
      const after = Object.fromEntries(Object.entries(want).filter(([k]) => k !== 'id'));
      const notifies = section === 'channels' ? addedPeople(strings(want.members), r) : [];
      push(built, { address, section, id: null, name: key, action: 'create', before: null, after, notifies }, d.create(want, r), guard(key));
      const ref: Ref = { $ref: `${section}/${key}` };
      for (const field of membershipFields.filter((f) => !(d.carries ?? []).includes(f))) {
        const add = strings(want[field]);
        if (add.length && d.members) {
          const writes = d.members(ref, key, field, add, [], r);
          push(built, { address: `${address}/${field}`, section, id: null, name: key, action: 'add', before: null, after: { [field]: add } }, writes.add);
        }
      }
      order.push({ key, target: ref });
      continue;
    }
    matched.set(have, i);
    const id = have.id;
    const liveKey = String(have.file[d.key]);
    order.push({ key, target: Number(have.id), was: liveKey });
    const changed: Obj = {};
    const before: Obj = {};
    for (const [field, value] of Object.entries(want)) {
      const spec = d.fields[field];
      if (!spec || spec.readOnly || spec.members) continue;
      if (
        field === d.key ? naturalKey(section, String(value)) === naturalKey(section, liveKey) : sameValue(spec.ref === 'groupSetting', value, have.file[field])
      )
        continue;
      changed[field] = value;
      before[field] = have.file[field] ?? null;
    }
    const rename = d.key in changed;
    const why = guard(liveKey) ?? guard(key) ?? (section === 'users' ? selfGuard(live, id, changed) : undefined);
    if (Object.keys(changed).length) {
      const merged: Obj = { ...have.file, ...want };
      push(
        built,
        { address: `${section}/${liveKey}`, section, id, name: key, action: rename ? 'rename' : 'update', before, after: changed },
        d.update(id, changed, merged, r),
        why,
      );
      const pushed = built.changes.at(-1);
      if (rename && pushed?.action === 'rename' && pushed.id === id) renames.push({ change: pushed, from: liveKey, to: key, merged });
    }
    for (const field of membershipFields) {
      if (!(field in want) || !d.members) continue;
      const norm = memberKey(field);
      const { add, remove } = membershipDiff(strings(want[field]), strings(have.file[field]), norm);
      const unknown =
        field === 'members' ? add.filter((e) => r.user(e) === undefined) : add.filter((g) => r.object('groups', g) === undefined && !isSystemGroupName(g));
      const known = add.filter((e) => !unknown.includes(e));
      const writes = d.members(Number(id), key, field, known, remove, r);
      const at = `${section}/${key}/${field}`;
      if (unknown.length)
        push(
          built,
          { address: at, section, id, name: key, action: 'cannot', before: null, after: { [field]: unknown } },
          new Cannot(`no such ${field === 'members' ? 'user' : 'group'} on the server: ${unknown.join(', ')}`),
        );
      if (known.length) {
        const notifies = section === 'channels' ? addedPeople(known, r) : [];
        push(built, { address: at, section, id, name: key, action: 'add', before: null, after: { [field]: known }, notifies }, writes.add, guard(liveKey));
      }
      if (remove.length) {
        push(
          built,
          { address: at, section, id, name: key, action: 'remove', before: { [field]: remove }, after: null, removals: remove.length },
          writes.remove,
          guard(liveKey),
        );
      }
    }
  }
  // Objects the file does not name: removed (reversibly) when pruned; bots only when the file names them.
  for (const have of live.lists[section]) {
    if (matched.has(have) || have.bot) continue;
    if (section === 'users' && have.file.active === false) continue;
    const key = String(have.file[d.key]);
    const why = guard(key) ?? (section === 'users' ? selfGuard(live, have.id, { active: false }) : undefined);
    push(
      built,
      { address: `${section}/${key}`, section, id: have.id, name: key, action: 'remove', before: have.file, after: null, removals: 1 },
      d.remove(have, r),
      why,
    );
  }
  orderRenames(section, renames, r, built);
  if (d.ordered && d.order) planOrder(section, order, live, r, built);
}

interface Rename {
  change: Change;
  from: string;
  to: string;
  merged: Obj;
}

/**
 * Renames to a name another object of the section is renamed from: the server refuses a name in use
 * (zerver/actions/streams.py do_rename_stream via check_stream_name_available, and the same for groups, folders,
 * fields), so the one freeing a name goes first, and a cycle (a swap) is broken by moving its first object to a
 * temporary name, renamed to its own once the name it takes is free. Renames are placed again in the slots
 * they held, so nothing else in the plan moves.
 */
function orderRenames(section: ListSectionName, renames: readonly Rename[], r: Resolver, built: Built): void {
  const d = LIST_DECLS[section];
  const byFrom = new Map(renames.map((x) => [naturalKey(section, x.from), x]));
  const blocker = (x: Rename): Rename | undefined => {
    const b = byFrom.get(naturalKey(section, x.to));
    return b === x ? undefined : b;
  };
  if (!renames.some(blocker)) return;
  const ordered: Rename[] = [];
  const placed = new Set<Rename>();
  const place = (xs: readonly Rename[]) => {
    for (const x of xs) {
      ordered.push(x);
      placed.add(x);
    }
  };
  for (const x of renames) {
    const chain: Rename[] = [];
    let y: Rename | undefined = x;
    while (y && !placed.has(y) && !chain.includes(y)) {
      chain.push(y);
      y = blocker(y);
    }
    const start = y && !placed.has(y) ? chain.indexOf(y) : -1;
    if (start >= 0) {
      const [first, ...rest] = chain.slice(start);
      const temporary = `renaming-${String(first!.change.id)}-${first!.to}`;
      const writes = d.update(first!.change.id!, { [d.key]: temporary }, { ...first!.merged, [d.key]: temporary }, r);
      if (!Array.isArray(writes)) return;
      // The last to move in the cycle frees the name the first takes: the first's own rename follows it.
      const last = rest[0]!;
      last.change.requests = [...last.change.requests, ...first!.change.requests];
      first!.change.requests = writes;
      place([first!, ...rest.reverse()]);
    }
    place(chain.slice(0, start >= 0 ? start : chain.length).reverse());
  }
  const slots = renames.map((x) => built.changes.indexOf(x.change)).sort((a, b) => a - b);
  ordered.forEach((x, i) => {
    built.changes[slots[i]!] = x.change;
  });
}

/**
 * A reorder when the file's objects are not in the file's order on the server (others keep theirs, after).
 * Objects are compared by what they are (their ID, or the request creating them), not by name, so that a
 * renamed object keeps its place; objects the plan creates come last on the server, in the file's order.
 */
function planOrder(
  section: ListSectionName,
  wanted: readonly { key: string; target: number | Ref; was?: string }[],
  live: LiveOrg,
  r: Resolver,
  built: Built,
): void {
  const d = LIST_DECLS[section];
  const position = new Map(live.lists[section].map((l, i) => [Number(l.id), i]));
  const at = (w: (typeof wanted)[number], i: number) => (typeof w.target === 'number' ? (position.get(w.target) ?? i) : live.lists[section].length + i);
  const now = wanted.map((w, i) => ({ w, p: at(w, i) })).sort((a, b) => a.p - b.p);
  if (now.every(({ w }, i) => w === wanted[i])) return;
  const targets = new Set(wanted.map((w) => w.target));
  const rest = live.lists[section].filter((l) => !targets.has(Number(l.id))).map((l) => Number(l.id));
  const ids = [...wanted.map((w) => w.target), ...rest];
  push(
    built,
    {
      address: `${section}/(order)`,
      section,
      id: null,
      name: '(order)',
      action: 'update',
      before: { order: now.map(({ w }) => w.was ?? w.key) },
      after: { order: wanted.map((w) => w.key) },
    },
    d.order ? d.order(ids, r) : [],
  );
}

function planSettings(desired: Obj, live: LiveOrg, r: Resolver, built: Built): void {
  const changed: Obj = {};
  const before: Obj = {};
  for (const [k, v] of Object.entries(desired)) {
    if (!(k in SETTINGS_FIELDS) || sameValue(isRealmGroupSetting(k), v, live.settings[k])) continue;
    // A setting newer than the level goes on to its request, which checkLevels refuses, failing the plan.
    if (!(k in live.settings) && (SETTINGS_FIELDS[k]?.level ?? 0) <= live.level) {
      push(
        built,
        { address: `settings/${k}`, section: 'settings', id: null, name: k, action: 'cannot', before: null, after: { [k]: v } },
        new Cannot(`this server does not give ${k} (realm_${k}) in POST /register`),
      );
      continue;
    }
    changed[k] = v;
    before[k] = live.settings[k] ?? null;
  }
  if (!Object.keys(changed).length) return;
  for (const k of Object.keys(changed)) {
    push(
      built,
      { address: `settings/${k}`, section: 'settings', id: null, name: k, action: 'update', before: { [k]: before[k]! }, after: { [k]: changed[k]! } },
      [settingsUpdate({ [k]: changed[k]! }, r)],
    );
  }
}

/** The caller's own role and account are never changed by a plan: a mistake would lock them out of the organization. */
function selfGuard(live: LiveOrg, id: number | string, changed: Obj): string | undefined {
  if (id !== live.callerId || !('role' in changed || changed.active === false)) return undefined;
  return 'never changes your own role or account (you are applying the plan)';
}

/** The last owner is never demoted nor deactivated: the plan leaves at least one owner. */
function guardOwners(live: LiveOrg, changes: Change[]): void {
  const owners = new Set(live.lists.users.filter((u) => u.file.role === 'owner' && u.file.active !== false && !u.bot).map((u) => u.id));
  const losing = changes.filter(
    (c) =>
      c.section === 'users' &&
      c.action !== 'cannot' &&
      c.id !== null &&
      owners.has(c.id) &&
      ((c.after && (('role' in c.after && c.after.role !== 'owner') || c.after.active === false)) || c.action === 'remove'),
  );
  const gaining = changes.filter((c) => c.section === 'users' && c.action !== 'cannot' && c.after?.role === 'owner').length;
  if (!losing.length || owners.size + gaining - losing.length >= 1) return;
  const last = losing[losing.length - 1]!;
  Object.assign(last, { action: 'cannot', requests: [], reason: 'never removes the last owner of the organization', removals: 0 });
}

/**
 * People Zulip tells they were added (by someone else): not the caller, not bots, not past the server's bulk
 * limit. zerver/views/streams.py send_messages_for_new_subscribers: a Notification Bot DM to each user
 * subscribed by another, unless more than max_bulk_new_subscription_messages were. Nobody is told of a group
 * membership or an unsubscription: zerver/actions/user_groups.py bulk_add_members_to_user_groups and
 * bulk_remove_members_from_user_groups write audit-log rows and send events, no message.
 */
function addedPeople(emails: readonly string[], r: Resolver): number[] {
  if (emails.length > LIMITS.bulkNewSubscriptionMessages) return [];
  const bots = new Set(r.live.lists.users.filter((u) => u.bot).map((u) => u.id));
  return emails.flatMap((e) => {
    const id = r.user(e);
    return id === undefined || id === r.live.callerId || bots.has(id) ? [] : [id];
  });
}

/**
 * Every request a field of which the server's level cannot take: the plan fails before anything is sent.
 * A removal is the exception: the file asked for nothing the level lacks, it only left an object out, so
 * a removal the level cannot make (a group's deactivation before 290) is shown as `!`, not sent, and the
 * rest of the plan stands.
 */
function checkLevels(level: number, changes: Change[]): void {
  const problems: string[] = [];
  for (const c of changes) {
    const own: string[] = [];
    for (const req of c.requests) {
      const op = PLAN_OPERATIONS.get(req.operation);
      if (!op) continue;
      if ((op.minFeatureLevel ?? 0) > level) own.push(`${req.method} ${req.path} needs feature level ≥ ${op.minFeatureLevel}`);
      for (const name of Object.keys(req.params)) {
        const min = op.params[name]?.minFeatureLevel ?? 0;
        if (min > level) own.push(`${name} needs feature level ≥ ${min}`);
      }
    }
    if (!own.length) continue;
    if (c.action === 'remove')
      Object.assign(c, { action: 'cannot', requests: [], removals: 0, reason: `the server (feature level ${level}) cannot remove it: ${own.join('; ')}` });
    else problems.push(...own.map((p) => `${c.address}: ${p}`));
  }
  if (problems.length)
    throw new ChatctlError(
      `the server (feature level ${level}) cannot take ${problems.length === 1 ? 'a change' : `${problems.length} changes`} of the plan:\n  ${problems.join('\n  ')}`,
      'failure',
      'leave those fields out of the file for this server',
    );
}
