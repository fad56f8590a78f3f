import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserGroup } from '../../src/api/operations/groups.js';
import { createChannel } from '../helpers/channels.js';
import { cliTarget, jsonLines, runCli, scriptedPrompter } from '../helpers/cli.js';
import { unique } from '../helpers/names.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('channels subscribe and unsubscribe over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const run = async (argv: string[], o: { confirm?: boolean[]; stdin?: string } = {}) => {
    const t = await cliTarget(org, kind);
    return runCli([...t.args, ...argv], { env: t.env, stdin: o.stdin, ...(o.confirm ? { prompter: scriptedPrompter({ confirm: o.confirm }) } : {}) });
  };
  const members = (streamId: number) =>
    org.db.prepare('SELECT user_id FROM subscriptions WHERE stream_id = ? AND active = 1 ORDER BY user_id').pluck().all(streamId) as number[];
  const channel = async () => createChannel(org, await clientFor(org, kind), unique('mem', '-'));

  it('subscribes users and a whole group to several channels: one row per user and channel, what is already so unchanged', async () => {
    const [a, b, c] = [org.addUser(), org.addUser(), org.addUser()];
    const group = unique('team');
    await (await clientFor(org, kind)).call(createUserGroup, { name: group, description: '', members: [b.id, c.id] });
    const x = await channel();
    const y = await channel();
    const r = await run([
      'channels',
      'subscribe',
      '--channel',
      x.name,
      '--channel',
      String(y.id),
      '--user',
      a.email,
      '--group',
      group,
      '--user',
      String(org.owner.id),
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((l) => [l.row, l.target, l.status, l.id])).toEqual([
      [1, `${x.name}: +${org.owner.email}`, 'unchanged', org.owner.id],
      [2, `${x.name}: +${a.email}`, 'subscribed', a.id],
      [3, `${x.name}: +${b.email}`, 'subscribed', b.id],
      [4, `${x.name}: +${c.email}`, 'subscribed', c.id],
      [5, `${y.name}: +${org.owner.email}`, 'unchanged', org.owner.id],
      [6, `${y.name}: +${a.email}`, 'subscribed', a.id],
      [7, `${y.name}: +${b.email}`, 'subscribed', b.id],
      [8, `${y.name}: +${c.email}`, 'subscribed', c.id],
    ]);
    expect(r.stderr).toContain('chatctl: 6 subscribed, 2 unchanged, 0 failed');
    expect(members(x.id)).toEqual([org.owner.id, a.id, b.id, c.id].sort((p, q) => p - q));
    const again = await run(['channels', 'subscribe', '--channel', x.name, '--group', group]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('0 subscribed, 2 unchanged, 0 failed');
  });

  it('sends one request per channel for many users, prints it under --dry-run, and changes nothing', async () => {
    const [a, b] = [org.addUser(), org.addUser()];
    const x = await channel();
    const r = await run(['channels', 'subscribe', '--channel', x.name, '--user', a.email, '--user', b.email, '--dry-run']);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)).toEqual([
      {
        method: 'POST',
        path: '/api/v1/users/me/subscriptions',
        body: { subscriptions: JSON.stringify([{ name: x.name }]), principals: JSON.stringify([a.id, b.id]) },
      },
    ]);
    expect(members(x.id)).toEqual([org.owner.id]);
  });

  it('reports unknown and deactivated users per row and exits 3, subscribing the others; an unknown channel exits 6', async () => {
    const a = org.addUser();
    const gone = org.addUser({ active: false });
    const x = await channel();
    const r = await run(['channels', 'subscribe', '--channel', x.name, '--from-file', '-', '--json'], {
      stdin: `user\n${a.email}\nnobody@example.com\n${gone.email}\n`,
    });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout)).toEqual([
      {
        row: 1,
        target: `${x.name}: +nobody@example.com`,
        ok: false,
        status: 'failed',
        id: null,
        error: 'No such user: nobody@example.com',
        code: 'BAD_REQUEST',
      },
      { row: 2, target: `${x.name}: +${gone.email}`, ok: false, status: 'failed', id: null, error: 'User is deactivated', code: 'BAD_REQUEST' },
      { row: 3, target: `${x.name}: +${a.email}`, ok: true, status: 'subscribed', id: a.id, error: null, code: null },
    ]);
    expect(members(x.id)).toContain(a.id);
    const missing = await run(['channels', 'subscribe', '--channel', 'nowhere', '--user', a.email]);
    expect(missing.code).toBe(6);
  });

  it('takes the channel of each file row', async () => {
    const a = org.addUser();
    const x = await channel();
    const y = await channel();
    const r = await run(['channels', 'subscribe', '--from-file', '-'], { stdin: `user,channel\n${a.email},${x.name}\n${a.id},${y.id}\n` });
    expect(r.code).toBe(0);
    expect(members(x.id)).toContain(a.id);
    expect(members(y.id)).toContain(a.id);
  });

  it('unsubscribes after asking on a terminal, needs --yes elsewhere, and reports users not subscribed unchanged', async () => {
    const [a, b] = [org.addUser(), org.addUser()];
    const x = await channel();
    await run(['channels', 'subscribe', '--channel', x.name, '--user', a.email]);
    const refused = await run(['channels', 'unsubscribe', '--channel', x.name, '--user', a.email]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    const asked = scriptedPrompter({ confirm: [true] });
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'channels', 'unsubscribe', '--channel', x.name, '--user', a.email, '--user', b.email, '--json'], {
      env: t.env,
      prompter: asked,
    });
    expect(r.code).toBe(0);
    expect(asked.asked).toEqual([`Unsubscribe ${a.email} from ${x.name}?`]);
    expect(jsonLines(r.stdout).map((l) => [l.target, l.status])).toEqual([
      [`${x.name}: -${b.email}`, 'unchanged'],
      [`${x.name}: -${a.email}`, 'unsubscribed'],
    ]);
    expect(members(x.id)).toEqual([org.owner.id]);
  });
});
