/**
 * The folders of src/cli/ and which may import which (types included: a type from a folder above is still an
 * arrow pointing up). Read bottom-up: `core` (errors, io, units, value parsers) imports no other cli folder;
 * `output` prints; `command` declares what a command is (its declaration, options, `Context`, the tree and its
 * completions); `target`, `lookup` and `bulk` are what commands work with; the nouns' helpers and `api` use
 * those; `commands` declares every command; `entry` parses argv, wires the context and runs.
 */
import { describe, expect, it } from 'vitest';
import { graph, type Import } from './sources.js';

const HELPERS = ['bulk', 'lookup', 'target', 'command', 'core', 'output'] as const;

const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  core: [],
  output: ['core'],
  command: ['core', 'output'],
  target: ['command', 'core', 'output'],
  lookup: ['command', 'core', 'output'],
  bulk: ['lookup', 'target', 'command', 'core', 'output'],
  api: HELPERS,
  users: HELPERS,
  channels: HELPERS,
  invites: HELPERS,
  webhook: HELPERS,
  org: ['channels', ...HELPERS],
  commands: ['api', 'users', 'channels', 'invites', 'webhook', 'org', ...HELPERS],
  entry: ['commands', 'api', ...HELPERS],
};

/**
 * Arrows that break the order on purpose, each for a type only: `Context` names the `Target` it resolves,
 * whose module (target/) takes the options declared beside `Context`.
 */
const TYPE_EXCEPTIONS: readonly string[] = ['cli/command/context.ts → cli/target/target.ts'];

const folderOf = (module: string): string | null => {
  const parts = module.split('/');
  return parts[0] === 'cli' ? (parts.length > 2 ? parts[1]! : '') : null;
};

/** What breaks the folder rules in `modules` (paths relative to src/), one line each. */
function folderViolations(modules: ReadonlyMap<string, readonly (Import & { module: string })[]>): string[] {
  const out: string[] = [];
  for (const [file, imports] of modules) {
    const from = folderOf(file);
    if (from === null) continue;
    if (!(from in MAY_IMPORT)) {
      out.push(`src/${file} is in no cli folder with rules: move it into one, or give its folder a row`);
      continue;
    }
    for (const i of imports) {
      const to = folderOf(i.module);
      if (to === null || to === from) continue;
      if (MAY_IMPORT[from]!.includes(to)) continue;
      if (i.kind === 'type' && TYPE_EXCEPTIONS.includes(`${file} → ${i.module}`)) continue;
      out.push(`src/${file}:${i.line} imports src/${i.module} (cli/${from} may not import cli/${to})`);
    }
  }
  return out;
}

describe('cli folders', () => {
  it('every module of src/cli is in a folder, and every import between folders points down', () => {
    expect(folderViolations(graph())).toEqual([]);
  });

  it('names an arrow that points up, a loose module, and lets the declared type exception through', () => {
    const arrow = (module: string, kind: Import['kind'] = 'static'): Import & { module: string } => ({ specifier: '', kind, line: 3, module, names: [] });
    const modules = new Map([
      ['cli/core/units.ts', [arrow('cli/core/errors.ts'), arrow('cli/output/output.ts')]],
      ['cli/command/context.ts', [arrow('cli/target/target.ts', 'type')]],
      ['cli/command/command.ts', [arrow('cli/target/target.ts', 'type')]],
      ['cli/loose.ts', []],
      ['server/router.ts', [arrow('cli/entry/main.ts')]],
    ]);
    expect(folderViolations(modules)).toEqual([
      'src/cli/core/units.ts:3 imports src/cli/output/output.ts (cli/core may not import cli/output)',
      'src/cli/command/command.ts:3 imports src/cli/target/target.ts (cli/command may not import cli/target)',
      'src/cli/loose.ts is in no cli folder with rules: move it into one, or give its folder a row',
    ]);
  });
});
