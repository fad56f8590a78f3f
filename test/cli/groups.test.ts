import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTarget, expectUsageError, parse, runCli, scriptedPrompter } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

describe('groups: parsing', () => {
  it('maps argv to options', async () => {
    const p = await parse(['groups', 'members', 'design', '--add', 'a@x.test', '3', '--remove-subgroup', 'old', '--yes']);
    expect(p.spec.path).toEqual(['groups', 'members']);
    expect(p.opts).toMatchObject({ group: 'design', add: ['a@x.test', '3'], removeSubgroup: ['old'], yes: true });
    const c = await parse(['groups', 'create', 'design', '--description', '', '--member', '4', '5']);
    expect(c.opts).toMatchObject({ name: 'design', description: '', member: ['4', '5'] });
    const l = await parse(['groups', 'list', '--no-system']);
    expect(l.opts).toMatchObject({ system: false });
  });

  it.each([
    [['groups', 'create', 'design'], '--description is required'],
    [['groups', 'members', 'design', '--add', '3', '--direct'], '--direct is for listing members, not for changes'],
    [['groups', 'members'], "missing required argument 'group'"],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('groups commands over %s', (kind) => {
  let org: TestOrg;
  let n = 0;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const members = (groupId: number) => org.db.prepare('SELECT user_id FROM group_members WHERE group_id = ? ORDER BY user_id').pluck().all(groupId);

  async function create(extra: string[] = []): Promise<{ id: number; name: string }> {
    const name = `group-${kind}-${++n}`;
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'groups', 'create', name, '--description', 'A group', ...extra, '--json'], { env: t.env });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { id: number; name: string };
    expect(out.name).toBe(name);
    return out;
  }

  it('creates a group with members by e-mail and ID, and prints its ID', async () => {
    const a = org.addUser();
    const b = org.addUser();
    const g = await create(['--member', a.email, String(b.id)]);
    expect(members(g.id)).toEqual([a.id, b.id].sort((x, y) => x - y));
    const t = await cliTarget(org, kind);
    const piped = await runCli([...t.args, 'groups', 'create', `plain-${kind}`, '--description', ''], { env: t.env });
    expect(piped.stdout).toMatch(/^\d+\tplain-/);
  });

  it('lists groups: system groups unless --no-system; JSON, TSV and a table', async () => {
    const g = await create();
    const t = await cliTarget(org, kind);
    const json = await runCli([...t.args, 'groups', 'list', '--json'], { env: t.env });
    const all = JSON.parse(json.stdout) as { id: number; name: string; is_system_group: boolean; members: number[] }[];
    expect(all.map((x) => x.name)).toEqual(expect.arrayContaining(['role:administrators', g.name]));
    const user = await runCli([...t.args, 'groups', 'list', '--no-system', '--fields', 'id,name'], { env: t.env });
    expect(user.stdout.split('\n')).toContain(`${g.id}\t${g.name}`);
    expect(user.stdout).not.toContain('role:');
    const table = await runCli([...t.args, 'groups', 'list', '--no-system'], { env: { ...t.env, NO_COLOR: '1' }, tty: true });
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+DESCRIPTION\s+MEMBERS\s+DIRECT_SUBGROUP_IDS\s+IS_SYSTEM_GROUP$/);
  });

  it('lists members with no changes: through subgroups, or --direct only', async () => {
    const a = org.addUser();
    const b = org.addUser();
    const sub = await create(['--member', String(b.id)]);
    const g = await create(['--member', String(a.id), '--subgroup', sub.name]);
    const t = await cliTarget(org, kind);
    const all = await runCli([...t.args, 'groups', 'members', g.name, '--json'], { env: t.env });
    expect(all.code).toBe(0);
    expect((JSON.parse(all.stdout) as { user_id: number; email: string }[]).map((u) => [u.user_id, u.email])).toEqual([
      [a.id, a.email],
      [b.id, b.email],
    ]);
    const direct = await runCli([...t.args, 'groups', 'members', String(g.id), '--direct', '--fields', 'user_id'], { env: t.env });
    expect(direct.stdout).toBe(`${a.id}\n`);
  });

  it('adds and removes members and subgroups; removing needs --yes when not on a terminal', async () => {
    const a = org.addUser();
    const b = org.addUser();
    const sub = await create();
    const g = await create(['--member', String(a.id)]);
    const t = await cliTarget(org, kind);
    const add = await runCli([...t.args, 'groups', 'members', g.name, '--add', b.email, '--add-subgroup', sub.name], { env: t.env });
    expect(add.code).toBe(0);
    expect(add.stderr).toBe(`chatctl: ${g.name}: 1 added, 1 subgroup added\n`);
    expect(members(g.id)).toEqual([a.id, b.id].sort((x, y) => x - y));
    expect(org.db.prepare('SELECT subgroup_id FROM group_subgroups WHERE group_id = ?').pluck().all(g.id)).toEqual([sub.id]);

    const refused = await runCli([...t.args, 'groups', 'members', g.name, '--remove', String(a.id)], { env: t.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    const no = scriptedPrompter({ confirm: [false] });
    const asked = await runCli([...t.args, 'groups', 'members', g.name, '--remove', String(a.id), '--remove-subgroup', String(sub.id)], {
      env: t.env,
      tty: true,
      prompter: no,
    });
    expect(no.asked).toEqual([`Remove 1 member and 1 subgroup from ${g.name}?`]);
    expect(asked.code).toBe(130);
    const removed = await runCli([...t.args, 'groups', 'members', g.name, '--remove', String(a.id), '--yes'], { env: t.env });
    expect(removed.code).toBe(0);
    expect(members(g.id)).toEqual([b.id]);
  });

  it('prints the request with --dry-run and changes nothing; a removal of a non-member is left out of it', async () => {
    const a = org.addUser();
    const g = await create();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'groups', 'members', g.name, '--add', a.email, '--remove', String(org.owner.id), '--dry-run'], { env: t.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      method: 'POST',
      path: `/api/v1/user_groups/${g.id}/members`,
      body: { add: `[${a.id}]` },
    });
    expect(members(g.id)).toEqual([]);
  });

  it('exits 6 for an unknown group or user; adding a member twice or removing one twice is unchanged, exit 0', async () => {
    const g = await create();
    const t = await cliTarget(org, kind);
    const group = await runCli([...t.args, 'groups', 'members', 'no-such-group'], { env: t.env });
    expect(group.code).toBe(6);
    expect(group.stderr).toContain('Invalid user group: no-such-group');
    const user = await runCli([...t.args, 'groups', 'members', g.name, '--add', 'ghost@example.com'], { env: t.env });
    expect(user.code).toBe(6);
    const twice = await runCli([...t.args, 'groups', 'members', g.name, '--add', String(org.owner.id)], { env: t.env });
    expect(twice.code).toBe(0);
    const again = await runCli([...t.args, 'groups', 'members', g.name, '--add', String(org.owner.id)], { env: t.env });
    expect(again).toMatchObject({ code: 0, stderr: `chatctl: ${g.name}: unchanged: already as asked\n` });
    const b = org.addUser();
    const some = await runCli([...t.args, 'groups', 'members', g.name, '--add', String(org.owner.id), b.email], { env: t.env });
    expect(some).toMatchObject({ code: 0, stderr: `chatctl: ${g.name}: 1 added, 1 unchanged\n` });
    expect(members(g.id)).toEqual([org.owner.id, b.id].sort((x, y) => x - y));
    const removed = await runCli([...t.args, 'groups', 'members', g.name, '--remove', b.email, '--yes'], { env: t.env });
    expect(removed.code).toBe(0);
    const removedAgain = await runCli([...t.args, 'groups', 'members', g.name, '--remove', b.email, '--yes'], { env: t.env });
    expect(removedAgain).toMatchObject({ code: 0, stderr: `chatctl: ${g.name}: unchanged: already as asked\n` });
    expect(members(g.id)).toEqual([org.owner.id]);
  });

  it('refuses a user or subgroup given to both the adding and the removing flag (exit 2), changing nothing', async () => {
    const g = await create();
    const sub = await create();
    const a = org.addUser();
    const t = await cliTarget(org, kind);
    const users = await runCli([...t.args, 'groups', 'members', g.name, '--add', a.email, '--remove', String(a.id), '--yes'], { env: t.env });
    expect(users).toMatchObject({ code: 2, stderr: `chatctl: 1 user given to both --add and --remove: ${a.id}\n` });
    const groups = await runCli([...t.args, 'groups', 'members', g.name, '--add-subgroup', sub.name, '--remove-subgroup', String(sub.id), '--yes'], {
      env: t.env,
    });
    expect(groups).toMatchObject({ code: 2, stderr: `chatctl: 1 group given to both --add-subgroup and --remove-subgroup: ${sub.id}\n` });
    expect(members(g.id)).toEqual([]);
  });
});
