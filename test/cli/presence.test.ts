import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updatePresence } from '../../src/api/operations/presence.js';
import { presenceStatus } from '../../src/cli/commands/presence.js';
import { cliTarget, expectUsageError, parse, runCli } from '../helpers/cli.js';
import { createTestOrg, TestClock, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe('presence: parsing and status', () => {
  it('maps argv to options', async () => {
    const p = await parse(['presence', 'set', 'idle', '--ping-only', '--dry-run']);
    expect(p.spec.path).toEqual(['presence', 'set']);
    expect(p.opts).toMatchObject({ status: 'idle', pingOnly: true, dryRun: true });
    const l = await parse(['presence', 'list', '--days', '2', '--offline-after', '600']);
    expect(l.opts).toMatchObject({ days: 2, offlineAfter: 600 });
  });

  it.each([
    [['presence', 'set', 'away'], 'presence is active or idle, not "away"'],
    [['presence', 'list', '--offline-after', '0'], '--offline-after takes a number of seconds, not "0"'],
    [['presence', 'list', '--days', 'many'], '--days takes a number of days, not "many"'],
    [['presence', 'set'], "missing required argument 'status'"],
  ])('%j is a usage error', expectUsageError);

  it('is active within the threshold, else idle while a client is connected, else offline', () => {
    expect(presenceStatus({ active_timestamp: 1000, idle_timestamp: 1000 }, 1100, 200)).toBe('active');
    expect(presenceStatus({ active_timestamp: 700, idle_timestamp: 1050 }, 1100, 200)).toBe('idle');
    expect(presenceStatus({ active_timestamp: 700, idle_timestamp: 800 }, 1100, 200)).toBe('offline');
    expect(presenceStatus({ active_timestamp: 700, idle_timestamp: 800 }, 1100, 500)).toBe('active');
  });
});

describe.each(TRANSPORTS)('presence commands over %s', (kind) => {
  let org: TestOrg;
  let active: TestUser;
  let idle: TestUser;
  let gone: TestUser;
  beforeAll(async () => {
    // The CLI's own embedded router keeps real time: the fixtures end at the real "now".
    org = createTestOrg({ clock: new TestClock(Math.floor(Date.now() / 1000) - 300) });
    active = org.addUser();
    idle = org.addUser();
    gone = org.addUser();
    const report = async (u: TestUser, status: 'active' | 'idle') => (await clientFor(org, kind, u)).call(updatePresence, { status, ping_only: true });
    await report(gone, 'active');
    await report(idle, 'active');
    org.clock.advance(300);
    await report(idle, 'idle');
    await report(active, 'active');
  });
  afterAll(() => org.close());

  const mine = (rows: Record<string, unknown>[]) => rows.filter((r) => [active.id, idle.id, gone.id].includes(r.user_id as number));

  it("lists users with a computed status, from the server's threshold and clock", async () => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'presence', 'list', '--json'], { env: t.env });
    expect(r.code).toBe(0);
    const now = org.clock.now();
    expect(mine(JSON.parse(r.stdout) as Record<string, unknown>[])).toEqual(
      [
        { user_id: idle.id, email: idle.email, full_name: idle.row.full_name, status: 'idle', active_timestamp: now - 300, idle_timestamp: now },
        { user_id: gone.id, email: gone.email, full_name: gone.row.full_name, status: 'offline', active_timestamp: now - 300, idle_timestamp: now - 300 },
        { user_id: active.id, email: active.email, full_name: active.row.full_name, status: 'active', active_timestamp: now, idle_timestamp: now },
      ].sort((a, b) => a.user_id - b.user_id),
    );
    // Listing reports nothing for the caller and leaves no queue behind.
    expect(org.db.prepare('SELECT count(*) FROM presence WHERE user_id = ?').pluck().get(org.owner.id)).toBe(0);
    expect(org.db.prepare('SELECT count(*) FROM event_queues').pluck().get()).toBe(0);
  });

  it('takes --offline-after, prints TSV when piped and a table on a terminal', async () => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'presence', 'list', '--offline-after', '400', '--fields', 'email,status'], { env: t.env });
    expect(r.stdout.split('\n')).toContain(`${gone.email}\tactive`);
    const table = await runCli([...t.args, 'presence', 'list'], { env: { ...t.env, NO_COLOR: '1' }, tty: true });
    expect(table.stdout.split('\n')[0]).toMatch(/^USER_ID\s+EMAIL\s+FULL_NAME\s+STATUS\s+ACTIVE_TIMESTAMP\s+IDLE_TIMESTAMP$/);
    expect(table.stdout).toMatch(new RegExp(`${active.id}\\s+${active.email.replace('.', '\\.')}\\s+.*\\sactive\\s`));
  });

  it("sets presence: --ping-only prints nothing; otherwise everyone's presence", async () => {
    const me = org.addUser();
    const t = await cliTarget(org, kind, me);
    const ping = await runCli([...t.args, 'presence', 'set', 'active', '--ping-only'], { env: t.env });
    expect(ping.code).toBe(0);
    expect(ping.stdout).toBe('');
    expect(ping.stderr).toBe('chatctl: presence reported: active\n');
    expect(org.db.prepare('SELECT last_active_time FROM presence WHERE user_id = ?').pluck().get(me.id)).toBeGreaterThanOrEqual(org.clock.now());
    const full = await runCli([...t.args, 'presence', 'set', 'idle', '--json'], { env: t.env });
    expect(full.code).toBe(0);
    const rows = JSON.parse(full.stdout) as Record<string, unknown>[];
    expect(rows.find((r) => r.user_id === me.id)).toMatchObject({ email: me.email, status: 'active' });
    expect(rows.find((r) => r.user_id === gone.id)).toMatchObject({ status: 'offline' });
  });

  it('prints the request with --dry-run and records nothing', async () => {
    const me = org.addUser();
    const t = await cliTarget(org, kind, me);
    const r = await runCli([...t.args, 'presence', 'set', 'idle', '--ping-only', '--dry-run'], { env: t.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ method: 'POST', path: '/api/v1/users/me/presence', body: { status: 'idle', ping_only: 'true' } });
    expect(org.db.prepare('SELECT count(*) FROM presence WHERE user_id = ?').pluck().get(me.id)).toBe(0);
  });

  it('is refused for a bot (exit 5), which may still list', async () => {
    const bot = org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
    const t = await cliTarget(org, kind, bot);
    const set = await runCli([...t.args, 'presence', 'set', 'active', '--ping-only'], { env: t.env });
    expect(set.code).toBe(5);
    expect(set.stderr).toContain('This endpoint does not accept bot requests.');
    const list = await runCli([...t.args, 'presence', 'list', '--fields', 'user_id'], { env: t.env });
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')).toContain(String(active.id));
  });
});
