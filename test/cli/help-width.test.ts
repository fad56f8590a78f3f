/**
 * Help fits the terminal it is printed on (80 columns when piped): command help, the top-level help and the
 * help topics alike. Example commands stay whole, to be copied.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { wrapText } from '../../src/cli/entry/wrap.js';

/** The lines longer than `width`, but for examples (`$ ...`, `chatctl ...`) and a single word too long to break. */
const overlong = (text: string, width: number): string[] =>
  text.split('\n').filter((l) => l.length > width && !/^\s+(\$ |chatctl )/.test(l) && /\s\S/.test(l.trim()));

describe('help width', () => {
  it.each([[['users', 'create', '--help']], [['--help']], [['help', 'output']], [['help', 'environment']], [['help', 'exit-codes']]])(
    '%j wraps at 60 columns on a narrow terminal and uses 150 on a wide one',
    async (argv) => {
      const narrow = await runCli(argv, { columns: 60, tty: true });
      expect(narrow.code).toBe(0);
      expect(overlong(narrow.stdout, 60)).toEqual([]);
      const wide = await runCli(argv, { columns: 150, tty: true });
      expect(wide.stdout.split('\n').length).toBeLessThan(narrow.stdout.split('\n').length);
    },
  );

  it('keeps example commands whole and hangs a row’s continuation under its description', () => {
    const example = "    chatctl users list --jq '.[] | select(.role <= 200) | .email' --format ndjson --fields a,b";
    expect(wrapText(example, 50)).toBe(example);
    expect(wrapText('  NAME      the first words of a long description that must wrap', 40)).toBe(
      '  NAME      the first words of a long\n            description that must wrap',
    );
    expect(wrapText('  a paragraph of prose that goes on and on past the edge', 40)).toBe('  a paragraph of prose that goes on and\n  on past the edge');
  });

  it('a piped help is 80 columns wide', async () => {
    const r = await runCli(['help', 'output'], { columns: 80 });
    expect(overlong(r.stdout, 80)).toEqual([]);
  });
});
