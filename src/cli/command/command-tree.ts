/**
 * The command tree of one noun, as the program and the shell completions both walk it: every group
 * (`invite`, `invite link`) before the first command inside it, then the commands, in declaration order.
 * A group has no command of its own: a noun is summed up by its entry, a deeper group by the short summary
 * its noun declares for it (its commands' summaries joined read as a run-on line in help).
 */
import type { CommandSpec } from './command.js';

export interface NounEntry {
  name: string;
  summary: string;
  /** The summaries of the groups below the noun, by their words after it (`link` for `invite link`). */
  groups?: Readonly<Record<string, string>>;
  /** Machinery for the shells (`__complete`): left out of help and of the completions. */
  hidden?: boolean;
  load(): Promise<readonly CommandSpec[]>;
}

export type TreeEntry = { kind: 'group'; path: readonly string[]; summary: string } | { kind: 'command'; spec: CommandSpec };

/** A group below a noun (`invite link`), as its noun declares it; a group left undeclared is a bug in the tree. */
function groupSummary(noun: NounEntry, path: readonly string[]): string {
  const words = path.slice(1).join(' ');
  const summary = noun.groups?.[words];
  if (summary === undefined) throw new Error(`no summary declared for the group "${path.join(' ')}"`);
  return summary;
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
      entries.push({ kind: 'group', path, summary: depth === 1 ? noun.summary : groupSummary(noun, path) });
    }
    entries.push({ kind: 'command', spec });
  }
  return entries;
}
