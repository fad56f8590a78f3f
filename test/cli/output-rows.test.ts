/**
 * Output a person reads beside a run: a table piped somewhere (a file, a pager) is never cut to a terminal
 * width it does not have, and the progress count of a bulk run counts the rows done, not those skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTarget, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('output beside a run over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('--format table piped keeps every column and cell whole, wider than 80 columns', async () => {
    const long = `A very long full name that would not fit ${'x'.repeat(60)}`;
    org.addUser({ name: long, email: `long-name-${kind}@a-rather-long-domain-name.example.com` });
    const t = await cliTarget(org, kind);
    const piped = await runCli([...t.args, 'users', 'list', '--format', 'table'], { env: t.env, columns: 80 });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain(long);
    expect(piped.stdout).not.toContain('…');
    expect(Math.max(...piped.stdout.split('\n').map((l) => l.length))).toBeGreaterThan(80);
    // On an 80-column terminal the same table is fitted to it.
    const tty = await runCli([...t.args, 'users', 'list', '--format', 'table'], { env: { ...t.env, NO_COLOR: '1' }, tty: true, columns: 80 });
    expect(Math.max(...tty.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
  });

  it('the progress count of a bulk run ends at the rows done, not those --fail-fast skipped', async () => {
    const [a, b, c] = [org.addUser(), org.addUser(), org.addUser()];
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'users', 'deactivate', String(a.id), '999999', String(b.id), String(c.id), '--fail-fast', '--yes'], {
      env: { ...t.env, NO_COLOR: '1' },
      tty: true,
    });
    expect(r.code).toBe(3);
    // The last count drawn, on its own line: two rows were done (one deactivated, one failed), two skipped.
    const counts = [...r.stderr.matchAll(/(\d+)\/4 \(\d+%\)/g)].map((m) => Number(m[1]));
    expect(counts.at(-1)).toBe(2);
  });
});
