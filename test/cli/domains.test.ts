import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTarget, expectUsageError, jsonLines, parse, runCli, scriptedPrompter, summariesIn } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

describe('domains: parsing', () => {
  it('maps argv to options', async () => {
    expect((await parse(['domains', 'add', 'example.com', '--subdomains', '--dry-run'])).opts).toMatchObject({
      domain: 'example.com',
      subdomains: true,
      dryRun: true,
    });
    expect((await parse(['domains', 'add', 'example.com'])).opts.subdomains).toBe(false);
    expect((await parse(['domains', 'update', 'example.com', '--no-subdomains'])).opts).toMatchObject({
      domain: 'example.com',
      subdomains: false,
    });
    expect((await parse(['domains', 'update', 'example.com', '--subdomains'])).opts).toMatchObject({ subdomains: true });
    const rm = await parse(['domains', 'rm', 'a.test', 'b.test', '-y']);
    expect(rm.spec.path).toEqual(['domains', 'remove']);
    expect(rm.opts).toMatchObject({ domains: ['a.test', 'b.test'], yes: true });
    expect((await parse(['domains', 'ls', '--json'])).spec.path).toEqual(['domains', 'list']);
  });

  it.each([
    [['domains', 'update', 'example.com'], 'pass --subdomains or --no-subdomains'],
    [['domains', 'add'], "missing required argument 'domain'"],
    [['domains', 'remove'], "missing required argument 'domains'"],
    [['domains', 'list', '--fields', 'id'], 'unknown field "id"'],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('domains commands over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('starts empty: [] in JSON, a note on a terminal', async () => {
    const t = await cliTarget(org, kind);
    expect(await runCli([...t.args, 'domains', 'list', '--json'], { env: t.env })).toMatchObject({ code: 0, stdout: '[]\n' });
    const tty = await runCli([...t.args, 'domains', 'list'], { env: t.env, tty: true });
    expect(tty.stdout).toBe('');
    expect(tty.stderr).toContain('no allowed domains');
  });

  it('adds a domain and prints its new ID; list shows it in every format', async () => {
    const t = await cliTarget(org, kind);
    const added = await runCli([...t.args, 'domains', 'add', `${kind}.example.com`], { env: t.env });
    expect(added.code).toBe(0);
    const id = org.db.prepare('SELECT id FROM realm_domains WHERE domain = ?').pluck().get(`${kind}.example.com`);
    expect(added.stdout).toBe(`${id}\n`);
    const json = await runCli([...t.args, 'domains', 'add', `Sub.${kind}.example.org`, '--subdomains', '--json'], { env: t.env });
    expect(JSON.parse(json.stdout)).toEqual({ id: expect.any(Number), domain: `sub.${kind}.example.org` });

    const list = await runCli([...t.args, 'domains', 'list', '--json'], { env: t.env });
    expect(JSON.parse(list.stdout)).toEqual(
      expect.arrayContaining([
        { domain: `${kind}.example.com`, allow_subdomains: false },
        { domain: `sub.${kind}.example.org`, allow_subdomains: true },
      ]),
    );
    const tsv = await runCli([...t.args, 'domains', 'list'], { env: t.env });
    expect(tsv.stdout.split('\n')).toContain(`${kind}.example.com\tfalse`);
    const table = await runCli([...t.args, 'domains', 'list'], { env: { ...t.env, NO_COLOR: '1' }, tty: true });
    expect(table.stdout.split('\n')[0]).toMatch(/^DOMAIN\s+ALLOW_SUBDOMAINS$/);
    const csv = await runCli([...t.args, 'domains', 'list', '--format', 'csv', '--fields', 'domain'], { env: t.env });
    expect(csv.stdout.split('\n')[0]).toBe('domain');

    const twice = await runCli([...t.args, 'domains', 'add', `${kind}.example.com`], { env: t.env });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`The domain ${kind}.example.com is already a part of your organization.`);
  });

  it('is for owners only: an administrator gets exit 5', async () => {
    const admin = await cliTarget(org, kind, org.addUser({ role: 200 }));
    const r = await runCli([...admin.args, 'domains', 'add', `admin-${kind}.test`], { env: admin.env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('Must be an organization owner');
    expect((await runCli([...admin.args, 'domains', 'list', '--json'], { env: admin.env })).code).toBe(0);
  });

  it('updates subdomains both ways, whatever the case of the name', async () => {
    const t = await cliTarget(org, kind);
    const domain = `up-${kind}.test`;
    await runCli([...t.args, 'domains', 'add', domain], { env: t.env });
    const on = await runCli([...t.args, 'domains', 'update', domain.toUpperCase(), '--subdomains', '--json'], { env: t.env });
    expect(on.code).toBe(0);
    expect(JSON.parse(on.stdout)).toEqual({ row: 1, target: domain, ok: true, status: 'updated', id: null, error: null, code: null });
    expect(org.db.prepare('SELECT allow_subdomains FROM realm_domains WHERE domain = ?').pluck().get(domain)).toBe(1);
    expect((await runCli([...t.args, 'domains', 'update', domain, '--no-subdomains'], { env: t.env })).code).toBe(0);
    expect(org.db.prepare('SELECT allow_subdomains FROM realm_domains WHERE domain = ?').pluck().get(domain)).toBe(0);
    const missing = await runCli([...t.args, 'domains', 'update', `none-${kind}.test`, '--subdomains'], { env: t.env });
    expect(missing.code).toBe(6);
    expect(missing.stderr).toContain(`No entry found for domain none-${kind}.test.`);
  });

  it('prints the requests with --dry-run and changes nothing', async () => {
    const t = await cliTarget(org, kind);
    const add = await runCli([...t.args, 'domains', 'add', `dry-${kind}.test`, '--dry-run'], { env: t.env });
    expect(add.code).toBe(0);
    expect(JSON.parse(add.stdout)).toEqual({ method: 'POST', path: '/api/v1/realm/domains', body: { domain: `dry-${kind}.test`, allow_subdomains: 'false' } });
    expect(add.stderr).toContain('dry run: 1 request not sent');
    const upd = await runCli([...t.args, 'domains', 'update', `dry-${kind}.test`, '--subdomains', '--dry-run'], { env: t.env });
    expect(JSON.parse(upd.stdout)).toEqual({ method: 'PATCH', path: `/api/v1/realm/domains/dry-${kind}.test`, body: { allow_subdomains: 'true' } });
    const rm = await runCli([...t.args, 'domains', 'remove', `dry-${kind}.test`, '--dry-run'], { env: t.env });
    expect(JSON.parse(rm.stdout)).toEqual({ method: 'DELETE', path: `/api/v1/realm/domains/dry-${kind}.test`, target: `domain dry-${kind}.test` });
    expect(org.db.prepare('SELECT count(*) FROM realm_domains WHERE domain = ?').pluck().get(`dry-${kind}.test`)).toBe(0);
  });

  it('removes only with --yes when not on a terminal, one outcome per domain, exit 3 when some are missing', async () => {
    const t = await cliTarget(org, kind);
    const a = `rm-a-${kind}.test`;
    const b = `rm-b-${kind}.test`;
    await runCli([...t.args, 'domains', 'add', a], { env: t.env });
    await runCli([...t.args, 'domains', 'add', b], { env: t.env });
    const refused = await runCli([...t.args, 'domains', 'remove', a, b], { env: t.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Remove 2 allowed domains: not running interactively; pass --yes');
    const r = await runCli([...t.args, 'domains', 'remove', a, `gone-${kind}.test`, b, '--yes', '--json'], { env: t.env });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout).map((o) => [o.target, o.status])).toEqual([
      [a, 'removed'],
      [`gone-${kind}.test`, 'failed'],
      [b, 'removed'],
    ]);
    expect(summariesIn(r.stderr)).toEqual(['2 removed, 1 failed']);
    expect(org.db.prepare('SELECT count(*) FROM realm_domains WHERE domain IN (?, ?)').pluck().get(a, b)).toBe(0);
  });

  it('asks on a terminal before removing, and keeps the domain when the answer is no', async () => {
    const t = await cliTarget(org, kind);
    const domain = `ask-${kind}.test`;
    await runCli([...t.args, 'domains', 'add', domain], { env: t.env });
    const no = scriptedPrompter({ confirm: [false] });
    const r = await runCli([...t.args, 'domains', 'remove', domain], { env: t.env, tty: true, prompter: no });
    expect(no.asked).toEqual([`Remove the allowed domain ${domain}?`]);
    expect(r.code).toBe(130);
    expect(org.db.prepare('SELECT count(*) FROM realm_domains WHERE domain = ?').pluck().get(domain)).toBe(1);
    const yes = scriptedPrompter({ confirm: [true] });
    expect((await runCli([...t.args, 'domains', 'remove', domain], { env: t.env, tty: true, prompter: yes })).code).toBe(0);
    expect(org.db.prepare('SELECT count(*) FROM realm_domains WHERE domain = ?').pluck().get(domain)).toBe(0);
  });
});
