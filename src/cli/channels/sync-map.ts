/**
 * The map of `channels sync --map FILE`: who belongs in which channels. Two forms, by the file's extension:
 *
 * - `.json`: rules, each a source of users and the channels they belong in:
 *
 *       { "rules": [
 *           { "group": "engineering", "channels": ["engineering", "deploys"] },
 *           { "domain": "partner.example", "channels": ["partners"] },
 *           { "users": ["ada@example.com", 12], "channels": ["design"] } ] }
 *
 *   `group` is a user group by name or ID (its members through subgroups), `domain` an e-mail domain
 *   (active human users whose address is in it, exactly; never bots), `users` IDs or e-mails. Channels by
 *   name or ID.
 * - anything else (`.csv`, `.ndjson`, `.jsonl`): one row per user, columns `user` (ID or e-mail) and
 *   `channels` (names or IDs, comma-separated; a JSON array in JSON lines).
 *
 * A map is read and checked whole before anything is read from the server: every problem is listed at once.
 */
import { readFile } from 'node:fs/promises';
import { systemReason } from '../../errno.js';
import { cell, readRows, type Columns } from '../bulk/input.js';
import type { Context } from '../command/context.js';
import { usageError } from '../core/errors.js';

export type Source = { kind: 'group'; group: string } | { kind: 'domain'; domain: string } | { kind: 'users'; users: string[] };

export interface Rule {
  source: Source;
  channels: string[];
  /** How the plan names the rule that wants a change: `group engineering`, `domain example.com`, `rule 3`, `row 4`. */
  label: string;
}

export const MAP_COLUMNS: Columns = {
  user: { required: true, description: 'user ID or e-mail', json: 'id' },
  channels: { required: true, description: 'channel names or IDs, comma-separated', json: 'list' },
};

/** A name or an ID, as JSON may give either. */
const ref = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : undefined;

const refs = (v: unknown): string[] | undefined => {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  const out = v.map(ref);
  return out.every((r): r is string => r !== undefined) ? out : undefined;
};

const SOURCES = ['group', 'domain', 'users'] as const;

/** One rule of a JSON map, or what is wrong with it. */
function ruleOf(v: unknown, n: number): Rule | string {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'not an object';
  const o = v as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => k !== 'channels' && !SOURCES.some((s) => s === k));
  if (unknown.length) return `unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (keys: group, domain, users, channels)`;
  const given = SOURCES.filter((s) => s in o);
  if (given.length !== 1) return 'give exactly one of group, domain, users';
  const channels = refs(o.channels);
  if (!channels) return 'channels: a non-empty list of channel names or IDs';
  if ('group' in o) {
    const group = ref(o.group);
    return group ? { source: { kind: 'group', group }, channels, label: `group ${group}` } : 'group: a group name or ID';
  }
  if ('domain' in o) {
    const domain = typeof o.domain === 'string' ? o.domain.trim().replace(/^@/, '').toLowerCase() : '';
    return /^[^\s@]+\.[^\s@]+$/.test(domain)
      ? { source: { kind: 'domain', domain }, channels, label: `domain ${domain}` }
      : 'domain: an e-mail domain such as example.com';
  }
  const users = refs(o.users);
  return users ? { source: { kind: 'users', users }, channels, label: `rule ${n}` } : 'users: a non-empty list of user IDs or e-mails';
}

function jsonMap(text: string, file: string): Rule[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw usageError(`${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`, 'see chatctl channels sync --help for the map format');
  }
  const list = doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>).rules : undefined;
  if (!Array.isArray(list)) throw usageError(`${file}: the map is an object with a "rules" list`, 'see chatctl channels sync --help for the map format');
  const rules: Rule[] = [];
  const problems: string[] = [];
  list.forEach((v, i) => {
    const r = ruleOf(v, i + 1);
    if (typeof r === 'string') problems.push(`  rule ${i + 1}: ${r}`);
    else rules.push(r);
  });
  if (problems.length)
    throw usageError(
      `${file} has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}:\n${problems.join('\n')}`,
      'nothing was read or changed',
    );
  return rules;
}

/** The rules of the map file. */
export async function readMap(ctx: Context, file: string): Promise<Rule[]> {
  if (!/\.json$/i.test(file)) {
    const rows = await readRows(ctx, file, MAP_COLUMNS);
    return rows.map((row, i) => ({
      source: { kind: 'users', users: [cell(row, 'user').trim()] },
      channels: cell(row, 'channels')
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean),
      label: `row ${i + 1}`,
    }));
  }
  let text: string;
  try {
    text = await readFile(file, { encoding: 'utf8', signal: ctx.signal });
  } catch (e) {
    if (ctx.signal.aborted) throw e;
    throw usageError(`cannot read ${file}: ${systemReason(e)}`);
  }
  return jsonMap(text, file);
}
