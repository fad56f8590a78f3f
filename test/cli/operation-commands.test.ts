/**
 * The commands' classification of operations (operation-commands.ts) holds: an operation is filed under
 * exactly the nouns whose modules import it, and `api only` exactly when no command's module does. The
 * nouns' modules are read from the command index; `completion` reaches every noun through that index, so
 * the index itself is not followed.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/api/catalogue.js';
import type { Operation } from '../../src/api/operation.js';
import { API_ONLY, OPERATION_COMMANDS } from './operation-commands.js';

const SRC = resolve(import.meta.dirname, '../../src');
const INDEX = resolve(SRC, 'cli/commands/index.ts');

/** Static imports (with what they import, unless type-only) and dynamic `import('…')`s. */
const STATEMENT = /^\s*import\s+(type\s+)?(\{[^}]*\}|\*\s+as\s+\w+|\w+)\s+from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

interface Module {
  /** Modules of src/cli it loads. */
  readonly next: string[];
  /** Operations it imports, as `<operations file>:<export name>`. */
  readonly ops: string[];
}

function readModule(file: string): Module {
  const next: string[] = [];
  const ops: string[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(STATEMENT)) {
    const specifier = m[3] ?? m[4]!;
    if (m[1] !== undefined || !specifier.startsWith('.')) continue;
    const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
    const rel = relative(SRC, target);
    if (rel.startsWith('cli/') && target !== INDEX) next.push(target);
    const operationsFile = /^api\/operations\/([\w-]+)\.ts$/.exec(rel)?.[1];
    if (operationsFile === undefined || !m[2]?.startsWith('{')) continue;
    for (const name of m[2].slice(1, -1).split(',')) {
      const imported = name.trim().split(/\s+as\s+/)[0]!;
      if (imported !== '' && !imported.startsWith('type ')) ops.push(`${operationsFile}:${imported}`);
    }
  }
  return { next, ops };
}

/** Every operation a set of modules reaches through src/cli. */
function reached(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const ops = new Set<string>();
  const stack = [...entries];
  for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const m = readModule(file);
    for (const op of m.ops) ops.add(op);
    stack.push(...m.next);
  }
  return ops;
}

/** Each noun of the command index with the modules its entry loads. */
function nouns(): Map<string, string[]> {
  const text = readFileSync(INDEX, 'utf8');
  const out = new Map<string, string[]>();
  const starts = [...text.matchAll(/name: '([\w-]+)'/g)];
  starts.forEach((m, i) => {
    const entry = text.slice(m.index, starts[i + 1]?.index ?? text.length);
    out.set(
      m[1]!,
      [...entry.matchAll(/import\('(\.\/[\w/-]+)\.js'\)/g)].map((f) => resolve(dirname(INDEX), `${f[1]}.ts`)),
    );
  });
  return out;
}

/** The classification the sources imply, in the shape of OPERATION_COMMANDS. */
function implied(): Record<string, Record<string, readonly string[] | typeof API_ONLY>> {
  const byOperation = new Map<string, string[]>();
  for (const [noun, files] of nouns()) {
    for (const op of reached(files)) byOperation.set(op, [...(byOperation.get(op) ?? []), noun]);
  }
  const fileOf = (area: string) => area.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return Object.fromEntries(
    Object.entries(CATALOGUE).map(([area, ops]) => [
      area,
      Object.fromEntries(
        Object.entries<Operation>(ops)
          .filter(([, op]) => op.before === undefined)
          .map(([key]) => {
            const users = byOperation.get(`${fileOf(area)}:${key}`);
            return [key, users === undefined ? API_ONLY : users.sort()];
          }),
      ),
    ]),
  );
}

describe('the commands of each operation', () => {
  it('reads the nouns of the command index and what their modules import', () => {
    const all = nouns();
    expect(all.get('channels')?.map((f) => relative(SRC, f))).toContain('cli/commands/channels-archive.ts');
    expect(reached(all.get('typing')!)).toContain('typing:setTypingStatus');
  });

  it('are the nouns whose modules import it, or `api only` when none does', () => {
    const declared = Object.fromEntries(
      Object.entries(OPERATION_COMMANDS).map(([area, ops]) => [
        area,
        Object.fromEntries(Object.entries<readonly string[] | typeof API_ONLY>(ops).map(([key, use]) => [key, use === API_ONLY ? use : [...use].sort()])),
      ]),
    );
    expect(declared).toEqual(implied());
  });
});
