/**
 * Dependencies point down (docs/design.md): api ← client ← cli, api ← config ← cli, api ← server, and the
 * shared modules (src/*.ts) under all of them. The CLI reaches the embedded server only through its public
 * entries: server/embedded.ts (loads SQLite and the router, so imported lazily or for types) and
 * server/embedded-facts.ts (free of packages, so commands may name it statically). `import type` counts like
 * any import: a type from a layer above is still an arrow pointing up.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { graph, importsOf, SRC } from './sources.js';

type Layer = 'shared' | 'api' | 'client' | 'config' | 'server' | 'cli';

const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  shared: ['shared'],
  api: ['api', 'shared'],
  client: ['client', 'api', 'shared'],
  config: ['config', 'api', 'shared'],
  server: ['server', 'api', 'shared'],
  cli: ['cli', 'client', 'config', 'server', 'api', 'shared'],
};

/** The server modules the CLI may import, and how: the heavy entry only lazily or for its types. */
const HEAVY_ENTRY = 'server/embedded.ts';
const LIGHT_ENTRY = 'server/embedded-facts.ts';

function layerOf(file: string): Layer {
  const top = file.split('/')[0]!;
  if (!file.includes('/')) return 'shared';
  if (top === 'api' || top === 'client' || top === 'config' || top === 'server' || top === 'cli') return top;
  throw new Error(`src/${file} is in no layer: add its folder to the layers test`);
}

/** What breaks a rule, one line each: `file:line imports module (why)`. */
function violations(): string[] {
  const out: string[] = [];
  for (const [file, imports] of graph()) {
    const from = layerOf(file);
    for (const i of imports) {
      const where = `src/${file}:${i.line} imports src/${i.module}`;
      const to = layerOf(i.module);
      if (!MAY_IMPORT[from].includes(to)) {
        out.push(`${where} (${from} may not import ${to})`);
        continue;
      }
      if (from !== 'cli' || to !== 'server') continue;
      if (i.module === LIGHT_ENTRY) continue;
      if (i.module !== HEAVY_ENTRY) out.push(`${where} (the CLI reaches the server only through ${HEAVY_ENTRY} and ${LIGHT_ENTRY})`);
      else if (i.kind === 'static') out.push(`${where} statically (it loads SQLite and the router: await import() it, or import type)`);
    }
  }
  return out;
}

describe('layers', () => {
  it('every import points down, and the CLI enters the server only through its public entries', () => {
    expect(violations()).toEqual([]);
  });

  it('the light server entry loads no package, however deep (the CLI names it at start-up)', () => {
    const modules = graph();
    const seen = new Set<string>();
    const packages: string[] = [];
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const i of importsOf(readFileSync(join(SRC, file), 'utf8'))) {
        if (i.kind === 'type') continue;
        if (!i.specifier.startsWith('.')) packages.push(`src/${file}: ${i.specifier}`);
      }
      for (const i of modules.get(file) ?? []) if (i.kind !== 'type') visit(i.module);
    };
    visit(LIGHT_ENTRY);
    expect(packages).toEqual([]);
  });

  it('reads static, type-only, re-exported and dynamic imports, and skips comments', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {',
      '  c,',
      "} from './c.js';",
      "export { d } from './d.js';",
      'export const e = 1;',
      "import './side.js';",
      "const f = await import('./f.js');",
      " * as in import('./not-this.js')",
      "type G = typeof import('g');",
    ].join('\n');
    expect(importsOf(text).map((i) => [i.specifier, i.kind, i.line])).toEqual([
      ['./a.js', 'static', 1],
      ['../b.js', 'type', 2],
      ['./c.js', 'static', 3],
      ['./d.js', 'static', 6],
      ['./side.js', 'static', 8],
      ['./f.js', 'dynamic', 9],
      ['g', 'dynamic', 11],
    ]);
  });
});
