/**
 * The command tree of one noun, as the program and the shell completions both walk it: every group
 * (`invite`, `invite link`) before the first command inside it, then the commands, in declaration order.
 * A group has no declaration of its own: a noun is summed up by its entry, a deeper group by its commands.
 */
import type { CommandSpec } from './command.js';

export interface NounEntry {
  name: string;
  summary: string;
  load(): Promise<readonly CommandSpec[]>;
}

export type TreeEntry = { kind: 'group'; path: readonly string[]; summary: string } | { kind: 'command'; spec: CommandSpec };

/** A group below a noun (`invite link`), summed up by its commands' summaries. */
export function groupSummary(specs: readonly CommandSpec[], prefix: readonly string[]): string {
  const inside = specs.filter((s) => s.path.length > prefix.length && prefix.every((w, i) => s.path[i] === w));
  return inside.map((s) => s.summary).join('; ');
}

export function treeOf(noun: NounEntry, specs: readonly CommandSpec[]): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const seen = new Set<string>();
  for (const spec of specs) {
    for (let depth = 1; depth < spec.path.length; depth++) {
      const path = spec.path.slice(0, depth);
      const words = path.join(' ');
      if (seen.has(words)) continue;
      seen.add(words);
      entries.push({ kind: 'group', path, summary: depth === 1 ? noun.summary : groupSummary(specs, path) });
    }
    entries.push({ kind: 'command', spec });
  }
  return entries;
}
