/**
 * Completeness is a compile-time fact: the copies of an area's handler module, permission rows and
 * commands' classification with one operation left out, and of the handler index with one area left out,
 * fail `tsc`, each in its own file, naming what is missing. The copies live in a temporary folder that
 * `rootDirs` lays over the checkout, so their relative imports reach the real modules.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, operationsByArea } from '../../src/api/catalogue.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** `text` without the property `key` of an object literal as Biome lays it out: its first line to its closing bracket at the same indent. */
function withoutProperty(text: string, key: string): string {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.trimStart().startsWith(`${key}:`));
  if (first < 0) throw new Error(`no property ${key}`);
  const indent = lines[first]!.length - lines[first]!.trimStart().length;
  let end = first + 1;
  while (end < lines.length && (lines[end]!.trim() === '' || lines[end]!.length - lines[end]!.trimStart().length > indent)) end++;
  if (/^\s*[}\])]/.test(lines[end] ?? '') && lines[end]!.length - lines[end]!.trimStart().length === indent) end++;
  return [...lines.slice(0, first), ...lines.slice(end)].join('\n');
}

/** The errors `tsc` reports, each starting with its file's path, for the program of `copies` (paths in the checkout, with their text) over the checkout. */
function compileErrors(copies: Readonly<Record<string, string>>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'chatctl-completeness-'));
  try {
    for (const [path, text] of Object.entries(copies)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const tsconfig = {
      extends: join(ROOT, 'tsconfig.test.json'),
      compilerOptions: {
        rootDir: '/',
        rootDirs: [dir, ROOT],
        typeRoots: [join(ROOT, 'node_modules/@types')],
        // What a left-out binding leaves unused would name the operation too: only the missing key may.
        noUnusedLocals: false,
      },
      files: Object.keys(copies).map((path) => join(dir, path)),
      include: [],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    const run = spawnSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: dir, encoding: 'utf8' });
    return `${run.stdout}${run.stderr}`.split('\n').filter((line) => line.includes('error TS'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('an operation left out', () => {
  const files = {
    handlers: 'src/server/handlers/typing.ts',
    index: 'src/server/handlers/index.ts',
    permissions: 'test/server/permissions/typing.ts',
    commands: 'test/cli/operation-commands.ts',
  };
  it('fails tsc in each file that must bind it, naming it', () => {
    // The operation and area left out are real ones, so the test follows the catalogue.
    expect(operationsByArea.typing.map((op) => op.name)).toContain('set-message-edit-typing-status');
    const errors = compileErrors({
      [files.handlers]: withoutProperty(read(files.handlers), 'setMessageEditTypingStatus'),
      [files.index]: withoutProperty(read(files.index), 'typing'),
      [files.permissions]: withoutProperty(read(files.permissions), 'setMessageEditTypingStatus'),
      [files.commands]: withoutProperty(read(files.commands), 'setMessageEditTypingStatus'),
    });
    const at = (path: string) => errors.filter((line) => line.startsWith(`${path}(`));
    expect(at(files.handlers)).toEqual([
      expect.stringMatching(/Property 'setMessageEditTypingStatus' is missing in type .* but required in type 'Handlers<"typing">'/),
    ]);
    expect(at(files.index)).toEqual([expect.stringMatching(/Property 'typing' is missing in type/)]);
    expect(at(files.permissions)).toEqual([
      expect.stringMatching(/Property 'setMessageEditTypingStatus' is missing in type .* but required in type 'PermissionRows<"typing">'/),
    ]);
    expect(at(files.commands)).toEqual([expect.stringMatching(/Property 'setMessageEditTypingStatus' is missing in type/)]);
    // And nothing else: the copies compile over the checkout but for what was left out.
    expect(errors).toHaveLength(4);
  });
});

describe('the catalogue', () => {
  it("holds every operation the area modules declare, in its area's record", () => {
    const dir = join(ROOT, 'src/api/operations');
    const declared = readdirSync(dir)
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => {
        const area = file.slice(0, -3).replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
        return [...readFileSync(join(dir, file), 'utf8').matchAll(/^export const (\w+) = operation</gm)].map((m) => `${area}.${m[1]}`);
      });
    const listed = Object.entries(CATALOGUE).flatMap(([area, ops]) => Object.keys(ops).map((key) => `${area}.${key}`));
    expect(declared.length).toBeGreaterThan(80);
    expect(listed.sort()).toEqual(declared.sort());
  });
});
