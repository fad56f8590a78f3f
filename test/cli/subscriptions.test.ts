import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSetting } from '../../src/cli/commands/subscriptions.js';
import { createChannel } from '../helpers/channels.js';
import { cliTarget, expectUsageError, jsonLines, parse, runCli, summariesIn } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe('subscriptions: parsing', () => {
  it('maps argv to options', async () => {
    const p = await parse(['subscriptions', 'set', '--channel', 'general', '--channel', '7', 'is_muted=true', 'color=#AABBCC']);
    expect(p.spec.path).toEqual(['subscriptions', 'set']);
    expect(p.opts).toMatchObject({
      channel: ['general', '7'],
      settings: [
        { property: 'is_muted', value: true },
        { property: 'color', value: '#aabbcc' },
      ],
    });
  });

  it('reads PROPERTY=VALUE settings with typed values', () => {
    expect(parseSetting('color=#AABBCC')).toEqual({ property: 'color', value: '#aabbcc' });
    expect(parseSetting('pin_to_top=false')).toEqual({ property: 'pin_to_top', value: false });
    expect(parseSetting('in_home_view=true')).toEqual({ property: 'in_home_view', value: true });
  });

  it.each([
    [['subscriptions', 'set', 'is_muted=true'], 'name at least one channel with --channel'],
    [['subscriptions', 'set', '--channel', 'general'], 'nothing to change: give PROPERTY=VALUE settings'],
    [['subscriptions', 'set', '--channel', 'general', 'loud=true'], 'unknown subscription property "loud"'],
    [['subscriptions', 'set', '--channel', 'general', 'is_muted=yes'], 'is_muted is true or false, not "yes"'],
    [['subscriptions', 'set', '--channel', 'general', 'color=red'], 'color is a hex colour such as #76ce90, not "red"'],
    [['subscriptions', 'set', '--channel', 'general', 'is_muted'], 'settings are PROPERTY=VALUE, not "is_muted"'],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('subscriptions commands over %s', (kind) => {
  let org: TestOrg;
  let n = 0;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const channel = async () => createChannel(org, await clientFor(org, kind), `subs-${kind}-${++n}`);
  const sub = (streamId: number) =>
    org.db
      .prepare('SELECT color, is_muted, pin_to_top, push_notifications FROM subscriptions WHERE user_id = ? AND stream_id = ?')
      .get(org.owner.id, streamId) as Record<string, unknown>;

  it('sets several properties on several channels, one request and one outcome row per channel', async () => {
    const a = await channel();
    const b = await channel();
    const t = await cliTarget(org, kind);
    const r = await runCli(
      [...t.args, 'subscriptions', 'set', '--channel', a.name, '--channel', String(b.id), 'color=#123ABC', 'is_muted=true', 'push_notifications=false'],
      { env: t.env },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`1\t${a.name}\ttrue\tupdated\t${a.id}\t\t\n2\t${b.id}\ttrue\tupdated\t${b.id}\t\t\n`);
    expect(r.stderr).toBe('chatctl: 2 updated, 0 failed\n');
    for (const c of [a, b]) expect(sub(c.id)).toEqual({ color: '#123abc', is_muted: 1, pin_to_top: 0, push_notifications: 0 });
  });

  it('reports each channel: the one applied stays applied, the refused one fails, exit 3', async () => {
    const a = await channel();
    const b = await channel();
    const member = org.addUser();
    org.db.prepare('INSERT INTO subscriptions (user_id, stream_id) VALUES (?, ?)').run(member.id, a.id);
    const t = await cliTarget(org, kind, member);
    const r = await runCli([...t.args, 'subscriptions', 'set', '--channel', a.name, '--channel', b.name, '--channel', 'nowhere', 'pin_to_top=true', '--json'], {
      env: t.env,
    });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout)).toEqual([
      { row: 1, target: a.name, ok: true, status: 'updated', id: a.id, error: null, code: null },
      { row: 2, target: b.name, ok: false, status: 'failed', id: null, error: `Not subscribed to channel ID ${b.id}`, code: 'BAD_REQUEST' },
      { row: 3, target: 'nowhere', ok: false, status: 'failed', id: null, error: "Channel 'nowhere' does not exist", code: 'BAD_REQUEST' },
    ]);
    expect(summariesIn(r.stderr)).toEqual(['1 updated, 2 failed']);
    const pinned = org.db.prepare('SELECT pin_to_top FROM subscriptions WHERE user_id = ? AND stream_id = ?').pluck();
    expect(pinned.get(member.id, a.id)).toBe(1);
  });

  it('prints the request of each channel with --dry-run and changes nothing', async () => {
    const a = await channel();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'subscriptions', 'set', '--channel', a.name, 'pin_to_top=true', '--dry-run'], { env: t.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      method: 'POST',
      path: '/api/v1/users/me/subscriptions/properties',
      body: { subscription_data: JSON.stringify([{ stream_id: a.id, property: 'pin_to_top', value: true }]) },
    });
    expect(sub(a.id).pin_to_top).toBe(0);
  });

  it('exits 3 for an unknown channel or one the server refuses (not subscribed), saying why', async () => {
    const t = await cliTarget(org, kind);
    const unknown = await runCli([...t.args, 'subscriptions', 'set', '--channel', 'nowhere', 'is_muted=true'], { env: t.env });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain("Channel 'nowhere' does not exist");
    const a = await channel();
    const other = org.addUser();
    const o = await cliTarget(org, kind, other);
    const refused = await runCli([...o.args, 'subscriptions', 'set', '--channel', a.name, 'is_muted=true'], { env: o.env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`Not subscribed to channel ID ${a.id}`);
  });

  it('lists subscriptions: JSON objects, piped TSV without header, a table on a terminal', async () => {
    const a = await channel();
    const t = await cliTarget(org, kind);
    const json = await runCli([...t.args, 'subscriptions', 'list', '--json'], { env: t.env });
    expect(json.code).toBe(0);
    const subs = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(subs.map((s) => s.name)).toContain('general');
    expect(subs.find((s) => s.name === a.name)).toMatchObject({ stream_id: a.id, color: expect.stringMatching(/^#/), is_muted: false, pin_to_top: false });
    const tsv = await runCli([...t.args, 'subscriptions', 'list', '--fields', 'stream_id,name,is_muted'], { env: t.env });
    expect(tsv.stdout.split('\n')).toContain(`${a.id}\t${a.name}\tfalse`);
    const table = await runCli([...t.args, 'subscriptions', 'list'], { env: { ...t.env, NO_COLOR: '1' }, tty: true });
    expect(table.stdout.split('\n')[0]).toMatch(/^STREAM_ID\s+NAME\s+COLOR\s+IS_MUTED/);
    const withSubscribers = await runCli([...t.args, 'subscriptions', 'list', '--subscribers', '--json'], { env: t.env });
    expect((JSON.parse(withSubscribers.stdout) as { name: string; subscribers: number[] }[]).find((s) => s.name === a.name)!.subscribers).toEqual([
      org.owner.id,
    ]);
  });
});
