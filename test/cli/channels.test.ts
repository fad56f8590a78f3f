import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelFolder } from '../../src/api/operations/folders.js';
import { createUserGroup } from '../../src/api/operations/groups.js';
import { sendMessage } from '../../src/api/operations/messages.js';
import { setSetting } from '../../src/server/model/realm.js';
import { createChannel, newStream } from '../helpers/channels.js';
import { cliTarget, expectUsageError, jsonLines, parse, runCli, scriptedPrompter } from '../helpers/cli.js';
import { unique } from '../helpers/names.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe('channels: parsing', () => {
  it('maps argv to options', async () => {
    const c = await parse(['channels', 'create', 'design', '--privacy', 'private', '--user', 'a@x.test', '--user', '7', '--group', 'eng']);
    expect(c.spec.path).toEqual(['channels', 'create']);
    expect(c.opts).toMatchObject({ name: 'design', privacy: 'private', user: ['a@x.test', '7'], group: ['eng'] });
    const u = await parse(['channels', 'update', 'design', '--no-folder', '--no-default']);
    expect(u.opts).toMatchObject({ channel: 'design', folder: null, default: false });
    const s = await parse(['channels', 'subscribe', '--channel', 'a', '--channel', 'b', '--user', '1']);
    expect(s.opts).toMatchObject({ channel: ['a', 'b'], user: ['1'] });
  });

  it.each([
    [['channels', 'create', ' '], 'a channel needs a name'],
    [['channels', 'create', 'x', '--privacy', 'secret'], 'secret'],
    [['channels', 'update', 'general'], 'nothing to change'],
    [['channels', 'subscribe', '--channel', 'general'], 'say who: pass --user, --group or --from-file'],
    [['channels', 'subscribe', '--user', '7'], 'name at least one channel with --channel'],
    [['channels', 'unsubscribe', '--user', '7'], 'name at least one channel with --channel'],
    [['channels', 'archive'], 'name at least one channel (ID or name), or pass --from-file'],
    [['channels', 'sync'], '--map FILE is required'],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('channels commands over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const run = async (argv: string[], o: { tty?: boolean; confirm?: boolean[]; stdin?: string } = {}) => {
    const t = await cliTarget(org, kind);
    return runCli([...t.args, ...argv], {
      env: { ...t.env, NO_COLOR: '1' },
      tty: o.tty,
      stdin: o.stdin,
      ...(o.confirm ? { prompter: scriptedPrompter({ confirm: o.confirm }) } : {}),
    });
  };
  const row = (id: number) => org.db.prepare('SELECT name, description, invite_only, is_archived, is_default, folder_id FROM streams WHERE id = ?').get(id);

  it('lists channels with privacy, subscriber count, folder, and the last message time when asked', async () => {
    const owner = await clientFor(org, kind);
    const { channel_folder_id } = await owner.call(createChannelFolder, { name: unique('Folder'), description: '' });
    const a = org.addUser();
    const name = unique('listed', '-');
    await runOk(['channels', 'create', name, '--user', a.email, '--user', String(org.owner.id), '--folder', String(channel_folder_id)]);
    const id = newStreamId(name);
    // A channel never written in: only with the organization's channel events messages off (else it has its creation message).
    setSetting(org.db, 'send_channel_events_messages', false);
    const quiet = await createChannel(org, owner, unique('quiet', '-')).finally(() => setSetting(org.db, 'send_channel_events_messages', true));
    await owner.call(sendMessage, { type: 'stream', to: name, topic: 't', content: 'hi' });
    const json = await run(['channels', 'list', '--json']);
    expect(json.code).toBe(0);
    const listed = (JSON.parse(json.stdout) as Record<string, unknown>[]).find((c) => c.stream_id === id)!;
    expect(listed).toMatchObject({ name, privacy: 'public', subscriber_count: 2, folder_id: channel_folder_id, is_default: false });
    expect(listed).not.toHaveProperty('last_message_time');
    const csv = await run(['channels', 'list', '--fields', 'name,subscriber_count,last_message_time', '--format', 'csv']);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('name,subscriber_count,last_message_time');
    expect(lines.find((l) => l.startsWith(`${name},`))).toMatch(new RegExp(`^${name},2,\\d{4}-\\d\\d-\\d\\dT`));
    expect(lines).toContain(`${quiet.name},1,`);
    const table = await run(['channels', 'list'], { tty: true });
    expect(table.stdout.split('\n')[0]).toMatch(/STREAM_ID\s+NAME\s+PRIVACY\s+SUBSCRIBER_COUNT\s+FOLDER\s+DESCRIPTION/);
  });

  it('gets one channel by name or ID, with its last message time', async () => {
    const owner = await clientFor(org, kind);
    const c = await createChannel(org, owner, unique('got', '-'));
    await owner.call(sendMessage, { type: 'stream', to: c.name, topic: 't', content: 'hi' });
    const byName = await run(['channels', 'get', `#${c.name}`, '--json']);
    expect(byName.code).toBe(0);
    expect(JSON.parse(byName.stdout)).toMatchObject({ stream_id: c.id, privacy: 'public', subscriber_count: 1, last_message_time: expect.any(Number) });
    const byId = await run(['channels', 'get', String(c.id), '--json']);
    expect(JSON.parse(byId.stdout)).toMatchObject({ name: c.name });
    const missing = await run(['channels', 'get', 'nowhere']);
    expect(missing.code).toBe(6);
    expect(missing.stderr).toContain("Channel 'nowhere' does not exist");
  });

  it('creates a private channel with members by user and group, prints its ID, and --dry-run sends nothing', async () => {
    const a = org.addUser();
    const b = org.addUser();
    const gone = org.addUser();
    const owner = await clientFor(org, kind);
    const group = unique('grp');
    await owner.call(createUserGroup, { name: group, description: '', members: [b.id, gone.id] });
    org.db.prepare('UPDATE users SET is_active = 0 WHERE id = ?').run(gone.id);
    const name = unique('made', '-');
    const dry = await run(['channels', 'create', name, '--privacy', 'private', '--user', a.email, '--group', group, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      method: 'POST',
      path: '/api/v1/channels/create',
      body: { name, invite_only: 'true', subscribers: JSON.stringify([a.id, b.id]) },
    });
    expect(org.db.prepare('SELECT id FROM streams WHERE name = ?').get(name)).toBeUndefined();
    const made = await run(['channels', 'create', name, '--privacy', 'private', '--description', 'Secret', '--user', a.email, '--group', group, '--json']);
    expect(made.code).toBe(0);
    const { stream_id } = JSON.parse(made.stdout) as { stream_id: number };
    expect(row(stream_id)).toMatchObject({ name, description: 'Secret', invite_only: 1 });
    const members = org.db.prepare('SELECT user_id FROM subscriptions WHERE stream_id = ? AND active = 1 ORDER BY user_id').pluck().all(stream_id);
    expect(members).toEqual([a.id, b.id]);
    const refused = await run(['channels', 'create', unique('x', '-'), '--user', gone.email]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('User is deactivated');
  });

  it('updates, renames, archives (asking on a terminal) and unarchives', async () => {
    const owner = await clientFor(org, kind);
    const c = await createChannel(org, owner, unique('upd', '-'));
    expect((await run(['channels', 'update', c.name, '--description', 'New words', '--default'])).code).toBe(0);
    expect(row(c.id)).toMatchObject({ description: 'New words', is_default: 1 });
    const renamed = unique('renamed', '-');
    expect((await run(['channels', 'rename', c.name, renamed])).code).toBe(0);
    expect(row(c.id)).toMatchObject({ name: renamed });
    expect((await run(['channels', 'update', String(c.id), '--no-default'])).code).toBe(0);
    const noYes = await run(['channels', 'archive', renamed]);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toContain('pass --yes');
    const declined = await run(['channels', 'archive', renamed], { tty: true, confirm: [false] });
    expect(declined.code).toBe(130);
    expect(row(c.id)).toMatchObject({ is_archived: 0 });
    const archived = await run(['channels', 'archive', renamed], { tty: true, confirm: [true] });
    expect(archived.code).toBe(0);
    expect(row(c.id)).toMatchObject({ is_archived: 1 });
    const again = await run(['channels', 'archive', renamed, '--yes', '--json']);
    expect(jsonLines(again.stdout)).toEqual([{ row: 1, target: renamed, ok: true, status: 'unchanged', id: c.id, error: null, code: null }]);
    const back = await run(['channels', 'unarchive', renamed, '--json']);
    expect(back.code).toBe(0);
    expect(jsonLines(back.stdout)[0]).toMatchObject({ status: 'unarchived', id: c.id });
    expect(row(c.id)).toMatchObject({ is_archived: 0 });
  });

  it('names the channels it asks to archive, and lists archived ones with an is_archived column', async () => {
    const owner = await clientFor(org, kind);
    const [a, b] = [await createChannel(org, owner, unique('named', '-')), await createChannel(org, owner, unique('named', '-'))];
    const t = await cliTarget(org, kind);
    const no = scriptedPrompter({ confirm: [false, true] });
    const declined = await runCli([...t.args, 'channels', 'archive', a.name, String(b.id)], { env: t.env, tty: true, prompter: no });
    expect(declined.code).toBe(130);
    const one = await runCli([...t.args, 'channels', 'archive', a.name], { env: t.env, tty: true, prompter: no });
    expect(one.code).toBe(0);
    expect(no.asked).toEqual([`Archive 2 channels: channel ${a.id} (#${a.name}), channel ${b.id} (#${b.name})?`, `Archive channel ${a.id} (#${a.name})?`]);
    const dry = await run(['channels', 'archive', b.name, '--dry-run']);
    expect(jsonLines(dry.stdout)).toEqual([{ method: 'DELETE', path: `/api/v1/streams/${b.id}`, target: `channel ${b.id} (#${b.name})` }]);

    const listed = await run(['channels', 'list', '--archived', '--format', 'csv']);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toBe('stream_id,name,is_archived,privacy,subscriber_count,folder,description');
    expect(lines.find((l) => l.startsWith(`${a.id},`))).toMatch(new RegExp(`^${a.id},${a.name},true,`));
    expect(lines.find((l) => l.startsWith(`${b.id},`))).toMatch(new RegExp(`^${b.id},${b.name},false,`));
    const plain = await run(['channels', 'list', '--format', 'csv']);
    expect(plain.stdout.split('\n')[0]).toBe('stream_id,name,privacy,subscriber_count,folder,description');
  });

  it('addresses a channel whose name starts with # by that name (#x or ##x), and x still by #x', async () => {
    const owner = await clientFor(org, kind);
    const base = unique('hash', '-');
    const hashed = await createChannel(org, owner, `#${base}`);
    const plain = await createChannel(org, owner, unique('plainhash', '-'));
    const dry = (ref: string) => run(['channels', 'archive', ref, '--dry-run']);
    for (const ref of [`#${base}`, `##${base}`]) {
      expect(jsonLines((await dry(ref)).stdout)).toEqual([
        { method: 'DELETE', path: `/api/v1/streams/${hashed.id}`, target: `channel ${hashed.id} (##${base})` },
      ]);
    }
    expect(jsonLines((await dry(`#${plain.name}`)).stdout)[0]).toMatchObject({ path: `/api/v1/streams/${plain.id}` });
    const missing = await dry(base);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain(`Channel '${base}' does not exist`);
    const sub = await run(['channels', 'subscribe', '--channel', `#${base}`, '--user', org.owner.email, '--json']);
    expect(sub.code).toBe(0);
    expect(org.db.prepare('SELECT count(*) FROM subscriptions WHERE stream_id = ? AND user_id = ?').pluck().get(hashed.id, org.owner.id)).toBe(1);
  });

  it('archives the rows channels list prints (stream_id or name), reporting each and exiting 3 on a partial failure', async () => {
    const owner = await clientFor(org, kind);
    const a = await createChannel(org, owner, unique('old', '-'));
    const b = await createChannel(org, owner, unique('old', '-'));
    const listed = await run(['channels', 'list', '--format', 'ndjson']);
    const rows = jsonLines(listed.stdout).filter((r) => r.stream_id === a.id || r.stream_id === b.id);
    const stdin = `${rows.map((r) => JSON.stringify(r)).join('\n')}\n{"name":"nowhere"}\n`;
    const r = await run(['channels', 'archive', '--from-file', '-', '--yes', '--json'], { stdin });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout)).toEqual([
      { row: 1, target: String(a.id), ok: true, status: 'archived', id: a.id, error: null, code: null },
      { row: 2, target: String(b.id), ok: true, status: 'archived', id: b.id, error: null, code: null },
      { row: 3, target: 'nowhere', ok: false, status: 'failed', id: null, error: "Channel 'nowhere' does not exist", code: 'BAD_REQUEST' },
    ]);
    const csv = await run(['channels', 'unarchive', '--from-file', '-'], { stdin: `name\n${a.name}\n` });
    expect(csv.code).toBe(0);
    expect(row(a.id)).toMatchObject({ is_archived: 0 });
  });

  it('lists, adds and removes default channels', async () => {
    const owner = await clientFor(org, kind);
    const c = await createChannel(org, owner, unique('dflt', '-'));
    expect((await run(['channels', 'default-channels', 'add', c.name])).code).toBe(0);
    const listed = await run(['channels', 'default-channels', 'list', '--fields', 'name', '--format', 'csv']);
    expect(listed.stdout.split('\n')).toContain(c.name);
    const again = await run(['channels', 'default-channels', 'add', c.name, '--json']);
    expect(jsonLines(again.stdout)[0]).toMatchObject({ status: 'unchanged' });
    expect((await run(['channels', 'default-channels', 'remove', c.name])).code).toBe(2);
    expect((await run(['channels', 'default-channels', 'remove', c.name, '--yes'])).code).toBe(0);
    expect(row(c.id)).toMatchObject({ is_default: 0 });
  });

  it("lists a channel's members, private ones too for an administrator who is not subscribed", async () => {
    const a = org.addUser({ name: 'Ada Member' });
    const id = newStream(org, unique('secret', '-'), { inviteOnly: true, subscribers: [a] });
    const name = row(id) as { name: string };
    const r = await run(['channels', 'members', name.name, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ user_id: a.id, full_name: 'Ada Member' })]);
  });

  async function runOk(argv: string[]): Promise<void> {
    const r = await run(argv);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
  }
  const newStreamId = (name: string): number => org.db.prepare('SELECT id FROM streams WHERE name = ?').pluck().get(name) as number;
});
