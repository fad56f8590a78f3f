import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import type { WireRequest } from '../../src/api/wire.js';
import { openTransport } from '../../src/cli/target/connect.js';
import type { Transport } from '../../src/client/transport.js';
import { EXIT } from '../../src/errors.js';
import { cliTarget, jsonLines, runCli, fileIn, tempHome } from '../helpers/cli.js';
import { unique } from '../helpers/names.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { intercepting, TRANSPORTS } from '../helpers/transports.js';

type Doc = Record<string, unknown> & { channels: Record<string, unknown>[]; users: Record<string, unknown>[]; groups: Record<string, unknown>[] };

describe.each(TRANSPORTS)('org over %s', (kind) => {
  let org: TestOrg;
  // One HOME for the suite: a remote organization's journal lives in its config dir.
  const home = tempHome().env;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const run = async (argv: string[], o: { signal?: AbortSignal; openTransport?: typeof openTransport } = {}) => {
    const t = await cliTarget(org, kind);
    return runCli([...t.args, ...argv], { env: { ...t.env, ...home }, ...o });
  };
  const exported = async (): Promise<{ text: string; doc: Doc }> => {
    const r = await run(['org', 'export']);
    expect(r.code).toBe(0);
    return { text: r.stdout, doc: parseYaml(r.stdout) as Doc };
  };
  const planOf = async (doc: unknown) => {
    const r = await run(['org', 'plan', '-f', fileIn('org.yaml', stringify(doc)), '--format', 'json']);
    return {
      code: r.code,
      stderr: r.stderr,
      plan: r.stdout ? (JSON.parse(r.stdout) as { changes: Record<string, unknown>[]; base_fingerprint: string }) : undefined,
    };
  };

  it('export → plan is empty (exit 0), the export holds no secret, and the JSON Schema takes it', async () => {
    const user = org.addUser();
    org.addUser({ bot: { type: 3, ownerId: org.owner.id, url: 'https://bots.example/hook' } });
    const { text, doc } = await exported();
    expect(text.startsWith('# yaml-language-server: $schema=')).toBe(true);
    expect(doc.users.map((u) => u.email)).toContain(user.email);
    for (const secret of [org.owner.apiKey, user.apiKey, 'token']) expect(text).not.toContain(secret);
    const plan = await run(['org', 'plan', '-f', fileIn('org.yaml', text)]);
    expect(plan.code).toBe(EXIT.ok);
    expect(plan.stdout).toContain('In sync');
    const drift = await run(['org', 'drift', '-f', fileIn('org.yaml', text)]);
    expect(drift.code).toBe(0);
    expect(drift.stdout).toContain('channels: in sync');
    const schema = JSON.parse((await run(['org', 'schema'])).stdout) as object;
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...doc, channels: [{ name: 'x', privat: true }] })).toBe(false);
  });

  it("an edited file's plan shows exactly the edit, exit 10; apply makes it, after which the plan is empty", async () => {
    const { doc } = await exported();
    const general = doc.channels.find((c) => c.name === 'general')!;
    const before = general.description;
    general.description = 'Changed by the file';
    const { code, plan } = await planOf(doc);
    expect(code).toBe(EXIT.pending);
    expect(plan!.changes).toEqual([
      expect.objectContaining({
        address: 'channels/general',
        id: general.id,
        action: 'update',
        before: { description: before },
        after: { description: 'Changed by the file' },
      }),
    ]);
    const file = fileIn('org.yaml', stringify(doc));
    const apply = await run(['org', 'apply', '-f', file, '--json']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(jsonLines(apply.stdout)).toEqual([expect.objectContaining({ target: 'channels/general', ok: true, status: 'updated' })]);
    expect((await run(['org', 'plan', '-f', file])).code).toBe(0);
  });

  it('a new name with the same id is a rename that keeps the id; new groups and channels are created with their members', async () => {
    const a = org.addUser();
    const b = org.addUser();
    const { doc } = await exported();
    const channel = unique('ch', '-');
    const renamed = unique('renamed', '-');
    const group = unique('grp');
    await run(['channels', 'create', channel]);
    const { doc: now } = await exported();
    const made = now.channels.find((c) => c.name === channel)!;
    now.channels = now.channels.map((c) => (c.id === made.id ? { ...c, name: renamed, members: [a.email] } : c));
    now.groups = [...now.groups, { name: group, description: 'made by org apply', members: [a.email, b.email] }];
    const file = fileIn('org.yaml', stringify(now));
    const text = await run(['org', 'plan', '-f', file]);
    expect(text.code).toBe(EXIT.pending);
    // The member subscribed by someone else is told by Zulip's Notification Bot; the new group's members are not.
    expect(text.stdout).toContain(`→ channels/${channel} (id ${made.id}) → ${renamed}`);
    expect(text.stdout).toMatch(
      /Plan: 1 to create, 0 to change, 1 to rename, 0 to remove \(memberships: \+\d+ −0\); 3 requests, no wait under 200\/min and 2000\/h; 1 person will be notified/,
    );
    const apply = await run(['org', 'apply', '-f', file]);
    expect(apply.code, apply.stderr).toBe(0);
    const after = (await exported()).doc;
    expect(after.channels.find((c) => c.id === made.id)).toMatchObject({ name: renamed, members: expect.arrayContaining([a.email]) });
    expect(after.groups.find((g) => g.name === group)).toMatchObject({ members: [a.email, b.email].sort() });
    expect((await run(['org', 'plan', '-f', file])).code).toBe(0);
    expect(doc.chatctl).toBe('org/v1');
  });

  it('the caller and the last owner are never demoted; removals need --prune and stay under --max-removals', async () => {
    const { doc } = await exported();
    doc.users = doc.users.map((u) => (u.email === org.owner.email ? { ...u, role: 'member' } : u));
    const { plan } = await planOf(doc);
    expect(plan!.changes).toEqual([
      expect.objectContaining({ address: `users/${org.owner.email}`, action: 'cannot', reason: expect.stringContaining('your own role') }),
    ]);
    // Every other user left out: with --prune users they would all be deactivated, above the threshold.
    const few = { chatctl: 'org/v1', users: doc.users.filter((u) => u.email === org.owner.email) };
    const file = fileIn('org.yaml', stringify(few));
    const refused = await run(['org', 'apply', '-f', file, '--prune', 'users', '--yes']);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain('the plan removes too much: users:');
    const kept = await run(['org', 'apply', '-f', file, '--json']);
    expect(kept.code).toBe(3);
    expect(jsonLines(kept.stdout).filter((r) => r.status === 'kept').length).toBeGreaterThan(1);
  });

  it("settings come from the catalogue's updateRealm: a new name is planned, applied, then in sync; drift says which section drifted (exit 10)", async () => {
    const name = unique('Renamed org');
    const file = fileIn('org.yaml', stringify({ chatctl: 'org/v1', settings: { name }, linkifiers: [] }));
    const drift = await run(['org', 'drift', '-f', file]);
    expect(drift.code).toBe(EXIT.pending);
    expect(drift.stdout).toBe('settings: 1 to change\nlinkifiers: in sync\n');
    const plan = await run(['org', 'plan', '-f', file, '--format', 'ndjson', '--exit-zero']);
    expect(plan.code).toBe(0);
    expect(jsonLines(plan.stdout)).toEqual([
      expect.objectContaining({
        address: 'settings/name',
        action: 'update',
        after: { name },
        requests: [expect.objectContaining({ method: 'PATCH', path: '/realm', params: { name } })],
      }),
    ]);
    expect((await run(['org', 'apply', '-f', file])).code).toBe(0);
    expect((await run(['org', 'drift', '-f', file])).code).toBe(0);
  });

  it('validate lists every reference to a user, group or folder the file does not hold, and repeated keys', async () => {
    const file = fileIn(
      'org.json',
      JSON.stringify({
        chatctl: 'org/v1',
        users: [{ email: 'a@x.test' }, { email: 'A@x.test' }],
        groups: [{ name: 'eng', members: ['a@x.test', 'ghost@x.test'], subgroups: ['nope'], can_mention_group: 'role:members', can_join_group: 'missing' }],
        folders: [],
        channels: [{ name: 'dev', folder: 'Work', members: ['ghost@x.test'] }],
      }),
    );
    const r = await run(['org', 'validate', '-f', file]);
    expect(r.code).toBe(EXIT.usage);
    for (const problem of [
      'users[1].email: A@x.test repeats users[0]',
      'groups[0].members[1]: no user ghost@x.test in users',
      'groups[0].subgroups[0]: no group nope in groups',
      'groups[0].can_join_group: no group missing in groups',
      'channels[0].folder: no folder Work in folders',
      'channels[0].members[0]: no user ghost@x.test in users',
    ])
      expect(r.stderr).toContain(problem);
    expect(r.stderr).not.toContain('can_mention_group');
  });

  it('unknown keys are refused with their path (exit 2), before anything is read', async () => {
    const { doc } = await exported();
    doc.channels[0] = { ...doc.channels[0], privat: true };
    const r = await run(['org', 'validate', '-f', fileIn('org.yaml', stringify(doc))]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('channels[0].privat: unknown key; did you mean private?');
    const plan = await run(['org', 'plan', '-f', fileIn('org.json', JSON.stringify({ chatctl: 'org/v1', groups: [{ name: 'role:members' }] }))]);
    expect(plan.code).toBe(EXIT.usage);
    expect(plan.stderr).toContain('groups[0].name: role:members is a system group');
  });

  it('a saved plan is refused as stale once an object it changes changed; an interrupted apply resumes without repeating a request', async () => {
    const { doc } = await exported();
    const general = doc.channels.find((c) => c.name === 'general')!;
    const edited = { ...doc, channels: doc.channels.map((c) => (c === general ? { ...c, description: unique('from the plan') } : c)) };
    const planFile = join(tempHome().home, 'plan.json');
    expect((await run(['org', 'plan', '-f', fileIn('org.yaml', stringify(edited)), '--out', planFile])).code).toBe(EXIT.pending);
    const meanwhile = await run([
      'org',
      'apply',
      '-f',
      fileIn('org.yaml', stringify({ chatctl: 'org/v1', channels: [{ id: general.id, name: 'general', description: unique('meanwhile') }] })),
      '--yes',
    ]);
    expect(meanwhile.code, meanwhile.stderr).toBe(0);
    const refused = await run(['org', 'apply', '--plan', planFile, '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('stale');

    const names = [unique('a', '-'), unique('b', '-'), unique('c', '-')];
    const { doc: now } = await exported();
    const file = fileIn(
      'org.yaml',
      stringify({ chatctl: 'org/v1', channels: [...now.channels, ...names.map((name) => ({ name, description: 'from the file' }))] }),
    );
    // Interrupted after the second creation's request: 130, then --resume sends the third only.
    const abort = new AbortController();
    const sent: string[] = [];
    const counting = async (...a: Parameters<typeof openTransport>): Promise<Transport> => {
      const inner = await openTransport(...a);
      return intercepting(inner, async (req: WireRequest, signal?: AbortSignal) => {
        const res = await inner.send(req, signal);
        if (req.method !== 'GET' && req.path !== '/register' && req.path !== '/events') {
          sent.push(`${req.method} ${req.path} ${req.body.map(([k, v]) => `${k}=${v}`).join('&')}`);
          if (sent.length === 2) abort.abort();
        }
        return res;
      });
    };
    const first = await run(['org', 'apply', '-f', file, '--yes'], { signal: abort.signal, openTransport: counting });
    expect(first.code).toBe(EXIT.interrupted);
    expect(sent).toHaveLength(2);
    const again = await run(['org', 'apply', '-f', file, '--yes']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('--resume');
    const resumed = await run(['org', 'apply', '--resume', '--json'], { openTransport: counting });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sent).toHaveLength(3);
    expect(new Set(sent).size).toBe(3);
    expect((await run(['org', 'plan', '-f', file])).code).toBe(0);
  });
});

describe.each([200, 263, 421])('org against a remote server at feature level %i', (level) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  /** The organization over HTTP, saying it is at `level`, as a server of that version would. */
  const sent: string[] = [];
  const atLevel = async (...a: Parameters<typeof openTransport>): Promise<Transport> => {
    const inner = await openTransport(...a);
    return intercepting(inner, async (req: WireRequest, signal?: AbortSignal) => {
      sent.push(`${req.method} ${req.path}`);
      const res = await inner.send(req, signal);
      const body = res.body;
      if (typeof body === 'object' && body !== null && 'zulip_feature_level' in body) return { ...res, body: { ...body, zulip_feature_level: level } };
      return res;
    });
  };

  it('export → plan is empty; what the level cannot read is left out with a note', async () => {
    org.addUser();
    const t = await cliTarget(org, 'http');
    const exported = await runCli([...t.args, 'org', 'export'], { env: t.env, openTransport: atLevel });
    expect(exported.code, exported.stderr).toBe(0);
    const doc = parseYaml(exported.stdout) as Doc;
    expect(doc.server).toMatchObject({ feature_level: level });
    if (level < 389) expect(doc.notes).toContainEqual(expect.stringContaining('folders: not read'));
    else expect(doc.folders).toEqual([]);
    // Settings and group permissions newer than the level are left out, with a note, as that server would not give them.
    if (level < 321) {
      expect(doc.settings).not.toHaveProperty('can_invite_users_group');
      expect(doc.notes).toContainEqual(expect.stringMatching(/^settings: .*can_invite_users_group.* not read/));
      expect(doc.groups.every((g) => !('can_join_group' in g))).toBe(true);
      expect(doc.notes).toContainEqual(expect.stringMatching(/^groups: .*can_join_group.* not read/));
    } else expect(doc.settings).toHaveProperty('can_invite_users_group');
    const plan = await runCli([...t.args, 'org', 'plan', '-f', fileIn('org.yaml', exported.stdout)], { env: t.env, openTransport: atLevel });
    expect(plan.code, plan.stderr).toBe(0);
  });

  it('export takes as many requests with 40 more users: none is per user', async () => {
    const t = await cliTarget(org, 'http');
    const count = async () => {
      sent.length = 0;
      expect((await runCli([...t.args, 'org', 'export'], { env: t.env, openTransport: atLevel })).code).toBe(0);
      return [...sent];
    };
    const before = await count();
    for (let i = 0; i < 40; i++) org.addUser();
    expect(await count()).toEqual(before);
    expect(before.filter((r) => r.startsWith('GET /users/')).length).toBeLessThanOrEqual(1);
  });

  it("a group left out is a removal the level may lack: shown as cannot below 290, the plan's other changes stand", async () => {
    const t = await cliTarget(org, 'http');
    const cli = (argv: string[]) => runCli([...t.args, ...argv], { env: t.env, openTransport: atLevel });
    const [kept, gone] = [unique('kept'), unique('gone')];
    expect((await cli(['org', 'apply', '-f', fileIn('org.yaml', stringify({ chatctl: 'org/v1', groups: [{ name: kept }, { name: gone }] }))])).code).toBe(0);
    const doc = parseYaml((await cli(['org', 'export', '--sections', 'groups'])).stdout) as Doc;
    const groups = doc.groups.filter((g) => g.name !== gone).map((g) => (g.name === kept ? { ...g, description: 'changed' } : g));
    const r = await cli(['org', 'plan', '-f', fileIn('org.yaml', stringify({ chatctl: 'org/v1', groups })), '--format', 'json']);
    expect(r.code, r.stderr).toBe(EXIT.pending);
    const changes = (JSON.parse(r.stdout) as { changes: Record<string, unknown>[] }).changes;
    expect(changes).toEqual([
      expect.objectContaining({ address: `groups/${kept}`, action: 'update', after: { description: 'changed' } }),
      level < 290
        ? expect.objectContaining({
            address: `groups/${gone}`,
            action: 'cannot',
            requests: [],
            reason: `the server (feature level ${level}) cannot remove it: POST /user_groups/${doc.groups.find((g) => g.name === gone)!.id}/deactivate needs feature level ≥ 290`,
          })
        : expect.objectContaining({ address: `groups/${gone}`, action: 'remove' }),
    ]);
  });

  it('a setting the level cannot take fails the plan before anything is sent', async () => {
    const t = await cliTarget(org, 'http');
    const file = fileIn('org.yaml', stringify({ chatctl: 'org/v1', settings: { can_invite_users_group: 'role:administrators' } }));
    sent.length = 0;
    const plan = await runCli([...t.args, 'org', 'apply', '-f', file, '--yes'], { env: t.env, openTransport: atLevel });
    if (level < 321) {
      expect(plan.code).toBe(1);
      expect(plan.stderr).toContain('can_invite_users_group needs feature level ≥ 321');
      expect(sent.filter((r) => r.startsWith('PATCH'))).toEqual([]);
    } else expect(plan.code, plan.stderr).toBe(0);
  });

  it('a field the level cannot take fails the plan before anything is sent', async () => {
    const t = await cliTarget(org, 'http');
    const file = fileIn('org.yaml', stringify({ chatctl: 'org/v1', channels: [{ name: unique('new', '-'), description: '' }] }));
    const plan = await runCli([...t.args, 'org', 'plan', '-f', file], { env: t.env, openTransport: atLevel });
    // Every level takes the creation (below 417 by subscribing).
    expect(plan.code).toBe(EXIT.pending);
    expect(plan.stdout).toContain('+ channels/');
    const linkifier = fileIn(
      'org.yaml',
      stringify({ chatctl: 'org/v1', linkifiers: [{ pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.test/{id}', example_input: '#1' }] }),
    );
    const refused = await runCli([...t.args, 'org', 'plan', '-f', linkifier], { env: t.env, openTransport: atLevel });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('example_input needs feature level ≥ 471');
  });
});
