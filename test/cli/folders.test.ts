import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTarget, expectUsageError, parse, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

describe('folders: parsing', () => {
  it('maps argv to options', async () => {
    const u = await parse(['folders', 'update', 'Social', '--name', 'Fun', '--archive', '--dry-run']);
    expect(u.spec.path).toEqual(['folders', 'update']);
    expect(u.opts).toMatchObject({ folder: 'Social', name: 'Fun', archive: true, dryRun: true });
    const c = await parse(['folders', 'create', 'Eng', '--description', 'Engineering']);
    expect(c.opts).toMatchObject({ name: 'Eng', description: 'Engineering' });
  });

  it.each([
    [['folders', 'update', '3'], 'nothing to change: pass --name, --description, --archive or --unarchive'],
    [['folders', 'update', '3', '--archive', '--unarchive'], '--archive and --unarchive exclude each other'],
    [['folders', 'update', '3', '--name', ' '], 'a folder needs a name'],
    [['folders', 'create', ''], 'a folder needs a name'],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('folders commands over %s', (kind) => {
  let org: TestOrg;
  let n = 0;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const folder = (id: number) => org.db.prepare('SELECT name, description, is_archived FROM channel_folders WHERE id = ?').get(id) as Record<string, unknown>;

  async function create(): Promise<{ id: number; name: string }> {
    const name = `Folder ${kind} ${++n}`;
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'folders', 'create', name, '--description', 'Things', '--json'], { env: t.env });
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as { id: number; name: string };
  }

  it('creates a folder and prints its ID; lists folders (archived only with --archived)', async () => {
    const a = await create();
    expect(folder(a.id)).toEqual({ name: a.name, description: 'Things', is_archived: 0 });
    const b = await create();
    const t = await cliTarget(org, kind);
    await runCli([...t.args, 'folders', 'update', String(b.id), '--archive'], { env: t.env });
    const tsv = await runCli([...t.args, 'folders', 'list'], { env: t.env });
    expect(tsv.code).toBe(0);
    expect(tsv.stdout.split('\n')).toContain(`${a.id}\t${a.name}\tThings\tfalse`);
    expect(tsv.stdout).not.toContain(b.name);
    const json = await runCli([...t.args, 'folders', 'list', '--archived', '--json'], { env: t.env });
    expect((JSON.parse(json.stdout) as { id: number; is_archived: boolean; rendered_description: string }[]).find((f) => f.id === b.id)).toMatchObject({
      is_archived: true,
      rendered_description: '<p>Things</p>',
    });
    const table = await runCli([...t.args, 'folders', 'list'], { env: { ...t.env, NO_COLOR: '1' }, tty: true });
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+DESCRIPTION\s+IS_ARCHIVED$/);
  });

  it('renames, describes, archives and unarchives, by ID or name', async () => {
    const f = await create();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'folders', 'update', f.name, '--name', `${f.name} renamed`, '--description', 'New'], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`chatctl: folder ${f.name} updated\n`);
    expect(folder(f.id)).toEqual({ name: `${f.name} renamed`, description: 'New', is_archived: 0 });
    await runCli([...t.args, 'folders', 'update', String(f.id), '--archive'], { env: t.env });
    expect(folder(f.id).is_archived).toBe(1);
    await runCli([...t.args, 'folders', 'update', `${f.name} renamed`, '--unarchive'], { env: t.env });
    expect(folder(f.id).is_archived).toBe(0);
  });

  it('prints the request with --dry-run and changes nothing', async () => {
    const f = await create();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'folders', 'update', String(f.id), '--archive', '--dry-run'], { env: t.env });
    expect(JSON.parse(r.stdout)).toEqual({ method: 'PATCH', path: `/api/v1/channel_folders/${f.id}`, body: { is_archived: 'true' } });
    expect(folder(f.id).is_archived).toBe(0);
    const c = await runCli([...t.args, 'folders', 'create', 'Never', '--dry-run'], { env: t.env });
    expect(JSON.parse(c.stdout)).toEqual({ method: 'POST', path: '/api/v1/channel_folders/create', body: { name: 'Never', description: '' } });
    expect(org.db.prepare("SELECT count(*) FROM channel_folders WHERE name = 'Never'").pluck().get()).toBe(0);
  });

  it('exits 6 for an unknown folder and 5 for a member', async () => {
    const t = await cliTarget(org, kind);
    const byId = await runCli([...t.args, 'folders', 'update', '9999', '--name', 'x'], { env: t.env });
    expect(byId.code).toBe(6);
    expect(byId.stderr).toContain('Invalid channel folder ID');
    const byName = await runCli([...t.args, 'folders', 'update', 'Nothing like it', '--name', 'x'], { env: t.env });
    expect(byName.code).toBe(6);
    const member = org.addUser();
    const m = await cliTarget(org, kind, member);
    const refused = await runCli([...m.args, 'folders', 'create', 'Mine'], { env: m.env });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('Must be an organization administrator');
  });
});
