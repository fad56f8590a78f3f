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
import { graph, SRC } from '../architecture/sources.js';
import { API_ONLY, OPERATION_COMMANDS } from './operation-commands.js';

const INDEX = resolve(SRC, 'cli/commands/index.ts');
const IMPORTS = graph();

/** Every operation a set of modules (paths under src/) reaches through src/cli, as `<operations file>:<export name>`. */
function reached(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const ops = new Set<string>();
  const stack = entries.map((f) => relative(SRC, f));
  for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const i of IMPORTS.get(file) ?? []) {
      if (i.kind === 'type') continue;
      if (i.module.startsWith('cli/') && i.module !== relative(SRC, INDEX)) stack.push(i.module);
      const operationsFile = /^api\/operations\/([\w-]+)\.ts$/.exec(i.module)?.[1];
      if (operationsFile !== undefined) for (const name of i.names) ops.add(`${operationsFile}:${name}`);
    }
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
