import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEvents, register } from '../../src/api/operations/events.js';
import { cliTarget, expectUsageError, jsonLines, parse, runCli, scriptedPrompter } from '../helpers/cli.js';
import { createTestOrg, TestClock, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe('events: parsing', () => {
  it('maps argv to options', async () => {
    const r = await parse(['events', 'register', '--event-types', 'message,reaction', '--lifespan', '1h', '--json']);
    expect(r.opts).toMatchObject({ eventTypes: ['message', 'reaction'], lifespan: 3600, json: true });
    const d = await parse(['events', 'delete', '1:0', '2:0', '--yes']);
    expect(d.opts).toMatchObject({ queueIds: ['1:0', '2:0'], yes: true });
  });

  it.each([
    [['events', 'delete'], "missing required argument 'queue_ids'"],
    [['events', 'register', '--event-types', ','], '--event-types takes comma-separated event types'],
    [['events', 'register', '--lifespan', 'forever'], '--lifespan takes a duration like 30d or 12h, not "forever"'],
    [['events', 'register', '--fields', 'queue'], 'unknown field "queue"'],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('events commands over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    // The CLI's embedded router keeps real time; queues made here must not look idle for a year to it.
    org = createTestOrg({ clock: new TestClock(Math.floor(Date.now() / 1000)) });
  });
  afterAll(() => org.close());

  const queueRow = (id: string) =>
    org.db.prepare('SELECT * FROM event_queues WHERE id = ?').get(id) as { event_types: string | null; lifespan_secs: number } | undefined;

  it('registers a queue of the given types and prints its ID, which a script can read from', async () => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'events', 'register', '--event-types', 'message,reaction', '--lifespan', '1h', '--json'], { env: t.env });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { queue_id: string; last_event_id: number };
    expect(out).toEqual({ queue_id: expect.any(String), last_event_id: -1 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(queueRow(out.queue_id)!.event_types!)).toEqual(['message', 'reaction']);
    expect(queueRow(out.queue_id)!.lifespan_secs).toBe(3600);
    const events = await (await clientFor(org, kind)).call(getEvents, { queue_id: out.queue_id, last_event_id: -1, dont_block: true });
    expect(events.events).toEqual([]);
  });

  it('prints the ID alone for a pipe with --fields, and a hint on stderr', async () => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'events', 'register', '--fields', 'queue_id'], { env: t.env });
    expect(r.code).toBe(0);
    const id = r.stdout.trim();
    expect(queueRow(id)).toBeDefined();
    expect(r.stderr).toBe(`chatctl: delete it when done: chatctl events delete ${id} --yes\n`);
  });

  it('registers nothing with --dry-run', async () => {
    const t = await cliTarget(org, kind);
    const before = org.db.prepare('SELECT count(*) FROM event_queues').pluck().get();
    const r = await runCli([...t.args, 'events', 'register', '--event-types', 'message', '--dry-run'], { env: t.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ method: 'POST', path: '/api/v1/register', body: { event_types: '["message"]', fetch_event_types: '[]' } });
    expect(org.db.prepare('SELECT count(*) FROM event_queues').pluck().get()).toBe(before);
  });

  it('deletes queues with --yes; exit 3 when any queue fails, the only one given too', async () => {
    const client = await clientFor(org, kind);
    const a = (await client.call(register, { event_types: ['message'], fetch_event_types: [] })).queue_id!;
    const b = (await client.call(register, { event_types: ['message'], fetch_event_types: [] })).queue_id!;
    const t = await cliTarget(org, kind);
    const one = await runCli([...t.args, 'events', 'delete', a, '--yes'], { env: t.env });
    expect(one).toEqual({ code: 0, stdout: `1\t${a}\ttrue\tdeleted\t${a}\t\t\n`, stderr: `Deleted event queue ${a}.\n` });
    expect(queueRow(a)).toBeUndefined();
    const again = await runCli([...t.args, 'events', 'delete', a, '--yes'], { env: t.env });
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(`Bad event queue ID: ${a} (BAD_EVENT_QUEUE_ID)`);
    const some = await runCli([...t.args, 'events', 'delete', a, b, '--yes', '--json'], { env: t.env });
    expect(some.code).toBe(3);
    expect(jsonLines(some.stdout).map((o) => [o.target, o.ok, o.code ?? null])).toEqual([
      [a, false, 'BAD_EVENT_QUEUE_ID'],
      [b, true, null],
    ]);
    expect(queueRow(b)).toBeUndefined();
  });

  it("cannot delete another user's queue", async () => {
    const other = org.addUser();
    const theirs = (await (await clientFor(org, kind, other)).call(register, { event_types: ['message'], fetch_event_types: [] })).queue_id!;
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'events', 'delete', theirs, '--yes'], { env: t.env });
    expect(r.code).toBe(3);
    expect(queueRow(theirs)).toBeDefined();
  });

  it('asks on a terminal, needs --yes in a pipe, and sends nothing with --dry-run', async () => {
    const q = (await (await clientFor(org, kind)).call(register, { event_types: ['message'], fetch_event_types: [] })).queue_id!;
    const t = await cliTarget(org, kind);
    const piped = await runCli([...t.args, 'events', 'delete', q], { env: t.env });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain(`Delete event queue ${q}: not running interactively; pass --yes`);
    const dry = await runCli([...t.args, 'events', 'delete', q, '--dry-run'], { env: t.env });
    expect(JSON.parse(dry.stdout)).toEqual({ method: 'DELETE', path: '/api/v1/events', body: { queue_id: q }, target: `event queue ${q}` });
    const no = scriptedPrompter({ confirm: [false] });
    expect((await runCli([...t.args, 'events', 'delete', q], { env: t.env, tty: true, prompter: no })).code).toBe(130);
    expect(queueRow(q)).toBeDefined();
    const yes = scriptedPrompter({ confirm: [true] });
    expect((await runCli([...t.args, 'events', 'delete', q], { env: t.env, tty: true, prompter: yes })).code).toBe(0);
    expect(yes.asked).toEqual([`Delete event queue ${q}?`]);
    expect(queueRow(q)).toBeUndefined();
  });
});
