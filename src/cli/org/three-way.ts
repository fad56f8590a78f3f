/**
 * The three-way plan of a rehearsal: the base (the snapshot a copy was made from), mine (the copy now) and
 * theirs (production now), all three read into the same live model by read.ts.
 *
 * Design: the existing planner stays the one that turns a document into requests. This module only writes the
 * document to plan: desired = theirs + (mine − base), field by field. Every object production has now is named
 * (by its ID, with its natural key), so nothing is removed that the copy did not remove; an object carries only
 * the fields the copy changed since the base (a key left out is unmanaged, so production's own values stay);
 * memberships are production's list with the copy's additions and removals applied; objects made on the copy
 * carry no ID (their IDs were given by the copy, and production may have given the same ones to others) and so
 * match by natural key, which also finds one production made meanwhile. Where production changed the same
 * field since the base to another value than the copy, the field is left out of the document and a `conflict`
 * change says so: the plan never reverts production and never overwrites it. The planner then runs against
 * theirs as `org plan -f` does, with its checks (levels, owners, the caller's own account) and fingerprint.
 */
import { memberFields, memberKey, objectKey } from './document.js';
import { membershipDiff } from './membership-diff.js';
import {
  type Change,
  type Json,
  LIST_SECTIONS,
  type ListSectionName,
  type LiveObj,
  type LiveOrg,
  type Obj,
  type OrgDoc,
  type Plan,
  FORMAT,
  strings,
} from './model.js';
import { fingerprint, makePlan, same } from './plan.js';
import { LIST_DECLS } from './sections.js';

const shown = (v: Json | undefined): string => JSON.stringify(v ?? null);

function conflict(
  section: Change['section'],
  address: string,
  id: Change['id'],
  name: string,
  field: string,
  base: Json | undefined,
  theirs: Json | undefined,
  mine: Json | undefined,
): Change {
  return {
    address,
    section,
    id,
    name,
    action: 'conflict',
    before: { [field]: theirs ?? null },
    after: { [field]: mine ?? null },
    requests: [],
    risk: 'high',
    reason: `${field} changed on production since the mirror (${shown(base)} → ${shown(theirs)}) and on the copy (→ ${shown(mine)}); production's value stays`,
    removals: 0,
    notifies: [],
  };
}

interface Merge {
  doc: OrgDoc;
  conflicts: Change[];
}

/**
 * Production's list with what the copy added to and removed from the base's, or undefined when the copy changed
 * nothing in it. An account deactivated on the copy leaves every member list there: that is the deactivation's
 * doing (a change of its own), not a removal to send, which production would refuse for a deactivated account.
 */
function mergedMembers(
  field: string,
  base: Json | undefined,
  mine: Json | undefined,
  theirs: Json | undefined,
  gone: ReadonlySet<string>,
): string[] | undefined {
  const norm = memberKey(field);
  // What I changed: the members I added to the base, and those I took out of it (but for the people gone).
  const { add: added, remove } = membershipDiff(strings(mine), strings(base), norm);
  const removed = new Set(remove.filter((e) => !(field === 'members' && gone.has(norm(e)))).map(norm));
  if (!removed.size && !added.length) return undefined;
  const out = strings(theirs).filter((e) => !removed.has(norm(e)));
  const present = new Set(out.map(norm));
  for (const e of added) if (!present.has(norm(e))) out.push(e);
  return out.sort((a, b) => a.localeCompare(b));
}

/** One section of the document to plan, and its conflicts. */
function mergeList(section: ListSectionName, base: LiveOrg, mine: LiveOrg, theirs: LiveOrg, out: Merge): void {
  const d = LIST_DECLS[section];
  const membershipFields = new Set(memberFields(section));
  const byId = (org: LiveOrg) => new Map(org.lists[section].map((o) => [o.id, o]));
  const [baseById, mineById, theirsById] = [byId(base), byId(mine), byId(theirs)];
  const theirsByKey = new Map(theirs.lists[section].map((o) => [objectKey(section, o.file), o]));
  const deactivated = new Set(mine.lists.users.flatMap((u) => (u.file.active === false ? [String(u.file.email).toLowerCase()] : [])));
  const entries = new Map<LiveObj, Obj>();
  const created: Obj[] = [];
  const dropped = new Set<LiveObj>();
  let touched = false;

  /** The copy's changes to one object against its base, merged onto production's object. */
  const merge = (b: Obj | undefined, m: Obj, t: LiveObj, address: string, id: Change['id'], name: string): Obj => {
    const entry: Obj = { ...(t.file.id !== undefined ? { id: t.file.id } : {}), [d.key]: t.file[d.key] ?? null };
    for (const field of new Set([...Object.keys(m), ...Object.keys(b ?? {})])) {
      const spec = d.fields[field];
      if (field === 'id' || !spec || spec.readOnly) continue;
      const [bv, mv, tv] = [b?.[field], m[field], t.file[field]];
      if (membershipFields.has(field)) {
        const merged = mergedMembers(field, bv, mv, tv, deactivated);
        if (!merged) continue;
        entry[field] = merged;
        touched = true;
        continue;
      }
      if (b !== undefined && same(bv, mv)) continue;
      if (same(tv, mv)) continue;
      // Production's value moved away from the base: both changed it (an object made on both sides has no base).
      if (b === undefined ? tv !== undefined : !same(tv, bv)) {
        out.conflicts.push(conflict(section, address, id, name, field, bv, tv, mv));
        touched = true;
        continue;
      }
      if (mv !== undefined) entry[field] = mv;
      touched = true;
    }
    return entry;
  };

  for (const m of mine.lists[section]) {
    const b = baseById.get(m.id);
    if (b) {
      const t = theirsById.get(m.id);
      const name = String(b.file[d.key]);
      if (!t) {
        // Gone from production since the mirror: a change of the copy to it cannot be made.
        const changed = Object.keys(m.file).filter((k) => k !== 'id' && !same(m.file[k], b.file[k]));
        if (changed.length) {
          out.conflicts.push({
            ...conflict(section, `${section}/${name}`, m.id, name, changed[0]!, b.file[changed[0]!], undefined, m.file[changed[0]!]),
            reason: `removed (or archived, or deactivated) on production since the mirror, and changed on the copy (${changed.join(', ')})`,
          });
          touched = true;
        }
        continue;
      }
      entries.set(t, merge(b.file, m.file, t, `${section}/${String(t.file[d.key])}`, t.id, name));
      continue;
    }
    // Made on the copy: by natural key on production (made there too meanwhile), else created.
    const t = theirsByKey.get(objectKey(section, m.file));
    const { id: _copyId, ...fields } = m.file;
    if (t) entries.set(t, merge(undefined, fields, t, `${section}/${String(t.file[d.key])}`, t.id, String(t.file[d.key])));
    else {
      created.push(fields);
      touched = true;
    }
  }
  // Removed on the copy since the base: removed on production too, unless production changed it meanwhile.
  for (const b of base.lists[section]) {
    if (mineById.has(b.id)) continue;
    const t = theirsById.get(b.id);
    if (!t) continue;
    touched = true;
    if (same(t.file, b.file)) dropped.add(t);
    else
      out.conflicts.push({
        ...conflict(section, `${section}/${String(t.file[d.key])}`, t.id, String(t.file[d.key]), d.key, b.file[d.key], t.file[d.key], null),
        reason: 'removed on the copy, and changed on production since the mirror: it stays',
      });
  }
  const reordered = mineOrderChanged(section, base, mine);
  if (!touched && !reordered) return;
  // Every object production has is named (an object left out would be removed), in the order wanted.
  const list: Obj[] = [];
  const order = reordered
    ? [...mine.lists[section].flatMap((m) => theirsById.get(m.id) ?? []), ...theirs.lists[section].filter((t) => !mineById.has(t.id))]
    : theirs.lists[section];
  for (const t of order)
    if (!dropped.has(t)) list.push(entries.get(t) ?? { ...(t.file.id !== undefined ? { id: t.file.id } : {}), [d.key]: t.file[d.key] ?? null });
  out.doc[section] = [...list, ...created];
}

/** Whether the copy reordered an ordered section's objects it had from the base. */
function mineOrderChanged(section: ListSectionName, base: LiveOrg, mine: LiveOrg): boolean {
  if (!LIST_DECLS[section].ordered) return false;
  const had = new Set(base.lists[section].map((o) => o.id));
  const still = new Set(mine.lists[section].map((o) => o.id));
  const before = base.lists[section].filter((o) => still.has(o.id)).map((o) => o.id);
  const after = mine.lists[section].filter((o) => had.has(o.id)).map((o) => o.id);
  return !same(before, after);
}

function mergeSettings(base: LiveOrg, mine: LiveOrg, theirs: LiveOrg, out: Merge): void {
  const settings: Obj = {};
  for (const [k, mv] of Object.entries(mine.settings)) {
    const [bv, tv] = [base.settings[k], theirs.settings[k]];
    if (same(bv, mv) || same(tv, mv)) continue;
    if (!same(tv, bv)) out.conflicts.push(conflict('settings', `settings/${k}`, null, k, k, bv, tv, mv));
    else settings[k] = mv;
  }
  if (Object.keys(settings).length) out.doc.settings = settings;
}

/** The document production must become for the copy's changes since the base, and where both sides changed one thing. */
function threeWayDocument(base: LiveOrg, mine: LiveOrg, theirs: LiveOrg): Merge {
  const out: Merge = { doc: { chatctl: FORMAT }, conflicts: [] };
  mergeSettings(base, mine, theirs, out);
  for (const section of LIST_SECTIONS) {
    if (base.unreadable[section] || mine.unreadable[section] || theirs.unreadable[section]) continue;
    mergeList(section, base, mine, theirs, out);
  }
  return out;
}

/** The plan against production of what changed on the copy, with its conflicts (never sent; apply refuses them). */
export function threeWayPlan(base: LiveOrg, mine: LiveOrg, theirs: LiveOrg, site: string): Plan {
  const { doc, conflicts } = threeWayDocument(base, mine, theirs);
  const plan = makePlan(doc, theirs, { site });
  const changes = [...plan.changes, ...conflicts];
  const managed = [...new Set([...plan.managed, ...conflicts.map((c) => c.section)])];
  return { ...plan, managed, changes, base_fingerprint: fingerprint(theirs, changes) };
}
