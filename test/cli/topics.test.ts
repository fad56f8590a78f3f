import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/api/operations/channels.js';
import { topicName } from '../../src/cli/commands/topics.js';
import { createChannel } from '../helpers/channels.js';
import { cliTarget, expectUsageError, parse, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe('topics: parsing', () => {
  it('maps argv to options', async () => {
    const p = await parse(['topics', 'mute', '--channel', 'general', '--topic', 'lunch', '--dry-run']);
    expect(p.spec.path).toEqual(['topics', 'mute']);
    expect(p.opts).toMatchObject({ channel: 'general', topic: 'lunch', dryRun: true });
    const l = await parse(['topics', 'ls', '--policy', 'followed', '--json']);
    expect(l.spec.path).toEqual(['topics', 'list']);
    expect(l.opts).toMatchObject({ policy: 'followed', json: true });
  });

  it.each([
    [['topics', 'mute', '--topic', 'x'], '--channel is required'],
    [['topics', 'follow', '--channel', 'general'], "--topic is required ('' for the general-chat topic)"],
    [['topics', 'list', '--policy', 'hidden'], "argument 'hidden' is invalid"],
  ])('%j is a usage error', expectUsageError);

  it('takes "(no topic)" as the general-chat topic, ""', () => {
    expect(topicName('')).toBe('');
    expect(topicName('(no topic)')).toBe('');
    expect(topicName('lunch')).toBe('lunch');
  });
});

describe.each(TRANSPORTS)('topics commands over %s', (kind) => {
  let org: TestOrg;
  let n = 0;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const channel = async () => createChannel(org, await clientFor(org, kind), `topics-${kind}-${++n}`);

  const policy = (streamId: number, topic: string): number | undefined =>
    (
      org.db.prepare('SELECT visibility_policy FROM user_topics WHERE user_id = ? AND stream_id = ? AND topic = ?').get(org.owner.id, streamId, topic) as
        | { visibility_policy: number }
        | undefined
    )?.visibility_policy;

  it('mutes, follows, unfollows and resets, by channel name or ID', async () => {
    const c = await channel();
    const t = await cliTarget(org, kind);
    const mute = await runCli([...t.args, 'topics', 'mute', '--channel', c.name, '--topic', 'lunch'], { env: t.env });
    expect(mute.code).toBe(0);
    expect(mute.stdout).toBe('');
    expect(mute.stderr).toBe(`chatctl: ${c.name} > lunch: muted\n`);
    expect(policy(c.id, 'lunch')).toBe(1);
    expect((await runCli([...t.args, 'topics', 'follow', '--channel', String(c.id), '--topic', 'lunch'], { env: t.env })).code).toBe(0);
    expect(policy(c.id, 'lunch')).toBe(3);
    expect((await runCli([...t.args, 'topics', 'unfollow', '--channel', `#${c.name}`, '--topic', 'lunch'], { env: t.env })).code).toBe(0);
    expect(policy(c.id, 'lunch')).toBeUndefined();
    await runCli([...t.args, 'topics', 'mute', '--channel', c.name, '--topic', 'lunch'], { env: t.env });
    expect((await runCli([...t.args, 'topics', 'reset', '--channel', c.name, '--topic', 'lunch', '-q'], { env: t.env })).stderr).toBe('');
    expect(policy(c.id, 'lunch')).toBeUndefined();
  });

  it('unmutes to "inherit" in an unmuted channel and to "unmuted" in a muted one', async () => {
    const c = await channel();
    const t = await cliTarget(org, kind);
    await runCli([...t.args, 'topics', 'mute', '--channel', c.name, '--topic', 'a'], { env: t.env });
    expect((await runCli([...t.args, 'topics', 'unmute', '--channel', c.name, '--topic', 'a'], { env: t.env })).code).toBe(0);
    expect(policy(c.id, 'a')).toBeUndefined();
    org.db.prepare('UPDATE subscriptions SET is_muted = 1 WHERE user_id = ? AND stream_id = ?').run(org.owner.id, c.id);
    expect((await runCli([...t.args, 'topics', 'unmute', '--channel', c.name, '--topic', 'a'], { env: t.env })).code).toBe(0);
    expect(policy(c.id, 'a')).toBe(2);
  });

  it("takes '' and (no topic) for the general-chat topic", async () => {
    const c = await channel();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'topics', 'mute', '--channel', c.name, '--topic', ''], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('> (no topic): muted');
    expect(policy(c.id, '')).toBe(1);
    await runCli([...t.args, 'topics', 'follow', '--channel', c.name, '--topic', '(no topic)'], { env: t.env });
    expect(policy(c.id, '')).toBe(3);
  });

  it('prints the request with --dry-run and changes nothing', async () => {
    const c = await channel();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'topics', 'follow', '--channel', c.name, '--topic', 'x', '--dry-run'], { env: t.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      method: 'POST',
      path: '/api/v1/user_topics',
      body: { stream_id: String(c.id), topic: 'x', visibility_policy: '3' },
    });
    expect(policy(c.id, 'x')).toBeUndefined();
  });

  it('exits 6 for an unknown channel', async () => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'topics', 'mute', '--channel', 'no-such-channel', '--topic', 'x'], { env: t.env });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("Channel 'no-such-channel' does not exist");
  });

  it('lists policies: JSON, filtered by channel and policy, piped TSV, a table on a terminal', async () => {
    const user = org.addUser();
    const c = await channel();
    const d = await channel();
    await (await clientFor(org, kind)).call(subscribe, { subscriptions: [{ name: c.name }, { name: d.name }], principals: [user.id] });
    const t = await cliTarget(org, kind, user);
    await runCli([...t.args, 'topics', 'mute', '--channel', c.name, '--topic', 'noise'], { env: t.env });
    await runCli([...t.args, 'topics', 'follow', '--channel', c.name, '--topic', 'news'], { env: t.env });
    await runCli([...t.args, 'topics', 'follow', '--channel', d.name, '--topic', 'other'], { env: t.env });

    const json = await runCli([...t.args, 'topics', 'list', '--json'], { env: t.env });
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(rows.map((r) => [r.channel, r.topic_name, r.visibility_policy, r.policy])).toEqual([
      [c.name, 'news', 3, 'followed'],
      [c.name, 'noise', 1, 'muted'],
      [d.name, 'other', 3, 'followed'],
    ]);
    expect(rows[1]).toMatchObject({ stream_id: c.id, last_updated: expect.any(Number) });

    const filtered = await runCli([...t.args, 'topics', 'list', '--channel', c.name, '--policy', 'followed', '--fields', 'topic_name,policy'], { env: t.env });
    expect(filtered.stdout).toBe('news\tfollowed\n');

    const table = await runCli([...t.args, 'topics', 'list', '--channel', d.name], { env: { ...t.env, NO_COLOR: '1' }, tty: true });
    expect(table.stdout.split('\n')[0]).toMatch(/^CHANNEL\s+TOPIC_NAME\s+POLICY\s+LAST_UPDATED$/);
    // Times read as RFC 3339 in a table; JSON keeps the wire's UNIX seconds (above).
    expect(table.stdout.split('\n')[1]).toMatch(new RegExp(`^${d.name}\\s+other\\s+followed\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`));

    const none = await runCli([...t.args, 'topics', 'list', '--policy', 'unmuted', '--json'], { env: t.env });
    expect(none.stdout).toBe('[]\n');
    // The queue read for the list is gone again.
    expect(org.db.prepare('SELECT count(*) FROM event_queues WHERE user_id = ?').pluck().get(user.id)).toBe(0);
  });
});
