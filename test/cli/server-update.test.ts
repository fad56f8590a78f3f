/**
 * `chatctl server update` renames the organization (or changes its description) with PATCH /realm: the
 * embedded organization created on first use gets a name of its own, over either transport; a re-run says
 * unchanged; --dry-run sends nothing; a member is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE } from '../../src/api/roles.js';
import { cliTarget, expectUsageError, runCli, tempHome } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

const realmName = async (args: string[], env: Record<string, string>): Promise<unknown> =>
  (JSON.parse((await runCli([...args, 'server', 'settings', '--json'], { env })).stdout) as { realm_name: string }).realm_name;

describe('server update', () => {
  it('names the organization created on first use', async () => {
    const { env } = tempHome();
    const first = await runCli(['users', 'list'], { env });
    expect(first.stderr).toContain('created an embedded organization');
    expect(await realmName([], env)).toBe('Embedded organization');
    const renamed = await runCli(['server', 'update', '--name', 'Acme Corp'], { env });
    expect(renamed).toEqual({ code: 0, stdout: '', stderr: 'chatctl: renamed the organization to "Acme Corp"\n' });
    expect(await realmName([], env)).toBe('Acme Corp');
  });

  it.each([
    [['server', 'update'], 'say what to change: --name NAME, --description TEXT, or both'],
    [['server', 'update', '--name', '  '], '--name cannot be empty'],
  ])('%j is a usage error', async (argv, message) => {
    await expectUsageError(argv, message);
  });
});

describe.each(TRANSPORTS)('server update over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('renames, says unchanged on a re-run, and --dry-run sends nothing', async () => {
    const t = await cliTarget(org, kind);
    const name = `Renamed ${kind}`;
    const dry = await runCli([...t.args, 'server', 'update', '--name', name, '--description', 'About *us*', '--dry-run'], { env: t.env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('"method":"PATCH","path":"/api/v1/realm"');
    expect(await realmName(t.args, t.env)).not.toBe(name);

    const done = await runCli([...t.args, 'server', 'update', '--name', name, '--description', 'About *us*'], { env: t.env });
    expect(done).toEqual({ code: 0, stdout: '', stderr: `chatctl: renamed the organization to "${name}"\nchatctl: changed the description\n` });
    const settings = JSON.parse((await runCli([...t.args, 'server', 'settings', '--json'], { env: t.env })).stdout) as Record<string, unknown>;
    expect(settings).toMatchObject({ realm_name: name, realm_description: '<p>About <em>us</em></p>' });

    const again = await runCli([...t.args, 'server', 'update', '--name', name], { env: t.env });
    expect(again).toEqual({ code: 0, stdout: '', stderr: `chatctl: name unchanged: already "${name}"\n` });
  });

  it('refuses a member (exit 5) and a name over 40 characters (the server says so)', async () => {
    const member = org.addUser({ role: ROLE.member });
    const t = await cliTarget(org, kind, member);
    const refused = await runCli([...t.args, 'server', 'update', '--name', 'Mine'], { env: t.env });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('Must be an organization administrator');
    const owner = await cliTarget(org, kind);
    const long = await runCli([...owner.args, 'server', 'update', '--name', 'n'.repeat(41)], { env: owner.env });
    expect(long.code).toBe(1);
    expect(long.stderr).toContain('name is too long (limit: 40 characters)');
  });
});
