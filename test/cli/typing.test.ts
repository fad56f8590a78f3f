import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/api/operations/channels.js';
import { sendMessage } from '../../src/api/operations/messages.js';
import { cliTarget, expectUsageError, parse, runCli } from '../helpers/cli.js';
import { openQueue, takeEvents, type StoredEvent } from '../helpers/events.js';
import { createTestOrg, TestClock, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

/**
 * A queue of `user`'s and a reader of what it received. The CLI runs on the real clock: the queue is fresh by
 * it. Its client takes channel typing events (stream_typing_notifications), as a current client does.
 */
function watch(org: TestOrg, user: TestUser): () => StoredEvent[] {
  const queue = openQueue(org, user, { lastAccess: Math.floor(Date.now() / 1000), options: { client_capabilities: { stream_typing_notifications: true } } });
  return () => takeEvents(org, queue);
}

describe('typing: parsing', () => {
  it('maps argv to options', async () => {
    const p = await parse(['typing', 'start', '--to', 'a@x.test', '8']);
    expect(p.spec.path).toEqual(['typing', 'start']);
    expect(p.opts).toMatchObject({ to: ['a@x.test', '8'] });
    const c = await parse(['typing', 'stop', '--channel', 'general', '--topic', '', '--dry-run']);
    expect(c.opts).toMatchObject({ channel: 'general', topic: '', dryRun: true });
  });

  it.each([
    [['typing', 'start'], 'say where: --to USER... (direct), --channel C --topic T (channel), or --message ID (editing)'],
    [['typing', 'start', '--to', '3', '--message', '4'], 'say where:'],
    [['typing', 'start', '--channel', 'general'], "--channel needs --topic ('' for the general-chat topic)"],
    [['typing', 'start', '--topic', 'x'], '--topic goes with --channel'],
    [['typing', 'stop', '--message', 'abc'], '--message takes a message ID, not "abc"'],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('typing commands over %s', (kind) => {
  let org: TestOrg;
  let ann: TestUser;
  let bob: TestUser;
  beforeAll(() => {
    // On the real clock, as the spawned CLI is: a message is editable for ten minutes after it is sent.
    org = createTestOrg({ clock: new TestClock(Math.floor(Date.now() / 1000)) });
    ann = org.addUser({ name: 'Ann' });
    bob = org.addUser({ name: 'Bob' });
  });
  afterAll(() => org.close());

  it('notifies a direct conversation named by e-mail and ID', async () => {
    const events = watch(org, bob);
    const t = await cliTarget(org, kind, ann);
    const r = await runCli([...t.args, 'typing', 'start', '--to', bob.email.toUpperCase(), String(org.owner.id)], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('chatctl: typing started\n');
    const [event] = events();
    expect(event).toMatchObject({ type: 'typing', op: 'start', message_type: 'direct', sender: { user_id: ann.id } });
    expect((event!.recipients as { user_id: number }[]).map((u) => u.user_id).sort((a, b) => a - b)).toEqual(
      [org.owner.id, ann.id, bob.id].sort((a, b) => a - b),
    );
  });

  it('notifies a channel topic, the general-chat topic included', async () => {
    const name = `typing-${kind}`;
    await (await clientFor(org, kind)).call(subscribe, { subscriptions: [{ name }], principals: [ann.id, bob.id] });
    const streamId = (org.db.prepare('SELECT id FROM streams WHERE name = ?').get(name) as { id: number }).id;
    const events = watch(org, bob);
    const t = await cliTarget(org, kind, ann);
    expect((await runCli([...t.args, 'typing', 'stop', '--channel', name, '--topic', 'plans'], { env: t.env })).code).toBe(0);
    expect((await runCli([...t.args, 'typing', 'start', '--channel', String(streamId), '--topic', ''], { env: t.env })).code).toBe(0);
    expect(events()).toMatchObject([
      { type: 'typing', op: 'stop', message_type: 'stream', stream_id: streamId, topic: 'plans' },
      { type: 'typing', op: 'start', message_type: 'stream', stream_id: streamId, topic: '' },
    ]);
  });

  it('notifies the readers of a message being edited', async () => {
    const { id } = await (await clientFor(org, kind, ann)).call(sendMessage, { type: 'direct', to: JSON.stringify([bob.id]), content: 'draft' });
    const events = watch(org, bob);
    const t = await cliTarget(org, kind, ann);
    const r = await runCli([...t.args, 'typing', 'start', '--message', String(id)], { env: t.env });
    expect(r.code).toBe(0);
    expect(events()).toMatchObject([{ type: 'typing_edit_message', op: 'start', sender_id: ann.id, message_id: id }]);
  });

  it('prints the request with --dry-run and sends nothing', async () => {
    const events = watch(org, bob);
    const t = await cliTarget(org, kind, ann);
    const r = await runCli([...t.args, 'typing', 'start', '--to', String(bob.id), '--dry-run'], { env: t.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ method: 'POST', path: '/api/v1/typing', body: { type: 'direct', op: 'start', to: `[${bob.id}]` } });
    const edit = await runCli([...t.args, 'typing', 'stop', '--message', '77', '--dry-run'], { env: t.env });
    expect(JSON.parse(edit.stdout)).toEqual({ method: 'POST', path: '/api/v1/messages/77/typing', body: { op: 'stop' } });
    expect(events()).toEqual([]);
  });

  it('exits 6 for an unknown user or message', async () => {
    const t = await cliTarget(org, kind, ann);
    const user = await runCli([...t.args, 'typing', 'start', '--to', 'ghost@example.com'], { env: t.env });
    expect(user.code).toBe(6);
    expect(user.stderr).toContain('No such user: ghost@example.com');
    const message = await runCli([...t.args, 'typing', 'start', '--message', '999999'], { env: t.env });
    expect(message.code).toBe(6);
    expect(message.stderr).toContain('Invalid message(s)');
  });
});
