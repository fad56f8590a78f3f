import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTarget, expectUsageError, jsonLines, parse, runCli, scriptedPrompter, tempHome, summariesIn } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { intercepting, transportFor, TRANSPORTS } from '../helpers/transports.js';
import type { Transport } from '../../src/client/transport.js';

describe('users: parsing', () => {
  it('maps argv to options', async () => {
    const p = await parse(['users', 'update', 'ada@example.com', '--role', 'admin', '--profile-field', '3=x', '--profile-field', '4=', '--dry-run']);
    expect(p.spec.path).toEqual(['users', 'update']);
    expect(p.opts).toMatchObject({
      user: 'ada@example.com',
      role: 200,
      profileField: [
        { id: 3, value: 'x' },
        { id: 4, value: null },
      ],
      dryRun: true,
    });
    const d = await parse(['users', 'deactivate', '3', '4', '-y', '--comment', 'bye']);
    expect(d.opts).toMatchObject({ users: ['3', '4'], yes: true, comment: 'bye' });
  });

  it.each([
    [['users', 'update', '5'], 'nothing to change: pass --name, --role, --profile-field or --new-email'],
    [['users', 'update', '5', '--role', 'king'], 'unknown role "king"'],
    [['users', 'update', '5', '--profile-field', 'x=y'], '--profile-field takes ID=VALUE'],
    [['users', 'create', 'a@b.test'], '--name is required with EMAIL'],
    [['users', 'deactivate'], 'name at least one user (ID or e-mail), or pass --from-file'],
    [['users', 'list', '--active', '--deactivated'], '--active and --deactivated exclude each other'],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('users commands over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('creates one user and gets it by e-mail and by ID', async () => {
    const t = await cliTarget(org, kind);
    const created = await runCli([...t.args, 'users', 'create', `ada-${kind}@example.com`, '--name', 'Ada Lovelace', '--json'], { env: t.env });
    expect(created.code).toBe(0);
    const [outcome] = jsonLines(created.stdout);
    expect(outcome).toMatchObject({ row: 1, target: `ada-${kind}@example.com`, ok: true, status: 'created' });
    const byEmail = await runCli([...t.args, 'users', 'get', `ADA-${kind}@example.com`, '--json'], { env: t.env });
    expect(JSON.parse(byEmail.stdout)).toMatchObject({ user_id: outcome!.id, full_name: 'Ada Lovelace', role: 400 });
    const byId = await runCli([...t.args, 'users', 'get', String(outcome!.id), '--fields', 'full_name'], { env: t.env });
    expect(byId.stdout).toBe('Ada Lovelace\n');
    const missing = await runCli([...t.args, 'users', 'get', 'nobody@example.com'], { env: t.env });
    expect(missing.code).toBe(6);
  });

  it('creates from a CSV, reports every row as a JSON line, continues past bad rows, exits 3', async () => {
    const t = await cliTarget(org, kind);
    const file = join(tempHome().home, 'people.csv');
    writeFileSync(file, `email,full_name\nb-${kind}@example.com,Bee\nnot-an-address,Bad Row\nc-${kind}@example.com,Cee Cee\n`);
    const r = await runCli([...t.args, 'users', 'create', '--from-file', file, '--json'], { env: t.env });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout).map((o) => [o.row, o.ok, o.status])).toEqual([
      [1, true, 'created'],
      [2, false, 'failed'],
      [3, true, 'created'],
    ]);
    expect(jsonLines(r.stdout)[1]).toMatchObject({ target: 'not-an-address', error: 'Bad name or username', code: 'BAD_REQUEST' });
    expect(summariesIn(r.stderr)).toEqual(['2 created, 1 failed']);
  });

  it("reports unchanged a row whose account a killed run's request made after this run looked; another name still fails", async () => {
    const t = await cliTarget(org, kind);
    const file = join(tempHome().home, 'landed.csv');
    const [same, renamed, fresh] = ['same', 'renamed', 'fresh'].map((w) => `landed-${w}-${kind}@example.com`);
    writeFileSync(file, `email,full_name\n${same},Same Name\n${renamed},Old Name\n${fresh},Fresh Name\n`);
    // The killed run's requests: each lands on the server just before this run's own request for the row.
    const landed = new Map([
      [same, 'Same Name'],
      [renamed, 'Other Name'],
    ]);
    const inFlightFirst = async (): Promise<Transport> => {
      const inner = await transportFor(org, kind);
      return intercepting(inner, async (req, signal) => {
        const email = req.method === 'POST' && req.path === '/users' ? (req.body.find(([k]) => k === 'email')?.[1] ?? null) : null;
        const name = email === null ? undefined : landed.get(email);
        if (email !== null && name !== undefined) {
          landed.delete(email);
          await inner.send(
            {
              ...req,
              body: [
                ['email', email],
                ['full_name', name],
                ['password', 'pass-word-1'],
              ],
            },
            signal,
          );
        }
        return inner.send(req, signal);
      });
    };
    const r = await runCli([...t.args, 'users', 'create', '--from-file', file, '--json'], { env: t.env, openTransport: inFlightFirst });
    expect(landed.size).toBe(0);
    expect(jsonLines(r.stdout).map((o) => [o.target, o.status])).toEqual([
      [same, 'unchanged'],
      [renamed, 'failed'],
      [fresh, 'created'],
    ]);
    expect(jsonLines(r.stdout)[1]).toMatchObject({ error: `Email '${renamed}' already in use` });
    expect(summariesIn(r.stderr)).toEqual(['1 created, 1 unchanged, 1 failed']);
    expect(r.code).toBe(3);
  });

  it('stops at the first failure with --fail-fast, and reports the rest as skipped', async () => {
    const t = await cliTarget(org, kind);
    const file = join(tempHome().home, 'people.jsonl');
    writeFileSync(file, `{"email":"bad","full_name":"X Y"}\n{"email":"d-${kind}@example.com","full_name":"Dee"}\n`);
    const r = await runCli([...t.args, 'users', 'create', '--from-file', file, '--fail-fast', '--json'], { env: t.env });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout).map((o) => o.status)).toEqual(['failed', 'skipped']);
  });

  it('refuses a file with an unknown or missing column before sending anything', async () => {
    const t = await cliTarget(org, kind);
    const file = join(tempHome().home, 'bad.csv');
    writeFileSync(file, 'email,name\nx@example.com,X\n');
    const r = await runCli([...t.args, 'users', 'create', '--from-file', file], { env: t.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line 1, column name: unknown column');
    expect(r.stderr).toContain('line 1, column full_name: missing (required)');
    expect(r.stderr).toContain('hint: columns: email (required), full_name (required), password');
  });

  it('updates a role, and the change shows in users list', async () => {
    const target = org.addUser({ email: `e-${kind}@example.com` });
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'users', 'update', target.email, '--role', 'moderator'], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`1\t${target.email}\ttrue\tupdated\t${target.id}\t\t\n`);
    const list = await runCli([...t.args, 'users', 'list', '--role', 'moderator', '--fields', 'user_id'], { env: t.env });
    expect(list.stdout.split('\n')).toContain(String(target.id));
  });

  it('is refused by the server for a member: the row fails with its reason, exit 3', async () => {
    const member = org.addUser();
    const victim = org.addUser();
    const t = await cliTarget(org, kind, member);
    const r = await runCli([...t.args, 'users', 'deactivate', String(victim.id), '--yes'], { env: t.env });
    expect(r.code).toBe(3);
    // zerver/lib/users.py access_user_common (for_admin): no role gate before it.
    expect(r.stderr).toContain('Insufficient permission (BAD_REQUEST)');
  });

  it('deactivates only with --yes when not on a terminal, and reactivates', async () => {
    const a = org.addUser();
    const b = org.addUser();
    const t = await cliTarget(org, kind);
    const refused = await runCli([...t.args, 'users', 'deactivate', String(a.id), b.email], { env: t.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    expect(org.db.prepare('SELECT is_active FROM users WHERE id = ?').pluck().get(a.id)).toBe(1);
    const done = await runCli([...t.args, 'users', 'deactivate', String(a.id), b.email, '--yes', '--json'], { env: t.env });
    expect(done.code).toBe(0);
    expect(jsonLines(done.stdout).map((o) => o.status)).toEqual(['deactivated', 'deactivated']);
    const back = await runCli([...t.args, 'users', 'reactivate', String(a.id)], { env: t.env });
    expect(back.code).toBe(0);
    expect(org.db.prepare('SELECT is_active FROM users WHERE id = ?').pluck().get(a.id)).toBe(1);
  });

  it('deactivates bots through DELETE /bots/{id}, by ID, by e-mail and from a file, humans through DELETE /users/{id}', async () => {
    const owner = org.addUser();
    const [b1, b2, b3] = [1, 2, 3].map(() => org.addUser({ bot: { type: 1, ownerId: owner.id } }));
    const human = org.addUser();
    const t = await cliTarget(org, kind);
    const dry = await runCli([...t.args, 'users', 'deactivate', String(b1!.id), human.email, '--dry-run'], { env: t.env });
    expect(dry.code).toBe(0);
    expect(
      dry.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { method: string; path: string }),
    ).toEqual([
      { method: 'DELETE', path: `/api/v1/bots/${b1!.id}`, target: `user ${b1!.id} (${b1!.email}, ${b1!.row.full_name})` },
      { method: 'DELETE', path: `/api/v1/users/${human.id}`, target: `user ${human.id} (${human.email}, ${human.row.full_name})` },
    ]);
    const done = await runCli([...t.args, 'users', 'deactivate', String(b1!.id), b2!.email, human.email, '--yes', '--json'], { env: t.env });
    expect(done.code).toBe(0);
    expect(jsonLines(done.stdout).map((o) => [o.id, o.status])).toEqual([
      [b1!.id, 'deactivated'],
      [b2!.id, 'deactivated'],
      [human.id, 'deactivated'],
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'chatctl-bots-')), 'leavers.csv');
    writeFileSync(file, `user\n${b3!.id}\n`);
    // The bot's owner, a member, may deactivate it too.
    const o = await cliTarget(org, kind, owner);
    expect((await runCli([...o.args, 'users', 'deactivate', '--from-file', file, '--yes'], { env: o.env })).code).toBe(0);
    const active = org.db.prepare('SELECT is_active FROM users WHERE id = ?').pluck();
    expect([b1, b2, b3, human].map((u) => active.get(u!.id))).toEqual([0, 0, 0, 0]);
  });

  it('asks on a terminal, and does nothing when the answer is no', async () => {
    const a = org.addUser();
    const t = await cliTarget(org, kind);
    const no = scriptedPrompter({ confirm: [false] });
    const r = await runCli([...t.args, 'users', 'deactivate', String(a.id)], { env: t.env, tty: true, prompter: no });
    expect(no.asked).toEqual([`Deactivate user ${a.id} (${a.email}, ${a.row.full_name})?`]);
    expect(r.code).toBe(130);
    expect(org.db.prepare('SELECT is_active FROM users WHERE id = ?').pluck().get(a.id)).toBe(1);
    const yes = scriptedPrompter({ confirm: [true] });
    expect((await runCli([...t.args, 'users', 'deactivate', String(a.id)], { env: t.env, tty: true, prompter: yes })).code).toBe(0);
  });

  it('names the users it asks about: a count and the first three, and not those already deactivated', async () => {
    const users = [1, 2, 3, 4, 5].map(() => org.addUser());
    const gone = org.addUser({ active: false });
    const t = await cliTarget(org, kind);
    const no = scriptedPrompter({ confirm: [false] });
    const refs = [String(gone.id), ...users.map((u, i) => (i % 2 ? u.email : String(u.id)))];
    const r = await runCli([...t.args, 'users', 'deactivate', ...refs], { env: t.env, tty: true, prompter: no });
    expect(r.code).toBe(130);
    const named = users.slice(0, 3).map((u) => `user ${u.id} (${u.email}, ${u.row.full_name})`);
    expect(no.asked).toEqual([`Deactivate 5 users: ${named.join(', ')} and 2 more?`]);
  });

  it('prints what it would send with --dry-run, secrets masked, and sends nothing', async () => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'users', 'create', `dry-${kind}@example.com`, '--name', 'Dry Run', '--password-stdin', '--dry-run'], {
      env: t.env,
      stdin: 'hunter22\n',
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      method: 'POST',
      path: '/api/v1/users',
      body: { email: `dry-${kind}@example.com`, full_name: 'Dry Run', password: '********' },
    });
    expect(r.stdout + r.stderr).not.toContain('hunter22');
    expect(org.db.prepare('SELECT count(*) FROM users WHERE email = ?').pluck().get(`dry-${kind}@example.com`)).toBe(0);
  });

  it('reports an unknown user in a batch as a failed row, exit 3', async () => {
    const a = org.addUser({ active: false });
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'users', 'reactivate', String(a.id), 'ghost@example.com'], { env: t.env });
    expect(r.code).toBe(3);
    expect(r.stdout.split('\n')[0]).toBe(`1\t${a.id}\ttrue\treactivated\t${a.id}\t\t`);
    expect(r.stdout.split('\n')[1]).toBe('2\tghost@example.com\tfalse\tfailed\t\tNo such user: ghost@example.com\tBAD_REQUEST');
  });
});
