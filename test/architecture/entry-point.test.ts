/**
 * Only the entry point ends the process (src/cli/entry/run.ts): every other module returns or throws, and one
 * place maps errors to exit codes, so a command can be run in-process by tests and by other commands.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from './sources.js';

const ENTRY = 'cli/entry/run.ts';

/** `process.exit(` in code, not in comments. */
const exits = (text: string): number => text.split('\n').filter((line) => /\bprocess\.exit\s*\(/.test(line.replace(/\/\/.*$|^\s*\*.*$/, ''))).length;

describe('the entry point', () => {
  it('is the only module that calls process.exit', () => {
    const callers = sourceFiles().filter((file) => exits(readFileSync(join(SRC, file), 'utf8')) > 0);
    expect(callers).toEqual([ENTRY]);
  });

  it('finds a call where there is one (the check can fail)', () => {
    expect(exits('  if (x) process.exit(1);')).toBe(1);
    expect(exits(' * process.exit(1) in a comment')).toBe(0);
  });
});
