import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { EXIT } from '../../src/errors.js';
import { cliTarget, runCli, fileIn } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';

type Obj = Record<string, unknown>;
type Doc = Obj & { channels: Obj[]; users: Obj[]; groups: Obj[] };

describe('org files from a hostile or careless hand', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const run = async (argv: string[]) => {
    const t = await cliTarget(org, 'embedded');
    return runCli([...t.args, ...argv], { env: t.env });
  };
  const exported = async (): Promise<Doc> => parseYaml((await run(['org', 'export'])).stdout) as Doc;

  it('a JSON file with a byte-order mark (as Windows editors save) reads as without one', async () => {
    const doc = await exported();
    const r = await run(['org', 'plan', '-f', fileIn('org.json', `\uFEFF${JSON.stringify(doc)}`)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toContain('In sync');
  });

  it('a group that is its own subgroup, directly or through others, is refused offline (exit 2) with the cycle', async () => {
    for (const [groups, cycle] of [
      [[{ name: 'loop', subgroups: ['loop'] }], 'loop → loop'],
      [
        [
          { name: 'a', subgroups: ['b'] },
          { name: 'b', subgroups: ['c'] },
          { name: 'c', subgroups: ['a'] },
        ],
        'a → b → c → a',
      ],
    ] as const) {
      const r = await run(['org', 'validate', '-f', fileIn('org.yaml', stringify({ chatctl: 'org/v1', groups }))]);
      expect(r.code).toBe(EXIT.usage);
      expect(r.stderr).toContain(`groups[0].subgroups: a group cannot contain itself: ${cycle}`);
      expect(r.stderr).toContain('1 problem(s)');
    }
  });

  it("a user's e-mail changed under the same id is sent (new_email) and applied, then in sync; never a rename that changes nothing", async () => {
    const user = org.addUser();
    const doc = await exported();
    const email = `renamed-${user.id}@example.com`;
    const users = doc.users.map((u) => (u.id === user.id ? { ...u, email } : u));
    const file = fileIn('org.yaml', stringify({ chatctl: 'org/v1', users }));
    const plan = await run(['org', 'plan', '-f', file, '--format', 'json']);
    expect(plan.code).toBe(EXIT.pending);
    expect((JSON.parse(plan.stdout) as { changes: Obj[] }).changes).toEqual([
      expect.objectContaining({
        address: `users/${user.email}`,
        action: 'rename',
        requests: [expect.objectContaining({ operation: 'update-user', params: { user_id: user.id, new_email: email } })],
      }),
    ]);
    const apply = await run(['org', 'apply', '-f', file, '--yes']);
    expect(apply.code, apply.stderr).toBe(EXIT.ok);
    expect(org.db.prepare('SELECT email FROM users WHERE id = ?').pluck().get(user.id)).toBe(email);
    expect((await run(['org', 'plan', '-f', file])).code).toBe(EXIT.ok);
  });

  it('two objects of the file that are one object on the server (one by its id, one by its name) are refused (exit 2), nothing sent', async () => {
    expect((await run(['channels', 'create', 'twice-named'])).code).toBe(0);
    const doc = await exported();
    const channel = doc.channels.find((c) => c.name === 'twice-named')!;
    const channels = [...doc.channels.filter((c) => c !== channel), { id: channel.id, name: 'twice-renamed' }, { name: 'twice-named', description: 'kept?' }];
    const file = fileIn('org.yaml', stringify({ chatctl: 'org/v1', channels }));
    for (const verb of ['plan', 'apply']) {
      const r = await run(['org', verb, '-f', file, '--yes'].slice(0, verb === 'plan' ? 4 : 5));
      expect(r.code, verb).toBe(EXIT.usage);
      expect(r.stderr).toContain(
        `channels[${channels.length - 1}] is channels/twice-named (id ${channel.id}), which channels[${channels.length - 2}] names too`,
      );
    }
    expect(org.db.prepare('SELECT name, description FROM streams WHERE id = ?').get(channel.id)).toEqual({ name: 'twice-named', description: '' });
  });

  it('two channels swapping names, and a group renamed to a name another gives up, are applied in an order the server takes', async () => {
    for (const name of ['swap-a', 'swap-b']) expect((await run(['channels', 'create', name])).code).toBe(0);
    for (const name of ['chain-1', 'chain-2'])
      expect((await run(['api', 'POST', '/user_groups/create', '-F', `name=${name}`, '-F', 'description=', '-F', 'members=[]'])).code).toBe(0);
    const doc = await exported();
    const id = (list: Obj[], name: string) => list.find((o) => o.name === name)!.id;
    const [a, b] = [id(doc.channels, 'swap-a'), id(doc.channels, 'swap-b')];
    const [g1, g2] = [id(doc.groups, 'chain-1'), id(doc.groups, 'chain-2')];
    const rename = (list: Obj[], to: Record<string, string>) => list.map((o) => (String(o.name) in to ? { ...o, name: to[String(o.name)] } : o));
    const channels = rename(doc.channels, { 'swap-a': 'swap-b', 'swap-b': 'swap-a' });
    // Listed first, chain-1 takes the name chain-2 gives up: chain-2 must move first.
    const groups = rename(doc.groups, { 'chain-1': 'chain-2', 'chain-2': 'chain-3' });
    const file = fileIn('org.yaml', stringify({ chatctl: 'org/v1', groups, channels }));
    const apply = await run(['org', 'apply', '-f', file, '--yes']);
    expect(apply.code, `${apply.stdout}${apply.stderr}`).toBe(EXIT.ok);
    const names = (table: string, ids: unknown[]) => ids.map((i) => org.db.prepare(`SELECT name FROM ${table} WHERE id = ?`).pluck().get(i));
    expect(names('streams', [a, b])).toEqual(['swap-b', 'swap-a']);
    expect(names('user_groups', [g1, g2])).toEqual(['chain-2', 'chain-3']);
    expect((await run(['org', 'plan', '-f', file])).code).toBe(EXIT.ok);
  });
});
