import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTarget, expectUsageError, jsonLines, parse, runCli, scriptedPrompter, tempHome } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

interface Row {
  id: number;
  pattern: string;
  url_template: string;
  example_input: string | null;
  reverse_template: string | null;
  alternative_url_templates: string;
}

describe('linkifiers: parsing', () => {
  it('maps argv to options', async () => {
    const p = await parse([
      'linkifiers',
      'add',
      '#(?P<id>[0-9]+)',
      'https://x.test/{id}',
      '--example-input',
      '#1',
      '--reverse-template',
      '#{id}',
      '--alternative-url-template',
      'https://y.test/{id}',
      '--alternative-url-template',
      'https://z.test/{id}',
    ]);
    expect(p.opts).toMatchObject({
      pattern: '#(?P<id>[0-9]+)',
      urlTemplate: 'https://x.test/{id}',
      exampleInput: '#1',
      reverseTemplate: '#{id}',
      alternativeUrlTemplate: ['https://y.test/{id}', 'https://z.test/{id}'],
    });
    const u = await parse(['linkifiers', 'update', '3', 'p', 't', '--clear-reverse', '--dry-run']);
    expect(u.opts).toMatchObject({ id: 3, pattern: 'p', urlTemplate: 't', clearReverse: true, dryRun: true });
    const r = await parse(['linkifiers', 'reorder', '3', '1', '2']);
    expect(r.opts).toMatchObject({ ids: [3, 1, 2] });
    expect((await parse(['linkifiers', 'rm', '4', '-y'])).spec.path).toEqual(['linkifiers', 'remove']);
  });

  it.each([
    [['linkifiers', 'add', 'p'], "missing required argument 'url_template'"],
    [['linkifiers', 'update', 'x', 'p', 't'], 'linkifier IDs are numbers, not "x"'],
    [['linkifiers', 'update', '3', 'p', 't', '--clear-reverse', '--example-input', 'y'], '--clear-reverse removes the reverse fields'],
    [['linkifiers', 'remove', '3', 'three'], 'linkifier IDs are numbers, not "three"'],
    [['linkifiers', 'reorder'], "missing required argument 'ids'"],
    [['linkifiers', 'list', '--fields', 'url'], 'unknown field "url"'],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('linkifiers commands over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const rows = (): Row[] => org.db.prepare('SELECT * FROM linkifiers ORDER BY "order", id').all() as Row[];
  const clear = () => org.db.prepare('DELETE FROM linkifiers').run();
  const add = async (pattern: string, template: string, extra: string[] = []) => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'linkifiers', 'add', pattern, template, ...extra, '--json'], { env: t.env });
    expect(r.code).toBe(0);
    return jsonLines(r.stdout)[0]!.id as number;
  };

  it('adds linkifiers (with reverse fields) and lists them in order, in every format', async () => {
    clear();
    const t = await cliTarget(org, kind);
    const added = await runCli([...t.args, 'linkifiers', 'add', '#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}'], { env: t.env });
    expect(added.code).toBe(0);
    const first = rows()[0]!;
    expect(added.stdout).toBe(`1\t#(?P<id>[0-9]+)\ttrue\tadded\t${first.id}\t\t\n`);
    const second = await add('RT(?P<id>[0-9]+)', 'https://rt.example.com/{id}', [
      '--reverse-template',
      'RT{id}',
      '--example-input',
      'RT42',
      '--alternative-url-template',
      'https://rt.example.com/ticket/{id}',
    ]);

    const json = await runCli([...t.args, 'linkifiers', 'list', '--json'], { env: t.env });
    expect(JSON.parse(json.stdout)).toEqual([
      {
        id: first.id,
        pattern: '#(?P<id>[0-9]+)',
        url_template: 'https://github.com/zulip/zulip/issues/{id}',
        example_input: null,
        reverse_template: null,
        alternative_url_templates: [],
      },
      {
        id: second,
        pattern: 'RT(?P<id>[0-9]+)',
        url_template: 'https://rt.example.com/{id}',
        example_input: 'RT42',
        reverse_template: 'RT{id}',
        alternative_url_templates: ['https://rt.example.com/ticket/{id}'],
      },
    ]);
    const tsv = await runCli([...t.args, 'linkifiers', 'list'], { env: t.env });
    expect(tsv.stdout).toBe(
      `${first.id}\t#(?P<id>[0-9]+)\thttps://github.com/zulip/zulip/issues/{id}\t\t[]\n` +
        `${second}\tRT(?P<id>[0-9]+)\thttps://rt.example.com/{id}\tRT{id}\t["https://rt.example.com/ticket/{id}"]\n`,
    );
    const table = await runCli([...t.args, 'linkifiers', 'list'], { env: { ...t.env, NO_COLOR: '1' }, tty: true, columns: 200 });
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+PATTERN\s+URL_TEMPLATE\s+REVERSE_TEMPLATE\s+ALTERNATIVE_URL_TEMPLATES$/);
    const empty = await runCli([...t.args, 'linkifiers', 'list', '--fields', 'example_input', '--format', 'ndjson'], { env: t.env });
    expect(jsonLines(empty.stdout)).toEqual([{ example_input: null }, { example_input: 'RT42' }]);
  });

  it("shows the server's validation message, exit 1", async () => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'linkifiers', 'add', '#(?P<num>[0-9]+)', 'https://x.test/{id}'], { env: t.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Group 'id' in URL template is not present in linkifier pattern.");
  });

  it('is for administrators: a member gets exit 5, and may still list', async () => {
    const member = org.addUser();
    const t = await cliTarget(org, kind, member);
    const r = await runCli([...t.args, 'linkifiers', 'add', 'X(?P<id>[0-9]+)', 'https://x.test/{id}'], { env: t.env });
    expect(r.code).toBe(5);
    expect((await runCli([...t.args, 'linkifiers', 'list', '--json'], { env: t.env })).code).toBe(0);
  });

  it('updates pattern and template, keeping the reverse fields unless cleared', async () => {
    clear();
    const id = await add('RT(?P<id>[0-9]+)', 'https://rt.example.com/{id}', ['--reverse-template', 'RT{id}', '--example-input', 'RT42']);
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'linkifiers', 'update', String(id), 'RT(?P<id>[0-9]+)', 'https://rt.example.org/{id}'], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`1\t${id}\ttrue\tupdated\t${id}\t\t\n`);
    expect(rows()[0]).toMatchObject({ url_template: 'https://rt.example.org/{id}', reverse_template: 'RT{id}', example_input: 'RT42' });
    const cleared = await runCli([...t.args, 'linkifiers', 'update', String(id), 'RT(?P<id>[0-9]+)', 'https://rt.example.org/{id}', '--clear-reverse'], {
      env: t.env,
    });
    expect(cleared.code).toBe(0);
    expect(rows()[0]).toMatchObject({ reverse_template: null, example_input: null, alternative_url_templates: '[]' });
    const missing = await runCli([...t.args, 'linkifiers', 'update', '99999', 'A(?P<id>[0-9]+)', 'https://a.test/{id}'], { env: t.env });
    expect(missing.code).toBe(6);
    expect(missing.stderr).toContain('Linkifier not found.');
  });

  it('prints the request with --dry-run and changes nothing', async () => {
    clear();
    const id = await add('A(?P<id>[0-9]+)', 'https://a.test/{id}');
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'linkifiers', 'update', String(id), 'B(?P<id>[0-9]+)', 'https://b.test/{id}', '--dry-run'], { env: t.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      method: 'PATCH',
      path: `/api/v1/realm/filters/${id}`,
      body: { pattern: 'B(?P<id>[0-9]+)', url_template: 'https://b.test/{id}' },
    });
    const dryAdd = await runCli([...t.args, 'linkifiers', 'add', 'C(?P<id>[0-9]+)', 'https://c.test/{id}', '--dry-run'], { env: t.env });
    expect(JSON.parse(dryAdd.stdout)).toEqual({
      method: 'POST',
      path: '/api/v1/realm/filters',
      body: { pattern: 'C(?P<id>[0-9]+)', url_template: 'https://c.test/{id}' },
    });
    expect(rows().map((l) => l.pattern)).toEqual(['A(?P<id>[0-9]+)']);
  });

  it('removes with --yes or a yes on a terminal; exit 3 when any ID fails, the only one given too', async () => {
    clear();
    const a = await add('A(?P<id>[0-9]+)', 'https://a.test/{id}');
    const b = await add('B(?P<id>[0-9]+)', 'https://b.test/{id}');
    const c = await add('C(?P<id>[0-9]+)', 'https://c.test/{id}');
    const t = await cliTarget(org, kind);
    const refused = await runCli([...t.args, 'linkifiers', 'remove', String(a)], { env: t.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    const yes = scriptedPrompter({ confirm: [true] });
    const asked = await runCli([...t.args, 'linkifiers', 'remove', String(a)], { env: t.env, tty: true, prompter: yes });
    expect(yes.asked).toEqual([`Remove linkifier ${a}?`]);
    expect(asked.code).toBe(0);
    const one = await runCli([...t.args, 'linkifiers', 'remove', '99999', '--yes'], { env: t.env });
    expect(one.code).toBe(3);
    const some = await runCli([...t.args, 'linkifiers', 'remove', String(b), '99999', String(c), '--yes', '--json'], { env: t.env });
    expect(some.code).toBe(3);
    expect(jsonLines(some.stdout).map((o) => [o.target, o.status])).toEqual([
      [String(b), 'removed'],
      ['99999', 'failed'],
      [String(c), 'removed'],
    ]);
    expect(rows()).toEqual([]);
  });

  it('reorders, and shows the current order when the list is incomplete', async () => {
    clear();
    const a = await add('A(?P<id>[0-9]+)', 'https://a.test/{id}');
    const b = await add('B(?P<id>[0-9]+)', 'https://b.test/{id}');
    const c = await add('C(?P<id>[0-9]+)', 'https://c.test/{id}');
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'linkifiers', 'reorder', String(c), String(a), String(b)], { env: t.env });
    expect(r).toEqual({ code: 0, stdout: '', stderr: `chatctl: linkifiers reordered: ${c} ${a} ${b}\n` });
    const listed = await runCli([...t.args, 'linkifiers', 'list', '--fields', 'id'], { env: t.env });
    expect(listed.stdout).toBe(`${c}\n${a}\n${b}\n`);
    const partial = await runCli([...t.args, 'linkifiers', 'reorder', String(a), String(b)], { env: t.env });
    expect(partial.code).toBe(1);
    expect(partial.stderr).toBe(
      `chatctl: the current order is: ${c} ${a} ${b}\nchatctl: The ordered list must enumerate all existing linkifiers exactly once (BAD_REQUEST)\n`,
    );
    const dry = await runCli([...t.args, 'linkifiers', 'reorder', String(a), String(b), String(c), '--dry-run'], { env: t.env });
    expect(JSON.parse(dry.stdout)).toEqual({ method: 'PATCH', path: '/api/v1/realm/linkifiers', body: { ordered_linkifier_ids: `[${a},${b},${c}]` } });
    expect(rows().map((l) => l.id)).toEqual([c, a, b]);
  });
});

describe('linkifiers against a server below feature level 176 (url_format)', () => {
  it('lists the template as an RFC 6570 template, and adds with url_format_string', async () => {
    const requests: { line: string; body: string }[] = [];
    // A stand-in for an old Zulip server: the endpoints these commands use, in their pre-176 form.
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        requests.push({ line: `${req.method} ${req.url}`, body });
        const answer = req.url?.startsWith('/api/v1/server_settings')
          ? { result: 'success', msg: '', zulip_feature_level: 150, zulip_version: '6.2', zulip_merge_base: '6.2' }
          : req.url?.startsWith('/api/v1/realm/linkifiers')
            ? { result: 'success', msg: '', linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]+)', url_format: 'https://x.test/%(id)s?a=100%%' }] }
            : req.method === 'POST' && req.url === '/api/v1/realm/filters'
              ? { result: 'success', msg: '', id: 2 }
              : { result: 'error', msg: 'unexpected', code: 'BAD_REQUEST' };
        res.writeHead(answer.result === 'success' ? 200 : 400, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const env = { ...tempHome().env, ZULIP_EMAIL: 'admin@old.test', ZULIP_API_KEY: 'A'.repeat(32) };
    try {
      const list = await runCli(['--server', site, 'linkifiers', 'list', '--fields', 'id,url_template'], { env });
      expect(list).toMatchObject({ code: 0, stdout: '1\thttps://x.test/{id}?a=100%\n' });
      const add = await runCli(['--server', site, 'linkifiers', 'add', 'X(?P<id>[0-9]+)', 'https://x.test/{id}?q=5%'], { env });
      expect(add).toMatchObject({ code: 0, stderr: expect.stringContaining('Added X(?P<id>') });
      const posted = requests.find((r) => r.line === 'POST /api/v1/realm/filters')!;
      expect(Object.fromEntries(new URLSearchParams(posted.body))).toEqual({ pattern: 'X(?P<id>[0-9]+)', url_format_string: 'https://x.test/%(id)s?q=5%%' });

      const sent = requests.length;
      const operators = await runCli(['--server', site, 'linkifiers', 'add', 'Y(?P<id>[0-9]+)', 'https://x.test/{+id}'], { env });
      expect(operators).toMatchObject({ code: 1, stderr: 'chatctl: the URL template expression {+id} needs feature level ≥ 176 (server has 150)\n' });
      const reverse = await runCli(
        ['--server', site, 'linkifiers', 'add', 'Z(?P<id>[0-9]+)', 'https://x.test/{id}', '--reverse-template', 'Z{id}', '--example-input', 'Z1'],
        { env },
      );
      expect(reverse).toMatchObject({ code: 1, stderr: 'chatctl: --example-input needs feature level ≥ 471 (server has 150)\n' });
      expect(requests.slice(sent).map((r) => r.line)).not.toContain('POST /api/v1/realm/filters');
    } finally {
      server.close();
    }
  });
});
