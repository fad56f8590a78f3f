/**
 * Applying a plan: its changes in the plan's (dependency) order, one request at a time through the client
 * (which paces under the server's rate limits), one outcome row per change (the bulk runner's), a journal
 * written after every request so that `--resume` continues after exit 75 or 130 without sending again what
 * was done. Removals are sent only for the sections `--prune` names, and refused above `--max-removals`.
 */
import { renameSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs } from '../../make-dirs.js';
import type { ChatClient } from '../../client/client.js';
import { organizationFile } from '../bulk/lock.js';
import { type BulkFlags, endsRun, type Outcome, runBulk } from '../bulk/runner.js';
import type { Context } from '../command/context.js';
import { ChatctlError, usageError } from '../core/errors.js';
import { Refusal } from '../core/refusal.js';
import { memberFields } from './document.js';
import { type Change, isObj, type Json, type LiveOrg, parseSections, type Plan, SECTIONS, type SectionName, SYMBOL } from './model.js';
import { isRef, PLAN_OPERATIONS } from './sections.js';

/** What `--max-removals` allows per section: a number, or a share of the section's objects and memberships. */
export type MaxRemovals = { count: number } | { percent: number };

/** The default: 10% of a section's objects and memberships (at least one). */
export const DEFAULT_MAX_REMOVALS: MaxRemovals = { percent: 10 };

export function parseMaxRemovals(value: string, name: string): MaxRemovals {
  const m = /^(\d+)(%?)$/.exec(value.trim());
  if (!m) throw usageError(`${name} takes a number of removals or a percentage (10%), not "${value}"`);
  return m[2] ? { percent: Number(m[1]) } : { count: Number(m[1]) };
}

export const parsePrune = (value: string, name: string): SectionName[] | 'all' => (value.trim() === 'all' ? 'all' : parseSections(value, name, ['all']));

/** Whether a change is a removal that `prune` leaves out. */
export const keptBack = (c: Change, prune: SectionName[] | 'all'): boolean => c.action === 'remove' && prune !== 'all' && !prune.includes(c.section);

/** Refuses a plan whose pruned removals exceed `max` in any section, before anything is sent. */
export function checkRemovals(plan: Plan, live: LiveOrg, prune: SectionName[] | 'all', max: MaxRemovals): void {
  const problems: string[] = [];
  for (const section of plan.managed) {
    if (section === 'settings') continue;
    const removals = plan.changes.filter((c) => c.section === section && c.action === 'remove' && !keptBack(c, prune)).reduce((n, c) => n + c.removals, 0);
    if (!removals) continue;
    const objects = live.lists[section];
    const memberships = objects.reduce(
      (n, o) =>
        n +
        memberFields(section).reduce((m, f) => {
          const v = o.file[f];
          return m + (Array.isArray(v) ? v.length : 0);
        }, 0),
      0,
    );
    const size = objects.length + memberships;
    // A share rounds down to at least one removal, so that 10% of a small section allows one; 0% asks for none.
    const limit = 'count' in max ? max.count : max.percent ? Math.max(1, Math.floor((size * max.percent) / 100)) : 0;
    if (removals > limit)
      problems.push(
        `${section}: ${removals} removals of ${size} objects and memberships, more than ${'count' in max ? max.count : `${max.percent}% (${limit})`}`,
      );
  }
  if (problems.length)
    throw new ChatctlError(
      `the plan removes too much: ${problems.join('; ')}`,
      'failure',
      'check the plan, then raise --max-removals (a number, or a percentage) if it is what you want',
    );
}

/** What a run has done, saved after every request. */
export interface Journal {
  plan: Plan;
  prune: SectionName[] | 'all';
  /** Requests sent and answered, as `change.request` indexes. */
  done: string[];
  /** IDs of objects the run created, by the reference later requests use. */
  created: Record<string, number>;
}

/** Where an organization's apply journal lives: beside its data (embedded) or in the config dir, named after the server. */
export function journalPath(ctx: Pick<Context, 'env' | 'target'>): string {
  const target = ctx.target();
  // The embedded one keeps the name it always had (org-apply.journal.json), the remote ones theirs (org-apply-SITE.json).
  return organizationFile(ctx, 'journals', target.kind === 'embedded' ? 'org-apply.journal' : 'org-apply', 'json');
}

export function saveJournal(path: string, j: Journal): void {
  makeDirs(join(path, '..'));
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(j), { mode: 0o600 });
  renameSync(tmp, path);
}

export function loadJournal(path: string): Journal | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const v: unknown = JSON.parse(text);
  if (!isObj(v) || !isObj(v.plan) || !Array.isArray(v.done) || !isObj(v.created)) throw new ChatctlError(`${path} is not an apply journal`);
  const created: Record<string, number> = {};
  for (const [k, id] of Object.entries(v.created)) if (typeof id === 'number') created[k] = id;
  const prune = v.prune === 'all' ? 'all' : Array.isArray(v.prune) ? v.prune.filter((s): s is SectionName => typeof s === 'string') : [];
  return { plan: asPlan(v.plan), prune, done: v.done.filter((d): d is string => typeof d === 'string'), created };
}

const ACTIONS = Object.keys(SYMBOL) as readonly Change['action'][];
const bad = (what: string): never => {
  throw usageError(`not a chatctl org plan: unknown ${what}`);
};

/** A saved plan (`plan --out`) as a plan, its shape checked. */
export function asPlan(v: unknown): Plan {
  if (
    !isObj(v) ||
    v.format_version !== 1 ||
    !Array.isArray(v.changes) ||
    !isObj(v.server) ||
    typeof v.base_fingerprint !== 'string' ||
    !Array.isArray(v.managed)
  ) {
    throw usageError('not a chatctl org plan (format_version 1)', 'make one with chatctl org plan -f FILE --out PLAN');
  }
  const server = v.server;
  const changes = v.changes.filter(isObj).map(
    (c): Change => ({
      address: String(c.address),
      section: SECTIONS.find((s) => s === c.section) ?? bad(`section ${String(c.section)}`),
      id: typeof c.id === 'number' || typeof c.id === 'string' ? c.id : null,
      name: String(c.name),
      action: ACTIONS.find((a) => a === c.action) ?? bad(`action ${String(c.action)}`),
      before: isObj(c.before) ? c.before : null,
      after: isObj(c.after) ? c.after : null,
      requests: (Array.isArray(c.requests) ? c.requests : []).filter(isObj).map((r) => ({
        operation: String(r.operation),
        method: String(r.method),
        path: String(r.path),
        params: isObj(r.params) ? r.params : {},
        ...(isObj(r.creates) ? { creates: { ref: String(r.creates.ref), key: String(r.creates.key) } } : {}),
      })),
      risk: c.risk === 'high' || c.risk === 'medium' ? c.risk : 'low',
      ...(typeof c.reason === 'string' ? { reason: c.reason } : {}),
      removals: typeof c.removals === 'number' ? c.removals : 0,
      notifies: Array.isArray(c.notifies) ? c.notifies.filter((n): n is number => typeof n === 'number') : [],
    }),
  );
  return {
    format_version: 1,
    server: { site: String(server.site), feature_level: Number(server.feature_level), version: String(server.version) },
    base_fingerprint: v.base_fingerprint,
    managed: v.managed.filter((s): s is SectionName => typeof s === 'string'),
    changes,
  };
}

/** Parameters with the references to objects created earlier in the run replaced by their IDs. */
function resolveRefs(v: Json, created: Readonly<Record<string, number>>): Json {
  if (isRef(v)) {
    const id = created[v.$ref];
    if (id === undefined) throw new Refusal(`refers to ${v.$ref}, which this run has not created (its change failed)`);
    return id;
  }
  if (Array.isArray(v)) return v.map((x) => resolveRefs(x, created));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveRefs(x, created)]));
  return v;
}

const PAST: Record<Change['action'], string> = {
  create: 'created',
  add: 'added',
  update: 'updated',
  rename: 'renamed',
  remove: 'removed',
  cannot: 'cannot',
  conflict: 'conflict',
};

/** Changes never sent: what cannot be made, and what production changed too since a rehearsal's mirror. */
const refused = (c: Change): boolean => c.action === 'cannot' || c.action === 'conflict';

/** Runs the journal's plan from where it stands; the journal is removed once the run has been through every change. */
export async function runJournal(ctx: Context, flags: BulkFlags, client: ChatClient, path: string, journal: Journal): Promise<void> {
  const { plan } = journal;
  const done = new Set(journal.done);
  const units = plan.changes.map((change, index) => ({ change, index }));
  // The journal outlives only a run that stopped before its end (exit 75, 130, a refusal every row would
  // meet): one that went through every change (exit 0, or 3 with the server's refusals) has nothing to resume.
  let stopped = false;
  try {
    await runBulk(
      ctx,
      { ...flags, concurrency: 1 },
      {
        units,
        verb: 'applied',
        pacer: client.pacer,
        rows: ({ change, index }) => [{ row: index + 1, target: change.address }],
        act: async ({ change, index }): Promise<Outcome[]> => {
          const row = { row: index + 1, target: change.address };
          if (refused(change)) return [{ ...row, ok: false, status: PAST[change.action], id: change.id, error: change.reason ?? 'cannot be made', code: null }];
          if (keptBack(change, journal.prune))
            return [{ ...row, ok: true, status: 'kept', id: change.id, error: `not removed: --prune ${change.section} was not given`, code: null }];
          let sent = 0;
          let id: number | string | null = change.id;
          for (const [j, req] of change.requests.entries()) {
            const key = `${index}.${j}`;
            if (done.has(key)) continue;
            const op = PLAN_OPERATIONS.get(req.operation);
            if (!op) throw new Refusal(`the plan names an operation chatctl does not send: ${req.operation}`);
            const params = resolveRefs(req.params, journal.created);
            const res: unknown = await client.call(op, params, { signal: ctx.signal });
            const made = req.creates && isObj(res) ? res[req.creates.key] : undefined;
            if (req.creates && typeof made === 'number') {
              id = made;
              journal.created[req.creates.ref] = made;
            }
            done.add(key);
            journal.done.push(key);
            saveJournal(path, journal);
            sent++;
          }
          return [{ ...row, ok: true, status: sent || !change.requests.length ? PAST[change.action] : 'unchanged', id, error: null, code: null }];
        },
      },
    );
  } catch (e) {
    stopped = endsRun(e);
    throw e;
  } finally {
    if (!stopped) rmSync(path, { force: true });
  }
}
