/**
 * A plan for people (grouped by section, removals first, `+ ~ - → !`, only the changed fields, names
 * beside IDs, and a last line with counts, requests, time under the rate limits and people notified) and
 * for machines (the versioned JSON document, or one change a line).
 */
import { API_BY_USER, type RateRule } from '../../api/rate-limits.js';
import { formatDuration, plural } from '../core/units.js';
import { type Change, type Json, type Plan, type SectionName, SECTIONS, SYMBOL } from './model.js';
import { LIST_DECLS } from './sections.js';
import { isMembershipChange } from './document.js';

const shown = (v: Json | undefined): string => {
  const text = JSON.stringify(v ?? null);
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
};

/** Seconds `requests` take under `rules`: each rule lets `calls` go per window, and the slowest rule sets the pace. */
function paceSeconds(requests: number, rules: readonly RateRule[]): number {
  return Math.max(0, ...rules.map((r) => Math.max(0, Math.ceil(requests / r.calls) - 1) * r.seconds));
}

const rulesText = (rules: readonly RateRule[]): string => rules.map((r) => `${r.calls}/${formatDuration(r.seconds).replace(/^1 /, '')}`).join(' and ');

function linesOf(c: Change): string[] {
  const id = c.id !== null && c.section !== 'domains' ? ` (id ${c.id})` : '';
  const head = `  ${SYMBOL[c.action]} ${c.address}${id}`;
  if (c.action === 'cannot') return [`${head}: cannot be made: ${c.reason ?? ''}`, ...fieldLines(c)];
  if (c.action === 'conflict') return [`${head}: conflict: ${c.reason ?? ''}`, ...fieldLines(c)];
  if (c.action === 'rename') {
    // The section's natural key, as the change carries it.
    const natural = c.section === 'settings' ? undefined : LIST_DECLS[c.section].key;
    const key = natural !== undefined && c.after && natural in c.after ? natural : undefined;
    return [`${head} → ${key ? String(c.after?.[key]) : ''}`, ...fieldLines(c, key)];
  }
  return [head, ...fieldLines(c)];
}

function fieldLines(c: Change, skip?: string): string[] {
  if (isMembershipChange(c)) {
    const sign = c.action === 'remove' ? '-' : '+';
    const values = Object.values(c.action === 'remove' ? (c.before ?? {}) : (c.after ?? {})).flatMap((v) => (Array.isArray(v) ? v : [v]));
    return [`      ${values.map((v) => `${sign}${String(v)}`).join(', ')}`];
  }
  if (c.action === 'create' || (c.action === 'remove' && c.before)) {
    const o = c.action === 'create' ? (c.after ?? {}) : {};
    return Object.entries(o).map(([k, v]) => `      ${k}: ${shown(v)}`);
  }
  const after = c.after ?? {};
  return Object.keys(after)
    .filter((k) => k !== skip)
    .map((k) => `      ${k}: ${shown(c.before?.[k])} → ${shown(after[k])}`);
}

interface Totals {
  create: number;
  change: number;
  rename: number;
  remove: number;
  cannot: number;
  conflicts: number;
  added: number;
  removedMembers: number;
  requests: number;
  notified: number;
}

function totals(plan: Plan): Totals {
  const count = (f: (c: Change) => boolean) => plan.changes.filter(f).length;
  const sum = (f: (c: Change) => number) => plan.changes.reduce((n, c) => n + f(c), 0);
  return {
    create: count((c) => c.action === 'create'),
    change: count((c) => c.action === 'update'),
    rename: count((c) => c.action === 'rename'),
    remove: count((c) => c.action === 'remove' && !isMembershipChange(c)),
    cannot: count((c) => c.action === 'cannot'),
    conflicts: count((c) => c.action === 'conflict'),
    added: sum((c) => (c.action === 'add' ? Object.values(c.after ?? {}).flat().length : 0)),
    removedMembers: sum((c) => (c.action === 'remove' && isMembershipChange(c) ? c.removals : 0)),
    requests: sum((c) => c.requests.length),
    notified: new Set(plan.changes.flatMap((c) => c.notifies)).size,
  };
}

/** `Plan: 2 to create, 5 to change, ...; 41 requests, about 1 min under 200/min and 2000/h; 3 people notified`. */
export function summaryLine(plan: Plan): string {
  const rules = API_BY_USER;
  const t = totals(plan);
  if (!plan.changes.length) return `In sync: ${plan.managed.join(', ') || 'nothing'} managed, no changes`;
  const members = t.added || t.removedMembers ? ` (memberships: +${t.added} −${t.removedMembers})` : '';
  const cannot = t.cannot ? `, ${t.cannot} cannot be made` : '';
  const conflicts = t.conflicts ? `, ${plural(t.conflicts, 'conflict')} (not applied)` : '';
  const time = paceSeconds(t.requests, rules);
  return (
    `Plan: ${t.create} to create, ${t.change} to change, ${t.rename} to rename, ${t.remove} to remove${members}${cannot}${conflicts}; ` +
    `${plural(t.requests, 'request')}, ${time ? `about ${formatDuration(time)}` : 'no wait'} under ${rulesText(rules)}; ` +
    `${t.notified === 1 ? '1 person' : `${t.notified} people`} will be notified`
  );
}

/** The plan for people: by section, removals first in each. */
export function planText(plan: Plan): string {
  const out: string[] = [];
  const bySection = (s: SectionName) => plan.changes.filter((c) => c.section === s);
  for (const section of SECTIONS) {
    const changes = bySection(section);
    if (!changes.length) continue;
    const rank = (c: Change) => (c.action === 'remove' ? 0 : c.action === 'cannot' || c.action === 'conflict' ? 2 : 1);
    out.push(
      section,
      ...changes
        .map((c, i) => ({ c, i }))
        .sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i)
        .flatMap(({ c }) => linesOf(c)),
    );
  }
  out.push(summaryLine(plan));
  return `${out.join('\n')}\n`;
}

/** One section's drift in a line, for cron: `channels: 2 to create, 1 to change`. */
export function driftLines(plan: Plan): string[] {
  return plan.managed.map((section) => {
    const changes = plan.changes.filter((c) => c.section === section);
    if (!changes.length) return `${section}: in sync`;
    const by = new Map<string, number>();
    for (const c of changes) by.set(c.action, (by.get(c.action) ?? 0) + 1);
    const words: Record<string, string> = {
      create: 'to create',
      add: 'to add members',
      update: 'to change',
      rename: 'to rename',
      remove: 'to remove',
      cannot: 'that cannot be made',
      conflict: 'in conflict with production',
    };
    return `${section}: ${[...by].map(([a, n]) => `${n} ${words[a]}`).join(', ')}`;
  });
}
