import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { tryLock } from '../../src/cli/bulk/lock.js';
import { EXIT } from '../../src/errors.js';
import { cliTarget, jsonLines, runCli, fileIn, tempHome } from '../helpers/cli.js';
import { unique } from '../helpers/names.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';

type Obj = Record<string, unknown>;
type Doc = Obj & { channels: Obj[]; users: Obj[] };

/** The document `doc` in a YAML file. */
const docIn = (doc: unknown): string => fileIn('org.yaml', stringify(doc));

describe('org apply never crosses its rails', () => {
  let org: TestOrg;
  let admin: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200 });
  });
  afterAll(() => org.close());

  const run = async (argv: string[], as: TestUser = org.owner) => {
    const t = await cliTarget(org, 'embedded', as);
    return runCli([...t.args, ...argv], { env: t.env });
  };
  const exported = async (as?: TestUser): Promise<Doc> => parseYaml((await run(['org', 'export'], as)).stdout) as Doc;
  const channelArchived = (name: string) => org.db.prepare('SELECT is_archived FROM streams WHERE name = ?').pluck().get(name) === 1;

  it('leaves what the file protects alone: a channel under protect: is neither changed nor archived', async () => {
    const kept = unique('kept', '-');
    const gone = unique('gone', '-');
    for (const name of [kept, gone]) expect((await run(['channels', 'create', name])).code).toBe(0);
    const doc = await exported();
    const file = {
      chatctl: 'org/v1',
      protect: { channels: [kept] },
      // Both left out: with --prune channels both would be archived; the protected one is not. The protected
      // one's description is asked for too, and not sent.
      channels: [...doc.channels.filter((c) => c.name !== kept && c.name !== gone), { name: kept, description: 'rewritten' }],
    };
    const r = await run(['org', 'apply', '-f', docIn(file), '--prune', 'channels', '--max-removals', '100%', '--yes', '--json']);
    const rows = jsonLines(r.stdout);
    expect(rows.find((row) => String(row.target).includes(kept))).toMatchObject({ ok: false, error: expect.stringContaining('protect:') });
    expect(rows.find((row) => String(row.target).includes(gone))).toMatchObject({ ok: true });
    expect(r.code).toBe(EXIT.partial);
    expect(channelArchived(kept)).toBe(false);
    expect(org.db.prepare('SELECT description FROM streams WHERE name = ?').pluck().get(kept)).not.toBe('rewritten');
    expect(channelArchived(gone)).toBe(true);
  });

  it('never demotes or deactivates the last owner, even when an administrator applies a file that says so', async () => {
    const doc = await exported(admin);
    const owners = doc.users.filter((u) => u.role === 'owner');
    expect(owners.map((u) => u.email)).toEqual([org.owner.email]);
    for (const change of [{ role: 'member' }, { active: false }]) {
      const users = doc.users.map((u) => (u.email === org.owner.email ? { ...u, ...change } : u));
      const plan = await run(['org', 'plan', '-f', docIn({ chatctl: 'org/v1', users }), '--format', 'json'], admin);
      const { changes } = JSON.parse(plan.stdout) as { changes: Obj[] };
      expect(changes).toEqual([
        expect.objectContaining({ address: `users/${org.owner.email}`, action: 'cannot', reason: 'never removes the last owner of the organization' }),
      ]);
      const r = await run(['org', 'apply', '-f', docIn({ chatctl: 'org/v1', users }), '--yes', '--json'], admin);
      expect(r.code).toBe(EXIT.partial);
    }
    expect(org.db.prepare('SELECT role, is_active FROM users WHERE id = ?').get(org.owner.id)).toEqual({ role: 100, is_active: 1 });
  });

  it('runs one apply at a time per organization: a second one exits 75, sending nothing', async () => {
    const name = unique('locked', '-');
    const doc = await exported();
    const held = tryLock(join(org.dataDir, 'org-apply.lock'));
    try {
      expect('release' in held).toBe(true);
      const file = docIn({ chatctl: 'org/v1', channels: [...doc.channels, { name, description: 'while locked' }] });
      const r = await run(['org', 'apply', '-f', file, '--yes']);
      expect(r.code).toBe(EXIT.temporary);
      expect(r.stderr).toContain('another org apply');
      expect(org.db.prepare('SELECT count(*) FROM streams WHERE name = ?').pluck().get(name)).toBe(0);
    } finally {
      if ('release' in held) held.release();
    }
  });

  it('refuses a plan saved against another organization (exit 1), sending nothing there', async () => {
    const other = createTestOrg();
    try {
      const name = unique('elsewhere', '-');
      const saved = join(tempHome().home, 'plan.json');
      // Only a creation: nothing it touches exists in either organization, so the fingerprints alone agree.
      expect((await run(['org', 'plan', '-f', docIn({ chatctl: 'org/v1', groups: [{ name }] }), '--out', saved])).code).toBe(EXIT.pending);
      const t = await cliTarget(other, 'embedded');
      const r = await runCli([...t.args, 'org', 'apply', '--plan', saved, '--yes'], { env: t.env });
      expect(r.code).toBe(EXIT.failure);
      expect(r.stderr).toContain(`the saved plan was made for embedded:${org.dataDir}`);
      expect(other.db.prepare('SELECT count(*) FROM user_groups WHERE name = ?').pluck().get(name)).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('--max-removals 0% refuses any removal, as 0 does (the "at least 1" floor is for shares above zero)', async () => {
    const doc = await exported();
    const name = unique('kept-at-zero', '-');
    expect((await run(['channels', 'create', name])).code).toBe(0);
    for (const max of ['0%', '0']) {
      const r = await run(['org', 'apply', '-f', docIn({ chatctl: 'org/v1', channels: doc.channels }), '--prune', 'channels', '--max-removals', max, '--yes']);
      expect(r.code, max).toBe(EXIT.failure);
      expect(r.stderr).toContain('the plan removes too much');
      expect(channelArchived(name)).toBe(false);
    }
  });
});
