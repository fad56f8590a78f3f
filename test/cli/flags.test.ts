import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/api/operations/channels.js';
import { sendMessage } from '../../src/api/operations/messages.js';
import { parseNarrow } from '../../src/cli/lookup/narrow.js';
import { cliTarget, expectUsageError, jsonLines, parse, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe('narrow syntax', () => {
  it('turns search words into terms: negation, quotes, IDs, user lists, the empty topic, bare words', () => {
    expect(parseNarrow('channel:general topic:"release notes" is:unread -sender:ada@example.com')).toEqual([
      { operator: 'channel', operand: 'general' },
      { operator: 'topic', operand: 'release notes' },
      { operator: 'is', operand: 'unread' },
      { operator: 'sender', operand: 'ada@example.com', negated: true },
    ]);
    expect(parseNarrow('channel:12 sender:8 dm:3,4 dm:a@x.test,b@x.test topic:\'\' -topic:"say \\"hi\\"" hello world')).toEqual([
      { operator: 'channel', operand: 12 },
      { operator: 'sender', operand: 8 },
      { operator: 'dm', operand: [3, 4] },
      { operator: 'dm', operand: 'a@x.test,b@x.test' },
      { operator: 'topic', operand: '' },
      { operator: 'topic', operand: 'say "hi"', negated: true },
      { operator: 'search', operand: 'hello world' },
    ]);
    expect(parseNarrow('topic:')).toEqual([{ operator: 'topic', operand: '' }]);
    expect(parseNarrow('')).toEqual([]);
    expect(parseNarrow(undefined)).toEqual([]);
  });

  it("takes the API's JSON list as it is", () => {
    const json = '[{"operator":"channel","operand":5},{"operator":"is","operand":"starred","negated":true},["topic","x"]]';
    expect(parseNarrow(json)).toEqual([{ operator: 'channel', operand: 5 }, { operator: 'is', operand: 'starred', negated: true }, ['topic', 'x']]);
  });

  it.each([
    ['bogus:x', 'unknown narrow operator "bogus"'],
    ['topic:"open', 'unterminated " quote in --narrow'],
    ['channel:', '"channel:" in --narrow needs a value'],
    ['[{"operator":"is"}]', '--narrow JSON must be a list of'],
    ['[not json', '--narrow is not valid JSON'],
  ])('refuses %j', (text, message) => {
    expect(() => parseNarrow(text)).toThrow(message);
  });
});

describe('flags: parsing', () => {
  it('maps argv to options', async () => {
    const p = await parse(['flags', 'add', 'read', '--narrow', 'channel:general', '--anchor', 'first_unread', '--after', '50', '--all', '--json']);
    expect(p.spec.path).toEqual(['flags', 'add']);
    expect(p.opts).toMatchObject({
      flag: 'read',
      narrow: [{ operator: 'channel', operand: 'general' }],
      anchor: 'first_unread',
      after: 50,
      all: true,
      json: true,
    });
    const r = await parse(['flags', 'remove', 'starred', '--before', '3', '--dry-run']);
    expect(r.opts).toMatchObject({ flag: 'starred', before: 3, dryRun: true });
  });

  it.each([
    [['flags', 'add', 'mentioned'], 'unknown flag "mentioned"'],
    [['flags', 'add', 'read', '--anchor', 'middle'], '--anchor takes newest, oldest, first_unread or a message ID, not "middle"'],
    [['flags', 'add', 'read', '--after', '-1'], '--after takes a number of messages, not "-1"'],
    [['flags', 'add', 'read', '--all', '--before', '5'], '--all walks forward from the anchor: --before must be 0'],
    [['flags', 'add', 'read', '--all', '--after', '0'], '--all needs --after > 0'],
    [['flags', 'add', 'read', '--narrow', 'nope:x'], 'unknown narrow operator "nope"'],
    [['flags', 'add'], "missing required argument 'flag'"],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('flags commands over %s', (kind) => {
  let org: TestOrg;
  let n = 0;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  /** A channel with `count` messages from someone else: all unread for the owner. */
  async function unreadChannel(count: number): Promise<{ name: string; ids: number[] }> {
    const name = `flags-${kind}-${++n}`;
    const poster = org.addUser();
    const owner = await clientFor(org, kind);
    await owner.call(subscribe, { subscriptions: [{ name }], principals: [org.owner.id, poster.id] });
    const as = await clientFor(org, kind, poster);
    const ids: number[] = [];
    for (let i = 0; i < count; i++) ids.push((await as.call(sendMessage, { type: 'stream', to: name, topic: i % 2 ? 'odd' : 'even', content: `m${i}` })).id);
    return { name, ids };
  }

  const unread = (ids: number[]) =>
    ids.filter(
      (id) =>
        ((org.db.prepare('SELECT flags FROM user_messages WHERE user_id = ? AND message_id = ?').get(org.owner.id, id) as { flags: number }).flags & 1) === 0,
    );

  it('marks one range read and prints the response fields (piped: one TSV line)', async () => {
    const c = await unreadChannel(3);
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'flags', 'add', 'read', '--narrow', `channel:${c.name} topic:even`], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`2\t2\t${c.ids[0]}\t${c.ids[2]}\ttrue\ttrue\t\n`);
    expect(unread(c.ids)).toEqual([c.ids[1]]);
  });

  it('prints a field/value table on a terminal and the object with --json', async () => {
    const c = await unreadChannel(2);
    const t = await cliTarget(org, kind);
    const table = await runCli([...t.args, 'flags', 'add', 'starred', '--narrow', `channel:${c.name}`, '--anchor', 'newest', '--before', '1', '--after', '0'], {
      env: { ...t.env, NO_COLOR: '1' },
      tty: true,
    });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^FIELD\s+VALUE\nprocessed_count\s+1\n/);
    expect(table.stdout).toMatch(new RegExp(`last_processed_id\\s+${c.ids[1]}\\n`));
    const json = await runCli([...t.args, 'flags', 'remove', 'starred', '--narrow', `channel:${c.name}`, '--json'], { env: t.env });
    expect(JSON.parse(json.stdout)).toEqual({
      // The channel's creation message (Notification Bot's) is processed too; only the one starred is updated.
      processed_count: 3,
      updated_count: 1,
      first_processed_id: org.db.prepare('SELECT min(m.id) FROM messages m JOIN streams s ON s.id = m.stream_id WHERE s.name = ?').pluck().get(c.name),
      last_processed_id: c.ids[1],
      found_oldest: true,
      found_newest: true,
      ignored_because_not_subscribed_channels: null,
    });
  });

  it('walks the whole narrow with --all: one JSON line per batch, a summary on stderr', async () => {
    const c = await unreadChannel(5);
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'flags', 'add', 'read', '--narrow', `channel:${c.name}`, '--all', '--after', '2', '--json'], { env: t.env });
    expect(r.code).toBe(0);
    const batches = jsonLines(r.stdout);
    expect(batches.map((b) => [b.batch, b.processed_count, b.updated_count, b.found_newest])).toEqual([
      [1, 2, 2, false],
      [2, 2, 2, false],
      [3, 1, 1, true],
    ]);
    expect(batches[1]!.first_processed_id).toBe(c.ids[2]);
    expect(r.stderr).toContain('chatctl: 5 messages processed in 3 batches; "read" added to 5');
    expect(unread(c.ids)).toEqual([]);
  });

  it('shows progress on a terminal, never on stdout', async () => {
    const c = await unreadChannel(3);
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'flags', 'add', 'read', '--narrow', `channel:${c.name}`, '--all', '--after', '1', '--format', 'ndjson'], {
      env: t.env,
      tty: true,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('\r\u001b[2K3 messages processed\n');
    // The batch that reaches the last message cannot tell it was the last: one more, empty, says so.
    expect(jsonLines(r.stdout).map((b) => b.processed_count)).toEqual([1, 1, 1, 0]);
    expect(r.stderr).toContain('3 messages processed in 4 batches');
  });

  it('prints the first request with --dry-run and changes nothing', async () => {
    const c = await unreadChannel(2);
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'flags', 'add', 'read', '--narrow', `channel:${c.name}`, '--all', '--dry-run'], { env: t.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      method: 'POST',
      path: '/api/v1/messages/flags/narrow',
      body: {
        anchor: 'oldest',
        num_before: '0',
        num_after: '1000',
        narrow: JSON.stringify([
          { operator: 'channel', operand: c.name },
          { operator: 'is', operand: 'unread' },
        ]),
        op: 'add',
        flag: 'read',
      },
    });
    expect(r.stderr).toContain('dry run: 1 request not sent');
    expect(unread(c.ids)).toEqual(c.ids);
  });

  it("an unknown channel in the narrow is not found: exit 6 with the server's message", async () => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'flags', 'add', 'starred', '--narrow', 'channel:no-such-channel'], { env: t.env });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('chatctl: Invalid narrow operator: unknown channel');
    expect(r.stderr).toContain('(BAD_NARROW)');
  });
});
