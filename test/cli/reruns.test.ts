/**
 * Running a bulk command again: rows whose effect is already in place are `unchanged` (done, nothing sent),
 * and only real conflicts fail, saying what differs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTarget, jsonLines, runCli, tempHome, summariesIn } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('re-runs over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const run = async (argv: string[]) => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, ...argv, '--json'], { env: t.env });
    return { ...r, rows: jsonLines(r.stdout).map((o) => [o.target, o.status, o.id, o.error]) };
  };
  const file = (header: string, lines: string[]) => {
    const path = join(tempHome().home, 'rows.csv');
    writeFileSync(path, `${header}\n${lines.join('\n')}\n`);
    return path;
  };

  it('users create: the same person again is unchanged; another name or a deactivated account fails saying so', async () => {
    const same = org.addUser({ email: `same-${kind}@re.test`, name: 'Same Person' });
    const other = org.addUser({ email: `other-${kind}@re.test`, name: 'Other Person' });
    const gone = org.addUser({ email: `gone-${kind}@re.test`, name: 'Gone Person', active: false });
    const rows = file('email,full_name', [
      `SAME-${kind}@re.test,Same Person`,
      `other-${kind}@re.test,Another Name`,
      `gone-${kind}@re.test,Gone Person`,
      `new-${kind}@re.test,New Person`,
    ]);
    const before = org.db.prepare('SELECT count(*) FROM users').pluck().get() as number;

    const t = await cliTarget(org, kind);
    const planned = await runCli([...t.args, 'users', 'create', '--from-file', rows, '--dry-run', '--json'], { env: t.env });
    expect(planned.stderr).toContain(`row 1 (SAME-${kind}@re.test): unchanged, already in place`);
    // Only the new person's request would be sent; the conflicts are warned about.
    expect(planned.stdout.match(/"path":"\/api\/v1\/users"/g)).toHaveLength(1);
    expect(planned.stderr).toContain(`row 2 (other-${kind}@re.test): already has an account (user ${other.id}) named "Other Person", not "Another Name"`);

    const r = await run(['users', 'create', '--from-file', rows]);
    expect(r.code).toBe(3);
    const created = org.db.prepare('SELECT id FROM users WHERE email = ?').pluck().get(`new-${kind}@re.test`);
    expect(r.rows).toEqual([
      [`SAME-${kind}@re.test`, 'unchanged', same.id, null],
      [`other-${kind}@re.test`, 'failed', null, `already has an account (user ${other.id}) named "Other Person", not "Another Name"`],
      [
        `gone-${kind}@re.test`,
        'failed',
        null,
        `already has an account (user ${gone.id}), deactivated: reactivate it instead (chatctl users reactivate ${gone.id})`,
      ],
      [`new-${kind}@re.test`, 'created', created, null],
    ]);
    expect(summariesIn(r.stderr)).toEqual(['1 created, 1 unchanged, 2 failed']);
    expect(org.db.prepare('SELECT count(*) FROM users').pluck().get()).toBe(before + 1);
    expect(org.db.prepare('SELECT full_name FROM users WHERE id = ?').pluck().get(other.id)).toBe('Other Person');
  });

  it('users deactivate and reactivate: a user already so is unchanged, exit 0', async () => {
    const active = org.addUser();
    const inactive = org.addUser({ active: false });
    const off = await run(['users', 'deactivate', String(active.id), inactive.email, '--yes']);
    expect(off.code).toBe(0);
    expect(off.rows).toEqual([
      [String(active.id), 'deactivated', active.id, null],
      [inactive.email, 'unchanged', inactive.id, null],
    ]);
    const on = await run(['users', 'reactivate', String(active.id), org.owner.email]);
    expect(on.code).toBe(0);
    expect(on.rows).toEqual([
      [String(active.id), 'reactivated', active.id, null],
      [org.owner.email, 'unchanged', org.owner.id, null],
    ]);
    expect(on.stderr).toContain('chatctl: 1 reactivated, 1 unchanged, 0 failed\n');
  });

  it.each(['csv', 'ndjson', 'json'] as const)(
    'users reactivate takes the file users deactivate took, and users list --format %s as it prints it',
    async (format) => {
      const people = [org.addUser(), org.addUser()];
      const t = await cliTarget(org, kind);
      const listed = await runCli([...t.args, 'users', 'list', '--ids', people.map((u) => u.id).join(','), '--format', format], { env: t.env });
      expect(listed.code).toBe(0);
      const path = join(tempHome().home, `people.${format === 'ndjson' ? 'jsonl' : format}`);
      writeFileSync(path, listed.stdout);
      const active = () => people.map((u) => org.db.prepare('SELECT is_active FROM users WHERE id = ?').pluck().get(u.id));

      const off = await run(['users', 'deactivate', '--from-file', path, '--yes']);
      expect(off.rows.map((r) => r.slice(1, 3))).toEqual(people.map((u) => ['deactivated', u.id]));
      expect(active()).toEqual([0, 0]);
      const on = await run(['users', 'reactivate', '--from-file', path]);
      expect(on.code).toBe(0);
      expect(on.rows.map((r) => r.slice(1, 3))).toEqual(people.map((u) => ['reactivated', u.id]));
      expect(active()).toEqual([1, 1]);
      const again = await run(['users', 'reactivate', '--from-file', path]);
      expect(again.rows.map((r) => r[1])).toEqual(['unchanged', 'unchanged']);
    },
  );

  it('users reactivate reads a file of user, user_id or email rows, with other columns, from stdin as JSON lines too', async () => {
    const [a, b] = [org.addUser({ active: false }), org.addUser({ active: false })];
    const t = await cliTarget(org, kind);
    const stdin = `${JSON.stringify({ user_id: a.id, full_name: 'x', role: 400 })}\n${JSON.stringify({ email: b.email, status: 'inactive' })}\n`;
    const r = await runCli([...t.args, 'users', 'reactivate', '--from-file', '-', '--json'], { env: t.env, stdin });
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((o) => [o.status, o.id])).toEqual([
      ['reactivated', a.id],
      ['reactivated', b.id],
    ]);
  });

  it('users update --from-file: every row is checked before anything is sent; a re-run is unchanged', async () => {
    const [a, b] = [org.addUser({ name: 'Ann Before' }), org.addUser({ name: 'Bob Before' })];
    const bad = file('user,full_name,role', [`${a.id},Ann After,moderator`, `${b.email},,superuser`, `${b.id},,`]);
    const t = await cliTarget(org, kind);
    const refused = await runCli([...t.args, 'users', 'update', '--from-file', bad], { env: t.env });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`line 3 (row 2), column role: unknown role "superuser" (roles: owner, admin, moderator, member, guest)`);
    expect(refused.stderr).toContain('line 4 (row 3): nothing to change (no full_name, role or new_email)');
    // Row 1 was good, and still nothing was sent.
    expect(org.db.prepare('SELECT full_name, role FROM users WHERE id = ?').get(a.id)).toEqual({ full_name: 'Ann Before', role: 400 });

    const good = file('user,full_name,role', [`${a.id},Ann After,moderator`, `${b.email},Bob Before,guest`]);
    const done = await run(['users', 'update', '--from-file', good]);
    expect(done.code).toBe(0);
    expect(done.rows).toEqual([
      [String(a.id), 'updated', a.id, null],
      [b.email, 'updated', b.id, null],
    ]);
    expect(org.db.prepare('SELECT full_name, role FROM users WHERE id = ?').get(a.id)).toEqual({ full_name: 'Ann After', role: 300 });
    expect(org.db.prepare('SELECT full_name, role FROM users WHERE id = ?').get(b.id)).toEqual({ full_name: 'Bob Before', role: 600 });

    const dry = await runCli([...t.args, 'users', 'update', '--from-file', good, '--dry-run'], { env: t.env });
    expect(dry.stdout).toBe('');
    expect(dry.stderr).toContain(`row 1 (${a.id}): unchanged, already in place`);
    const again = await run(['users', 'update', '--from-file', good]);
    expect(again.code).toBe(0);
    expect(again.rows.map((r) => r[1])).toEqual(['unchanged', 'unchanged']);
    expect(again.stderr).toContain('chatctl: 0 updated, 2 unchanged, 0 failed\n');
  });

  it('users update sends only what differs: the same name with a new role sends the role', async () => {
    const a = org.addUser({ name: 'Same Name' });
    const t = await cliTarget(org, kind);
    const dry = await runCli([...t.args, 'users', 'update', String(a.id), '--name', 'Same Name', '--role', 'moderator', '--dry-run'], { env: t.env });
    expect(jsonLines(dry.stdout)).toEqual([
      { method: 'PATCH', path: `/api/v1/users/${a.id}`, body: { role: '300' }, target: `user ${a.id} (${a.email}, Same Name)` },
    ]);
    const same = await runCli([...t.args, 'users', 'update', a.email, '--name', 'Same Name'], { env: t.env });
    expect(same.code).toBe(0);
    expect(same.stderr).toContain(`User ${a.id} (${a.email}, Same Name) unchanged: already updated.`);
  });

  it('invite send: a pending invitation with the same role is unchanged, with another role a conflict; nothing is sent twice', async () => {
    const first = await run(['invite', 'send', `p1-${kind}@re.test`, `p2-${kind}@re.test`, '--as', 'guest']);
    expect(first.code).toBe(0);
    const id = (email: string) => org.db.prepare('SELECT id FROM invites WHERE email = ?').pluck().get(email);
    const again = await run(['invite', 'send', `p1-${kind}@re.test`, `p3-${kind}@re.test`, '--as', 'guest']);
    expect(again.code).toBe(0);
    expect(again.rows).toEqual([
      [`p1-${kind}@re.test`, 'unchanged', id(`p1-${kind}@re.test`), null],
      [`p3-${kind}@re.test`, 'invited', null, null],
    ]);
    const member = await run(['invite', 'send', `p2-${kind}@re.test`]);
    expect(member.code).toBe(3);
    expect(member.rows[0]![3]).toBe(
      `already invited as guest (invitation ${id(`p2-${kind}@re.test`)}), not member: revoke it first (chatctl invite revoke email:${id(`p2-${kind}@re.test`)})`,
    );
    for (const n of [1, 2, 3]) expect(org.db.prepare('SELECT count(*) FROM invites WHERE email = ?').pluck().get(`p${n}-${kind}@re.test`)).toBe(1);
  });
});
