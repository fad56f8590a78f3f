import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesOf } from '../../src/cli/commands/messages.js';
import { cliTarget, expectUsageError, parse, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

describe('messages: parsing', () => {
  it('maps argv to options', async () => {
    const s = await parse(['messages', 'send', '--channel', 'general', '--topic', 'x', '--content', '-', '--json']);
    expect(s.spec.path).toEqual(['messages', 'send']);
    expect(s.opts).toMatchObject({ channel: 'general', topic: 'x', content: '-', json: true });
    const e = await parse(['messages', 'edit', '5', '--topic', 'y', '--propagate', 'all']);
    expect(e.opts).toMatchObject({ message: 5, topic: 'y', propagate: 'all' });
  });

  it.each([
    [['messages', 'send', '--content', 'x'], 'send to --channel C --topic T, or --to USER...'],
    [['messages', 'send', '--channel', 'general', '--to', '3', '--content', 'x'], 'send to --channel C --topic T, or --to USER...'],
    [['messages', 'send', '--channel', 'general', '--content', 'x'], "--channel needs --topic ('' for the general-chat topic)"],
    [['messages', 'send', '--to', '3', '--topic', 't', '--content', 'x'], '--topic goes with --channel'],
    [['messages', 'send', '--to', '3'], '--content is required (- reads stdin)'],
    [['messages', 'edit', '5'], 'nothing to change: pass --content or --topic'],
    [['messages', 'edit', '5', '--content', 'x', '--propagate', 'all'], '--propagate goes with --topic'],
    [['messages', 'edit', '5', '--topic', 'x', '--propagate', 'some'], "argument 'some' is invalid"],
    [['messages', 'history', 'latest'], 'a message ID is a number, not "latest"'],
  ])('%j is a usage error', expectUsageError);

  it('describes what each snapshot changed', () => {
    const base = { topic: 'b', content: 'x', rendered_content: '<p>x</p>', timestamp: 1, user_id: 1 };
    expect(changesOf(base, true)).toBe('sent');
    expect(changesOf({ ...base, prev_content: 'w', prev_rendered_content: '', content_html_diff: '' }, false)).toBe('content');
    expect(changesOf({ ...base, prev_topic: 'a', prev_stream: 3, stream: 4 }, false)).toBe('topic: "a" → "b"; channel: 3 → 4');
  });
});

describe.each(TRANSPORTS)('messages commands over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const stored = (id: number) =>
    org.db.prepare('SELECT content, topic, stream_id FROM messages WHERE id = ?').get(id) as { content: string; topic: string; stream_id: number | null };

  it('sends to a channel topic and prints the new ID (piped: the bare ID)', async () => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'messages', 'send', '--channel', 'general', '--topic', 'deploys', '--content', 'v2 is **live**'], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\n$/);
    expect(stored(Number(r.stdout))).toMatchObject({ content: 'v2 is **live**', topic: 'deploys' });
  });

  it('sends a direct message with content from stdin, --json prints {id}', async () => {
    const ann = org.addUser();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'messages', 'send', '--to', ann.email, '--content', '-', '--json'], { env: t.env, stdin: 'line one\nline two\n' });
    expect(r.code).toBe(0);
    const { id } = JSON.parse(r.stdout) as { id: number };
    expect(stored(id)).toMatchObject({ content: 'line one\nline two', stream_id: null });
  });

  it('prints the request with --dry-run and sends nothing', async () => {
    const ann = org.addUser();
    const t = await cliTarget(org, kind);
    const before = org.db.prepare('SELECT count(*) FROM messages').pluck().get();
    const r = await runCli([...t.args, 'messages', 'send', '--to', String(ann.id), '--content', 'hi', '--dry-run'], { env: t.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ method: 'POST', path: '/api/v1/messages', body: { type: 'direct', to: `[${ann.id}]`, content: 'hi' } });
    expect(org.db.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(before);
  });

  it('edits content and topic; history shows each version and what changed', async () => {
    const t = await cliTarget(org, kind);
    const sent = await runCli([...t.args, 'messages', 'send', '--channel', 'general', '--topic', 'draft', '--content', 'first'], { env: t.env });
    const id = sent.stdout.trim();
    const content = await runCli([...t.args, 'messages', 'edit', id, '--content', 'second'], { env: t.env });
    expect(content.code).toBe(0);
    expect(content.stderr).toBe(`chatctl: message ${id} edited\n`);
    expect((await runCli([...t.args, 'messages', 'edit', id, '--topic', 'final', '--propagate', 'all'], { env: t.env })).code).toBe(0);
    expect(stored(Number(id))).toMatchObject({ content: 'second', topic: 'final' });

    const tsv = await runCli([...t.args, 'messages', 'history', id], { env: t.env });
    expect(tsv.code).toBe(0);
    expect(
      tsv.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t').slice(1)),
    ).toEqual([
      [org.owner.email, 'draft', 'sent'],
      [org.owner.email, 'draft', 'content'],
      [org.owner.email, 'final', 'topic: "draft" → "final"'],
    ]);
    const json = await runCli([...t.args, 'messages', 'history', id, '--json'], { env: t.env });
    const snapshots = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(snapshots.map((s) => s.content)).toEqual(['first', 'second', 'second']);
    expect(snapshots[1]).toMatchObject({ prev_content: 'first', user_id: org.owner.id });
    expect(snapshots[0]).not.toHaveProperty('changes');
    const fields = await runCli([...t.args, 'messages', 'history', id, '--fields', 'content,changes', '--format', 'csv'], { env: t.env });
    expect(fields.stdout).toBe('content,changes\nfirst,sent\nsecond,content\nsecond,"topic: ""draft"" → ""final"""\n');
    const table = await runCli([...t.args, 'messages', 'history', id], { env: { ...t.env, NO_COLOR: '1' }, tty: true });
    expect(table.stdout.split('\n')[0]).toMatch(/^TIMESTAMP\s+USER\s+TOPIC\s+CHANGES$/);
  });

  it('edits with content from stdin, and --dry-run sends nothing', async () => {
    const t = await cliTarget(org, kind);
    const id = (await runCli([...t.args, 'messages', 'send', '--channel', 'general', '--topic', 't', '--content', 'a'], { env: t.env })).stdout.trim();
    const dry = await runCli([...t.args, 'messages', 'edit', id, '--content', '-', '--dry-run'], { env: t.env, stdin: 'b\n' });
    expect(JSON.parse(dry.stdout)).toEqual({ method: 'PATCH', path: `/api/v1/messages/${id}`, body: { content: 'b' } });
    expect(stored(Number(id)).content).toBe('a');
    expect((await runCli([...t.args, 'messages', 'edit', id, '--content', '-'], { env: t.env, stdin: 'b\n' })).code).toBe(0);
    expect(stored(Number(id)).content).toBe('b');
  });

  it('exits 6 for an unknown message, channel or user; 1 when the server refuses an edit', async () => {
    const t = await cliTarget(org, kind);
    const history = await runCli([...t.args, 'messages', 'history', '999999'], { env: t.env });
    expect(history.code).toBe(6);
    expect(history.stderr).toContain('Invalid message(s)');
    const channel = await runCli([...t.args, 'messages', 'send', '--channel', 'nowhere', '--topic', 't', '--content', 'x'], { env: t.env });
    expect(channel.code).toBe(6);
    expect(channel.stderr).toContain("Channel 'nowhere' does not exist");
    const user = await runCli([...t.args, 'messages', 'send', '--to', 'ghost@example.com', '--content', 'x'], { env: t.env });
    expect(user.code).toBe(6);
    const other = org.addUser();
    const id = (await runCli([...t.args, 'messages', 'send', '--channel', 'general', '--topic', 't', '--content', 'mine'], { env: t.env })).stdout.trim();
    const o = await cliTarget(org, kind, other);
    const refused = await runCli([...o.args, 'messages', 'edit', id, '--content', 'theirs'], { env: o.env });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain("chatctl: You don't have permission to edit this message (BAD_REQUEST)");
  });
});
