import { describe, expect, it } from 'vitest';
import { Output, type OutputSpec } from '../../src/cli/output/output.js';
import { Sink } from '../helpers/cli.js';

const spec: OutputSpec = { fields: ['id', 'sent', 'made'], times: { sent: 's', made: 'ms' } };
const rows = [{ id: 1, sent: 1_700_000_000, made: 1_700_000_000_250 }];

async function render(format: 'table' | 'tsv' | 'csv' | 'json', tty = false): Promise<string> {
  const stdout = new Sink();
  const io = { stdin: process.stdin, stdout, stderr: new Sink(), stdinIsTTY: tty, stdoutIsTTY: tty, stderrIsTTY: tty, columns: 100 };
  await new Output(io, spec, { format }, false).list(rows);
  return stdout.text;
}

describe('times in output', () => {
  it('are RFC 3339 in UTC in tables, TSV and CSV, and the wire numbers in JSON', async () => {
    expect(await render('tsv')).toBe('1\t2023-11-14T22:13:20Z\t2023-11-14T22:13:20.250Z\n');
    expect(await render('csv')).toBe('id,sent,made\n1,2023-11-14T22:13:20Z,2023-11-14T22:13:20.250Z\n');
    expect((await render('table', true)).split('\n')[1]).toMatch(/^1\s+2023-11-14T22:13:20Z\s+2023-11-14T22:13:20\.250Z$/);
    expect(JSON.parse(await render('json'))).toEqual(rows);
  });
});
