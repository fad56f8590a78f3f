import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserGroup, updateUserGroupMembers } from '../../src/api/operations/groups.js';
import { tryLock } from '../../src/cli/bulk/lock.js';
import { createChannel } from '../helpers/channels.js';
import { cliTarget, jsonLines, runCli, tempHome } from '../helpers/cli.js';
import { unique } from '../helpers/names.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

/** A map file in a fresh directory. */
function mapFile(name: string, content: unknown): string {
  const file = join(tempHome().home, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('channels sync: the map', () => {
  it.each([
    [{ rules: [{ group: 'a' }] }, 'rule 1: channels: a non-empty list of channel names or IDs'],
    [{ rules: [{ group: 'a', domain: 'b.test', channels: ['x'] }] }, 'rule 1: give exactly one of group, domain, users'],
    [{ rules: [{ domain: 'nodot', channels: ['x'] }] }, 'rule 1: domain: an e-mail domain such as example.com'],
    [
      {
        rules: [
          { users: [], channels: ['x'] },
          { team: 'a', channels: ['x'] },
        ],
      },
      'rule 2: unknown key team',
    ],
    [['not', 'an', 'object'], 'the map is an object with a "rules" list'],
    ['{ not json', 'is not valid JSON'],
  ])('%j is refused before anything is read (exit 2)', async (content, message) => {
    const r = await runCli(['channels', 'sync', '--map', mapFile('map.json', content), '--server', 'http://127.0.0.1:9', '--dry-run'], {
      env: { ...tempHome().env, ZULIP_EMAIL: 'x@y.test', ZULIP_API_KEY: 'A'.repeat(32) },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

describe.each(TRANSPORTS)('channels sync over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const run = async (argv: string[]) => {
    const t = await cliTarget(org, kind);
    return runCli([...t.args, ...argv], { env: t.env });
  };
  const members = (streamId: number) =>
    org.db.prepare('SELECT user_id FROM subscriptions WHERE stream_id = ? AND active = 1 ORDER BY user_id').pluck().all(streamId) as number[];

  it('subscribes by group (through subgroups) and domain, never bots or deactivated users by domain; a second run is in sync', async () => {
    const domain = `${unique('corp', '')}.test`;
    const [a, b, c] = [org.addUser(), org.addUser(), org.addUser({ email: `c@${domain}` })];
    const bot = org.addUser({ email: `bot@${domain}`, bot: { type: 1, ownerId: org.owner.id } });
    const gone = org.addUser({ email: `gone@${domain}`, active: false });
    const owner = await clientFor(org, kind);
    const sub = unique('sub');
    const top = unique('top');
    const { group_id: subId } = await owner.call(createUserGroup, { name: sub, description: '', members: [b.id] });
    await owner.call(createUserGroup, { name: top, description: '', members: [a.id], subgroups: [subId] });
    const x = await createChannel(org, owner, unique('eng', '-'));
    const y = await createChannel(org, owner, unique('all', '-'));
    const map = mapFile('map.json', {
      rules: [
        { group: top, channels: [x.name] },
        { domain, channels: [y.name, x.id] },
      ],
    });
    const dry = await run(['channels', 'sync', '--map', map, '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(jsonLines(dry.stdout)).toEqual([
      { row: 1, action: 'subscribe', channel: x.name, stream_id: x.id, user: a.email, user_id: a.id, rule: `group ${top}`, error: null },
      { row: 2, action: 'subscribe', channel: x.name, stream_id: x.id, user: b.email, user_id: b.id, rule: `group ${top}`, error: null },
      { row: 3, action: 'subscribe', channel: x.name, stream_id: x.id, user: c.email, user_id: c.id, rule: `domain ${domain}`, error: null },
      { row: 4, action: 'subscribe', channel: y.name, stream_id: y.id, user: c.email, user_id: c.id, rule: `domain ${domain}`, error: null },
    ]);
    expect(dry.stderr).toContain('dry run: 4 to subscribe, 0 to unsubscribe, in 2 channels; nothing changed');
    expect(members(x.id)).toEqual([org.owner.id]);
    const applied = await run(['channels', 'sync', '--map', map, '--json']);
    expect(applied.code).toBe(0);
    expect(jsonLines(applied.stdout).map((l) => [l.row, l.target, l.status])).toEqual([
      [1, `${x.name}: +${a.email}`, 'subscribed'],
      [2, `${x.name}: +${b.email}`, 'subscribed'],
      [3, `${x.name}: +${c.email}`, 'subscribed'],
      [4, `${y.name}: +${c.email}`, 'subscribed'],
    ]);
    // One summary for the run: the result, not a plan line before it.
    expect(applied.stderr.split('\n').filter((l) => l.startsWith('chatctl:'))).toEqual(['chatctl: 4 subscribed, 0 failed']);
    expect(members(y.id)).not.toContain(bot.id);
    expect(members(y.id)).not.toContain(gone.id);
    const again = await run(['channels', 'sync', '--map', map]);
    expect(again).toMatchObject({ code: 0, stdout: '' });
    expect(again.stderr).toMatch(/chatctl: in sync: 2 channels, \d+ subscriptions/);
  });

  it('with --remove keeps exactly the mapped users and bots in the channels the map names, and leaves the others alone', async () => {
    const [a, b, stray] = [org.addUser(), org.addUser(), org.addUser()];
    const bot = org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
    const owner = await clientFor(org, kind);
    const group = unique('crew');
    const { group_id } = await owner.call(createUserGroup, { name: group, description: '', members: [a.id, b.id] });
    const x = await createChannel(org, owner, unique('crew', '-'), { principals: [stray.id, bot.id] });
    const untouched = await createChannel(org, owner, unique('other', '-'), { principals: [stray.id] });
    const map = mapFile('map.csv', `user,channels\n${a.email},${x.name}\n${b.id},"${x.name}"\n`);
    writeFileSync(map.replace(/map\.csv$/, 'group.json'), JSON.stringify({ rules: [{ group, channels: [x.name] }] }));
    const groupMap = map.replace(/map\.csv$/, 'group.json');
    const noYes = await run(['channels', 'sync', '--map', groupMap, '--remove']);
    expect(noYes.code).toBe(2);
    expect((await run(['channels', 'sync', '--map', groupMap, '--remove', '--yes'])).code).toBe(0);
    expect(members(x.id)).toEqual([a.id, b.id, bot.id].sort((p, q) => p - q));
    expect(members(untouched.id)).toContain(stray.id);
    // A member leaves the group: the next run unsubscribes them, and only them.
    await owner.call(updateUserGroupMembers, { user_group_id: group_id, delete: [b.id] });
    const r = await run(['channels', 'sync', '--map', groupMap, '--remove', '--yes', '--json']);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)).toEqual([{ row: 1, target: `${x.name}: -${b.email}`, ok: true, status: 'unsubscribed', id: b.id, error: null, code: null }]);
    // The CSV form maps users one row each.
    const csv = await run(['channels', 'sync', '--map', map, '--dry-run', '--json']);
    expect(jsonLines(csv.stdout).map((l) => [l.action, l.user, l.rule])).toEqual([['subscribe', b.email, 'row 2']]);
  });

  it('fails the rows of unknown users alone (exit 3), and refuses a map naming an unknown channel or group (exit 6)', async () => {
    const a = org.addUser();
    const x = await createChannel(org, await clientFor(org, kind), unique('part', '-'));
    const partial = await run([
      'channels',
      'sync',
      '--map',
      mapFile('m.json', { rules: [{ users: [a.email, 'nobody@example.com'], channels: [x.name] }] }),
      '--json',
    ]);
    expect(partial.code).toBe(3);
    expect(jsonLines(partial.stdout).map((l) => [l.target, l.status, l.error])).toEqual([
      [`${x.name}: +nobody@example.com`, 'failed', 'No such user: nobody@example.com'],
      [`${x.name}: +${a.email}`, 'subscribed', null],
    ]);
    const noChannel = await run(['channels', 'sync', '--map', mapFile('m.json', { rules: [{ users: [a.email], channels: ['nowhere'] }] })]);
    expect(noChannel.code).toBe(6);
    expect(noChannel.stderr).toContain("Channel 'nowhere' does not exist");
    const noGroup = await run(['channels', 'sync', '--map', mapFile('m.json', { rules: [{ group: 'no-such-group', channels: [x.name] }] })]);
    expect(noGroup.code).toBe(6);
    expect(noGroup.stderr).toContain('Invalid user group: no-such-group');
  });

  it('leaves the organization to a sync already running, saying so, exit 0', async () => {
    const a = org.addUser();
    const x = await createChannel(org, await clientFor(org, kind), unique('locked', '-'));
    const t = await cliTarget(org, kind);
    // Where a sync of this organization keeps its lock: in the data dir, or in the config dir per server.
    const site = t.args[1]!.replace(/[^a-z0-9.-]+/gi, '_');
    const held = tryLock(
      kind === 'embedded' ? join(org.dataDir, 'channels-sync.lock') : join(t.env.CHATCTL_CONFIG_DIR!, 'locks', `channels-sync-${site}.lock`),
    );
    try {
      const r = await runCli([...t.args, 'channels', 'sync', '--map', mapFile('m.json', { rules: [{ users: [a.email], channels: [x.name] }] })], {
        env: t.env,
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('another channels sync');
      expect(members(x.id)).not.toContain(a.id);
    } finally {
      if ('release' in held) held.release();
    }
  });
});
