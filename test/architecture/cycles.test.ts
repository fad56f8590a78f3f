/**
 * No import cycle among runtime modules in src/: a cycle makes the order in which modules initialize
 * depend on which one is loaded first, so a constant read at load time can be undefined. Type-only imports
 * are erased by the compiler and cannot form one; dynamic `import()` loads lazily and is not counted.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from './sources.js';

/** `import … from '…'`, `export … from '…'` and `import '…'`, with what comes between the keyword and `from`. */
const STATEMENT =
  /^\s*(?:import|export)\s+(type\s+)?(\*(?:\s+as\s+\w+)?|\{[^}]*\}|\w+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+\w+))?)\s+from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm;

/** Whether a clause imports only types: `type { … }`, or braces whose every name is marked `type`. */
function typeOnly(typeKeyword: string | undefined, clause: string): boolean {
  if (typeKeyword) return true;
  if (!clause.startsWith('{')) return false;
  const names = clause
    .slice(1, -1)
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith('type '));
}

/** The relative modules a source text imports at run time, as absolute .ts paths. */
function runtimeImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(STATEMENT)) {
    const specifier = m[3] ?? m[4]!;
    if (!specifier.startsWith('.')) continue;
    if (m[3] !== undefined && typeOnly(m[1], m[2]!)) continue;
    out.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
  }
  return out;
}

/** One cycle of `graph`, as the list of its modules with the first repeated at the end, or null. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (node: string): string[] | null => {
    if (onPath.has(node)) return [...path.slice(path.indexOf(node)), node];
    if (done.has(node)) return null;
    path.push(node);
    onPath.add(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    onPath.delete(node);
    done.add(node);
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

describe('runtime imports in src/', () => {
  it('reads value imports and skips type-only ones', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C, type D } from './c.js';",
      "import { type E, f } from './e.js';",
      "export { g } from './g.js';",
      "export type { H } from './h.js';",
      "import * as i from './i.js';",
      "import './j.js';",
      "import { k } from 'node:fs';",
      'import {\n  l,\n  m,\n} from "./l.js";',
    ].join('\n');
    const names = runtimeImports('/x/y.ts', text).map((p) => relative('/x', p));
    expect(names).toEqual(['a.ts', 'e.ts', 'g.ts', 'i.ts', 'j.ts', 'l.ts']);
  });

  it('finds a cycle and names its modules', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycle(graph)).toEqual(['a', 'b', 'c', 'a']);
    expect(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toBeNull();
  });

  it('form no cycle', () => {
    const graph = new Map(
      sourceFiles()
        .map((name) => join(SRC, name))
        .map((file) => [file, runtimeImports(file, readFileSync(file, 'utf8'))]),
    );
    const cycle = findCycle(graph);
    expect(cycle?.map((file) => relative(SRC, file)).join(' → ') ?? null).toBeNull();
  });
});
