/**
 * Only the entry point ends the process (src/cli/run.ts): every other module returns or throws, and one
 * place maps errors to exit codes, so a command can be run in-process by tests and by other commands.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const ENTRY = 'cli/run.ts';

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

/** `process.exit(` in code, not in comments. */
const exits = (text: string): number => text.split('\n').filter((line) => /\bprocess\.exit\s*\(/.test(line.replace(/\/\/.*$|^\s*\*.*$/, ''))).length;

describe('the entry point', () => {
  it('is the only module that calls process.exit', () => {
    const callers = sources(SRC)
      .filter((file) => exits(readFileSync(file, 'utf8')) > 0)
      .map((file) => relative(SRC, file));
    expect(callers).toEqual([ENTRY]);
  });

  it('finds a call where there is one (the check can fail)', () => {
    expect(exits('  if (x) process.exit(1);')).toBe(1);
    expect(exits(' * process.exit(1) in a comment')).toBe(0);
  });
});
