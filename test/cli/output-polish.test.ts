/**
 * Human output (issue 14, point 5): one time format in tables (or --relative), roles by name, narrow
 * terminals keep the identifying columns, the progress count never shares a line with stdout's output, a
 * one-row run says a sentence, and a bulk run prints one summary. Machine formats keep what they printed.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE } from '../../src/api/roles.js';
import { main } from '../../src/cli/entry/main.js';
import { cliTarget, runCli, Sink } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

const RFC3339_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** Runs chatctl on one fake terminal: stdout and stderr write to the same screen, in order. */
async function onOneTerminal(argv: string[], env: Record<string, string>, o: { nowMs?: () => number; columns?: number } = {}) {
  const screen = new Sink();
  const stdin = new PassThrough();
  stdin.end();
  const io = { stdin, stdout: screen, stderr: screen, stdinIsTTY: true, stdoutIsTTY: true, stderrIsTTY: true, columns: o.columns ?? 120 };
  const code = await main(argv, { io, env: { ...env, NO_COLOR: '1' }, nowMs: o.nowMs });
  return { code, screen: screen.text };
}

/** What a terminal shows of `text`: each line as left after its last carriage return and erase. */
const visibleLines = (text: string): string[] => text.split('\n').map((line) => line.split('\r\u001b[2K').at(-1)!);

describe.each(TRANSPORTS)('human output over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('shows roles by name in tables, and keeps the numbers in TSV', async () => {
    const admin = org.addUser({ role: ROLE.admin, name: 'Ada Admin' });
    const t = await cliTarget(org, kind);
    const table = await runCli([...t.args, 'users', 'list', '--fields', 'user_id,role'], { env: { ...t.env, NO_COLOR: '1' }, tty: true });
    expect(table.stdout).toMatch(new RegExp(`\\n${admin.id}\\s+admin\\n`));
    const tsv = await runCli([...t.args, 'users', 'list', '--fields', 'user_id,role'], { env: t.env });
    expect(tsv.stdout).toContain(`${admin.id}\t200\n`);
  });

  it('shows every time in a table as RFC 3339 in UTC, or relative with --relative; TSV keeps the server text', async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind);
    const json = await runCli([...t.args, 'users', 'get', String(user.id), '--json'], { env: t.env });
    const joined = (JSON.parse(json.stdout) as { date_joined: string }).date_joined;
    const table = await runCli([...t.args, 'users', 'get', String(user.id), '--format', 'table'], { env: t.env });
    const shown = /date_joined\s+(\S+)/.exec(table.stdout)?.[1];
    expect(shown).toMatch(RFC3339_UTC);
    expect(new Date(shown!).getTime()).toBe(new Date(joined).getTime());
    const threeDaysLater = () => new Date(joined).getTime() + (3 * 24 + 1) * 3600 * 1000;
    const relative = await onOneTerminal([...t.args, 'users', 'get', String(user.id), '--relative'], t.env, { nowMs: threeDaysLater });
    expect(relative.screen).toMatch(/date_joined\s+3 days ago\n/);
    const tsv = await runCli([...t.args, 'users', 'list', '--fields', 'user_id,date_joined', '--relative'], { env: t.env });
    expect(tsv.stdout).toContain(`${user.id}\t${joined}\n`);
  });

  it('keeps the identifying columns whole on a narrow terminal, dropping or shrinking the others', async () => {
    const user = org.addUser({ email: `long-address-${kind}@example.com`, name: 'Someone Long' });
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'users', 'list'], { env: { ...t.env, NO_COLOR: '1' }, tty: true, columns: 60 });
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
    expect(lines[0]).toMatch(/^USER_ID\s+FULL_NAME\s+EMAIL(\s|$)/);
    expect(lines.find((l) => l.startsWith(`${user.id} `))).toMatch(new RegExp(`^${user.id}\\s+Someone Long\\s+${user.email}(\\s|$)`));
    expect(r.stdout).not.toContain('DATE_JOINED');
  });

  it('ends the progress count on its own line before a table, and clears it before each streamed row', async () => {
    const users = [org.addUser(), org.addUser(), org.addUser()];
    const t = await cliTarget(org, kind);
    const ids = users.map((u) => String(u.id));
    const table = await onOneTerminal([...t.args, 'users', 'reactivate', ...ids, '--format', 'table'], t.env);
    expect(table.code).toBe(0);
    const lines = visibleLines(table.screen);
    const head = lines.findIndex((l) => l.startsWith('ROW'));
    expect(lines[head]).toMatch(/^ROW\s+TARGET\s+OK\s+STATUS/);
    expect(lines.slice(0, head)).toEqual(['3/3 (100%)']);
    expect(lines.slice(head).join('\n')).not.toMatch(/\d\/3 \(/);

    const ndjson = await onOneTerminal([...t.args, 'users', 'reactivate', ...ids, '--format', 'ndjson'], t.env);
    const rows = visibleLines(ndjson.screen).filter((l) => l.startsWith('{'));
    expect(rows.map((l) => (JSON.parse(l) as { target: string }).target)).toEqual(ids);
  });

  it('says a one-row change as a sentence on stderr; JSON and TSV keep the outcome row on stdout', async () => {
    const [a, b, c] = [org.addUser(), org.addUser(), org.addUser()];
    const t = await cliTarget(org, kind);
    const table = await runCli([...t.args, 'users', 'deactivate', String(a.id), '--yes'], { env: t.env, tty: true });
    expect(table).toEqual({ code: 0, stdout: '', stderr: `Deactivated user ${a.id} (${a.email}, ${a.row.full_name}).\n` });
    const again = await runCli([...t.args, 'users', 'deactivate', String(a.id), '--yes'], { env: t.env, tty: true });
    expect(again.stderr).toBe(`User ${a.id} (${a.email}, ${a.row.full_name}) unchanged: already deactivated.\n`);
    const json = await runCli([...t.args, 'users', 'deactivate', String(b.id), '--yes', '--json'], { env: t.env });
    expect(JSON.parse(json.stdout)).toEqual({ row: 1, target: String(b.id), ok: true, status: 'deactivated', id: b.id, error: null, code: null });
    expect(json.stderr).toBe(`Deactivated user ${b.id} (${b.email}, ${b.row.full_name}).\n`);
    const tsv = await runCli([...t.args, 'users', 'deactivate', String(c.id), '--yes'], { env: t.env });
    expect(tsv.stdout).toBe(`1\t${c.id}\ttrue\tdeactivated\t${c.id}\t\t\n`);
    const missing = await runCli([...t.args, 'users', 'deactivate', '999999', '--yes'], { env: t.env, tty: true });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toBe('chatctl: No such user (BAD_REQUEST)\n');
  });

  it('prints one summary line for a bulk run', async () => {
    const users = [org.addUser(), org.addUser()];
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'users', 'reactivate', ...users.map((u) => String(u.id))], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('chatctl: 0 reactivated, 2 unchanged, 0 failed\n');
  });
});

describe('help', () => {
  it('sums up a nested group in a short declared line, not its commands joined', async () => {
    for (const [noun, group] of [
      ['channels', 'default-channels'],
      ['invite', 'link'],
    ] as const) {
      const r = await runCli([noun, '--help'], { columns: 200 });
      const line = r.stdout.split('\n').find((l) => l.trim().startsWith(group));
      expect(line).toBeDefined();
      expect(line).not.toContain(';');
    }
  });
});
