import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import type { WireRequest } from '../../src/api/wire.js';
import { openTransport } from '../../src/cli/target/connect.js';
import type { Transport } from '../../src/client/transport.js';
import { EXIT } from '../../src/errors.js';
import { cliTarget, jsonLines, runCli, fileIn, tempHome } from '../helpers/cli.js';
import { unique } from '../helpers/names.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { intercepting, TRANSPORTS } from '../helpers/transports.js';

type Obj = Record<string, unknown>;
type Doc = Obj & { settings: Obj; profile_fields: Obj[]; groups: Obj[] };
type Plan = { changes: (Obj & { requests: Obj[] })[] };

/** The document `doc` in a YAML file named `name`. */
const docIn = (name: string, doc: unknown): string => fileIn(name, stringify(doc));

describe.each(TRANSPORTS)('org sends the twin’s newer operations over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  const home = tempHome().env;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200 });
  });
  afterAll(() => org.close());

  const run = async (argv: string[], o: { as?: TestUser; openTransport?: typeof openTransport } = {}) => {
    const t = await cliTarget(org, kind, o.as);
    return runCli([...t.args, ...argv], { env: { ...t.env, ...home }, ...(o.openTransport ? { openTransport: o.openTransport } : {}) });
  };
  const exported = async (): Promise<Doc> => {
    const r = await run(['org', 'export']);
    expect(r.code, r.stderr).toBe(0);
    return parseYaml(r.stdout) as Doc;
  };
  const planOf = async (doc: unknown): Promise<{ code: number; plan: Plan }> => {
    const r = await run(['org', 'plan', '-f', docIn('org.yaml', doc), '--format', 'json']);
    return { code: r.code, plan: JSON.parse(r.stdout) as Plan };
  };
  const applied = async (doc: unknown, extra: string[] = [], as?: TestUser) => {
    const r = await run(['org', 'apply', '-f', docIn('org.yaml', doc), '--json', ...extra], as ? { as } : {});
    return { code: r.code, stderr: r.stderr, rows: jsonLines(r.stdout) };
  };
  const inSync = async (doc: unknown) => expect((await run(['org', 'plan', '-f', docIn('org.yaml', doc)])).code).toBe(EXIT.ok);

  it("a profile field's label and hint changed and the fields reordered: the plan shows exactly that, apply makes it, then in sync", async () => {
    const [a, b] = [unique('Field A'), unique('Field B')];
    const made = await applied({
      chatctl: 'org/v1',
      profile_fields: [
        { name: a, type: 'short_text', hint: 'first' },
        { name: b, type: 'short_text', hint: 'second' },
      ],
    });
    expect(made.code, made.stderr).toBe(0);
    const doc = await exported();
    const fa = doc.profile_fields.find((f) => f.name === a)!;
    const fb = doc.profile_fields.find((f) => f.name === b)!;
    const others = doc.profile_fields.filter((f) => f !== fa && f !== fb);
    const renamed = unique('Renamed A');
    const edited = { chatctl: 'org/v1', profile_fields: [...others, fb, { ...fa, name: renamed, hint: 'changed' }] };
    const { code, plan } = await planOf(edited);
    expect(code).toBe(EXIT.pending);
    expect(plan.changes).toEqual([
      expect.objectContaining({
        address: `profile_fields/${a}`,
        id: fa.id,
        action: 'rename',
        before: { name: a, hint: 'first' },
        after: { name: renamed, hint: 'changed' },
        requests: [
          expect.objectContaining({ method: 'PATCH', path: `/realm/profile_fields/${fa.id}`, params: { field_id: fa.id, name: renamed, hint: 'changed' } }),
        ],
      }),
      expect.objectContaining({
        address: 'profile_fields/(order)',
        action: 'update',
        before: { order: [...others.map((f) => f.name), a, b] },
        after: { order: [...others.map((f) => f.name), b, renamed] },
        requests: [expect.objectContaining({ method: 'PATCH', path: '/realm/profile_fields', params: { order: [...others.map((f) => f.id), fb.id, fa.id] } })],
      }),
    ]);
    const r = await applied(edited);
    expect(r.code, r.stderr).toBe(0);
    expect(r.rows.map((row) => [row.target, row.status])).toEqual([
      [`profile_fields/${a}`, 'renamed'],
      ['profile_fields/(order)', 'updated'],
    ]);
    const after = await exported();
    expect(after.profile_fields.map((f) => f.name).slice(-2)).toEqual([b, renamed]);
    expect(after.profile_fields.find((f) => f.id === fa.id)).toMatchObject({ name: renamed, hint: 'changed' });
    await inSync(edited);
  });

  it('a group renamed keeps its id; its description and can_mention_group change in one PATCH with {new, old}; then in sync', async () => {
    const [g, mentioners] = [unique('grp'), unique('mentioners')];
    const user = org.addUser();
    expect(
      (
        await applied({
          chatctl: 'org/v1',
          groups: [
            { name: g, description: 'before' },
            { name: mentioners, members: [user.email] },
          ],
        })
      ).code,
    ).toBe(0);
    const doc = await exported();
    const group = doc.groups.find((x) => x.name === g)!;
    const target = doc.groups.find((x) => x.name === mentioners)!;
    const renamed = unique('renamed');
    const edited = {
      chatctl: 'org/v1',
      groups: doc.groups.map((x) => (x === group ? { ...x, name: renamed, description: 'after', can_mention_group: mentioners } : x)),
    };
    const { code, plan } = await planOf(edited);
    expect(code).toBe(EXIT.pending);
    const systemId = (await run(['api', 'GET', '/user_groups'])).stdout;
    const everyone = (JSON.parse(systemId) as { user_groups: Obj[] }).user_groups.find((x) => x.name === group.can_mention_group)!.id;
    expect(plan.changes).toEqual([
      expect.objectContaining({
        address: `groups/${g}`,
        id: group.id,
        action: 'rename',
        before: { name: g, description: 'before', can_mention_group: group.can_mention_group },
        after: { name: renamed, description: 'after', can_mention_group: mentioners },
        requests: [
          expect.objectContaining({
            method: 'PATCH',
            path: `/user_groups/${group.id}`,
            params: { user_group_id: group.id, name: renamed, description: 'after', can_mention_group: { new: target.id, old: everyone } },
          }),
        ],
      }),
    ]);
    const r = await applied(edited);
    expect(r.code, r.stderr).toBe(0);
    expect(r.rows).toEqual([expect.objectContaining({ target: `groups/${g}`, ok: true, status: 'renamed', id: group.id })]);
    expect((await exported()).groups.find((x) => x.id === group.id)).toMatchObject({ name: renamed, description: 'after', can_mention_group: mentioners });
    await inSync(edited);
  });

  it('a group the file leaves out is deactivated with --prune groups, and refused above --max-removals', async () => {
    const [keep, gone] = [unique('keep'), unique('gone')];
    expect((await applied({ chatctl: 'org/v1', groups: [{ name: keep }, { name: gone }] })).code).toBe(0);
    const doc = await exported();
    const dropped = doc.groups.find((x) => x.name === gone)!;
    const file = { chatctl: 'org/v1', groups: doc.groups.filter((x) => x !== dropped) };
    const { plan } = await planOf(file);
    expect(plan.changes).toEqual([
      expect.objectContaining({
        address: `groups/${gone}`,
        action: 'remove',
        id: dropped.id,
        requests: [expect.objectContaining({ method: 'POST', path: `/user_groups/${dropped.id}/deactivate` })],
      }),
    ]);
    const refused = await applied(file, ['--prune', 'groups', '--max-removals', '0', '--yes']);
    expect(refused.code).toBe(EXIT.failure);
    expect(refused.stderr).toContain('the plan removes too much: groups: 1 removals');
    expect((await exported()).groups.map((x) => x.name)).toContain(gone);
    // Without --prune the removal is kept back, said on its row: nothing failed.
    const kept = await applied(file);
    expect(kept.code).toBe(EXIT.ok);
    expect(kept.rows).toEqual([expect.objectContaining({ target: `groups/${gone}`, status: 'kept' })]);
    const pruned = await applied(file, ['--prune', 'groups', '--yes']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.rows).toEqual([expect.objectContaining({ target: `groups/${gone}`, ok: true, status: 'removed' })]);
    const names = (await exported()).groups.map((x) => x.name);
    expect(names).toContain(keep);
    expect(names).not.toContain(gone);
    await inSync(file);
  });

  it('group-valued settings take a user-made group by name and {members}: applied, exported as written, then in sync', async () => {
    const inviters = unique('inviters');
    const user = org.addUser();
    expect((await applied({ chatctl: 'org/v1', groups: [{ name: inviters, members: [user.email] }] })).code).toBe(0);
    const file = {
      chatctl: 'org/v1',
      settings: { can_invite_users_group: inviters, can_move_messages_between_topics_group: { members: [user.email] } },
    };
    const { code, plan } = await planOf(file);
    expect(code).toBe(EXIT.pending);
    expect(plan.changes.map((c) => [c.address, c.requests.map((q) => q.path)])).toEqual([
      ['settings/can_invite_users_group', ['/realm']],
      ['settings/can_move_messages_between_topics_group', ['/realm']],
    ]);
    expect(plan.changes[1]!.requests[0]!.params).toEqual({
      can_move_messages_between_topics_group: { new: { direct_members: [user.id], direct_subgroups: [] }, old: expect.any(Number) },
    });
    const r = await applied(file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.rows.map((row) => row.status)).toEqual(['updated', 'updated']);
    expect((await exported()).settings).toMatchObject({
      can_invite_users_group: inviters,
      can_move_messages_between_topics_group: { members: [user.email], subgroups: [] },
    });
    await inSync(file);
  });

  it("an administrator applying an owner-only setting gets the server's refusal as a failed row (exit 3); the other setting is made", async () => {
    const doc = await exported();
    const file = {
      chatctl: 'org/v1',
      settings: {
        can_invite_users_group: doc.settings.can_invite_users_group === 'role:administrators' ? 'role:moderators' : 'role:administrators',
        can_move_messages_between_topics_group: doc.settings.can_move_messages_between_topics_group === 'role:members' ? 'role:moderators' : 'role:members',
      },
    };
    const r = await applied(file, [], admin);
    expect(r.code).toBe(EXIT.partial);
    expect(r.rows).toEqual([
      expect.objectContaining({ target: 'settings/can_invite_users_group', ok: false, error: 'Must be an organization owner' }),
      expect.objectContaining({ target: 'settings/can_move_messages_between_topics_group', ok: true, status: 'updated' }),
    ]);
    expect((await exported()).settings).toMatchObject({
      can_invite_users_group: doc.settings.can_invite_users_group,
      can_move_messages_between_topics_group: file.settings.can_move_messages_between_topics_group,
    });
    // The run went through every change: no journal is left to resume, and the owner's apply of the same file runs.
    const owner = await applied(file);
    expect(owner.code, owner.stderr).toBe(0);
    expect(owner.rows).toEqual([expect.objectContaining({ target: 'settings/can_invite_users_group', ok: true, status: 'updated' })]);
  });

  it("a setting changed on the server after the plan was saved: the saved plan is stale, and a change racing the apply fails on the server's old value", async () => {
    const doc = await exported();
    const current = doc.settings.can_move_messages_between_topics_group;
    const wanted = current === 'role:moderators' ? 'role:members' : 'role:moderators';
    const meanwhile = current === 'role:administrators' ? 'role:members' : 'role:administrators';
    const file = docIn('org.yaml', { chatctl: 'org/v1', settings: { can_move_messages_between_topics_group: wanted } });
    const saved = join(tempHome().home, 'plan.json');
    expect((await run(['org', 'plan', '-f', file, '--out', saved])).code).toBe(EXIT.pending);
    expect((await applied({ chatctl: 'org/v1', settings: { can_move_messages_between_topics_group: meanwhile } })).code).toBe(0);
    const stale = await run(['org', 'apply', '--plan', saved, '--yes']);
    expect(stale.code).toBe(EXIT.failure);
    expect(stale.stderr).toContain('the saved plan is stale');

    // Someone else changes it between the plan's read and its PATCH: the server checks `old` and refuses.
    const groups = (JSON.parse((await run(['api', 'GET', '/user_groups'])).stdout) as { user_groups: Obj[] }).user_groups;
    const racing = async (...a: Parameters<typeof openTransport>): Promise<Transport> => {
      const inner = await openTransport(...a);
      return intercepting(inner, async (req: WireRequest, signal?: AbortSignal) => {
        if (req.method === 'PATCH' && req.path === '/realm') {
          const other = groups.find((g) => g.name === current)!.id;
          await inner.send({ ...req, body: [['can_move_messages_between_topics_group', JSON.stringify({ new: other })]] }, signal);
        }
        return inner.send(req, signal);
      });
    };
    const r = await run(['org', 'apply', '-f', file, '--json'], { openTransport: racing });
    expect(r.code).toBe(EXIT.partial);
    expect(jsonLines(r.stdout)).toEqual([
      expect.objectContaining({
        target: 'settings/can_move_messages_between_topics_group',
        ok: false,
        error: "'old' value does not match the expected value.",
      }),
    ]);
    expect((await exported()).settings.can_move_messages_between_topics_group).toBe(current);
  });
});

describe('org apply stopped by the rate limit (exit 75)', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('keeps its journal, refuses a new apply, and --resume sends only what was not done', async () => {
    const sent: string[] = [];
    let refuse = true;
    /** The second change is refused with a 429 asking for an hour, longer than --max-wait allows. */
    const limited = async (...a: Parameters<typeof openTransport>): Promise<Transport> => {
      const inner = await openTransport(...a);
      return intercepting(inner, async (req: WireRequest, signal?: AbortSignal) => {
        if (req.method === 'POST' && req.path === '/user_groups/create') {
          if (refuse && sent.length === 1)
            return {
              status: 429,
              headers: { 'retry-after': '3600', 'content-type': 'application/json' },
              body: { result: 'error', msg: 'API usage exceeded rate limit', 'retry-after': 3600, code: 'RATE_LIMIT_HIT' },
            };
          sent.push(req.body.find(([k]) => k === 'name')![1]);
        }
        return inner.send(req, signal);
      });
    };
    const names = [unique('first'), unique('second'), unique('third')];
    const file = docIn('org.yaml', { chatctl: 'org/v1', groups: names.map((name) => ({ name })) });
    const cli = async (argv: string[]) => {
      const t = await cliTarget(org, 'embedded');
      return runCli([...t.args, '--max-wait', '1', ...argv], { env: t.env, openTransport: limited });
    };
    const stopped = await cli(['org', 'apply', '-f', file, '--json']);
    expect(stopped.code, stopped.stderr).toBe(EXIT.temporary);
    expect(sent).toEqual([names[0]]);
    const again = await cli(['org', 'apply', '-f', file]);
    expect(again.code).toBe(EXIT.failure);
    expect(again.stderr).toContain('did not finish');
    refuse = false;
    const resumed = await cli(['org', 'apply', '--resume', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sent).toEqual(names);
    expect((await cli(['org', 'plan', '-f', file])).code).toBe(EXIT.ok);
  });
});
