/** The source tree the architecture tests read: every module under src/, and what each imports. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const SRC = resolve(import.meta.dirname, '../../src');

/** Every .ts module under `dir` (declaration files aside), as paths relative to src/. */
export function sourceFiles(dir: string = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [relative(SRC, path)] : [];
  });
}

export interface Import {
  specifier: string;
  kind: 'static' | 'type' | 'dynamic';
  line: number;
  /** What a static `import { … } from` takes by name (the exported names; type-only ones left out). */
  names: string[];
}

const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/**
 * The import specifiers of a module: `import … from`, `export … from`, side-effect imports and `import('…')`
 * (a call, or a type query). Comment lines are skipped so that prose naming a module does not count.
 */
export function importsOf(text: string): Import[] {
  const found: Import[] = [];
  const statement = /^(import|export)\s+(type\s+)?(?:([^;'"]*?)\sfrom\s*)?['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(statement)) {
    const clause = m[3]?.trim() ?? '';
    const names =
      !m[2] && clause.startsWith('{')
        ? clause
            .slice(1, -1)
            .split(',')
            .map((n) => n.trim())
            .filter((n) => n !== '' && !n.startsWith('type '))
            .map((n) => n.split(/\s+as\s+/)[0]!)
        : [];
    found.push({ specifier: m[4]!, kind: m[2] ? 'type' : 'static', line: lineAt(text, m.index), names });
  }
  const call = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(call)) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    if (/^\s*(\/\/|\/\*|\*)/.test(text.slice(lineStart, m.index))) continue;
    found.push({ specifier: m[1]!, kind: 'dynamic', line: lineAt(text, m.index), names: [] });
  }
  return found;
}

/** The module a relative specifier names, relative to src/ (`.js` in ESM specifiers is the `.ts` source). */
const target = (from: string, specifier: string): string => relative(SRC, resolve(SRC, dirname(from), specifier)).replace(/\.js$/, '.ts');

/** Every file's imports of modules in src/, resolved. */
export function graph(): Map<string, (Import & { module: string })[]> {
  return new Map(
    sourceFiles().map((file) => [
      file,
      importsOf(readFileSync(join(SRC, file), 'utf8'))
        .filter((i) => i.specifier.startsWith('.'))
        .map((i) => ({ ...i, module: target(file, i.specifier) })),
    ]),
  );
}
