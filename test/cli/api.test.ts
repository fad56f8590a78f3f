/**
 * `chatctl api` as gh's: typed -F fields and raw -f fields as the server receives them, @file and @- uploads,
 * --input bodies, -H headers, -i, and --paginate over GET /messages, over both transports. What the server
 * received is read from the router both transports hand requests to.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sendMessage } from '../../src/api/operations/messages.js';
import type { WireRequest } from '../../src/api/wire.js';
import { cliTarget, jsonLines, runCli, tempHome } from '../helpers/cli.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS, transportFor } from '../helpers/transports.js';

describe.each(TRANSPORTS)('api over %s', (kind) => {
  let org: TestOrg;
  let received: WireRequest[];
  /** The organization's own router for the CLI too, so that what it received can be read on both transports. */
  const cli = async (argv: string[], o: { env: Record<string, string>; stdin?: string }) =>
    runCli(argv, { ...o, openTransport: () => transportFor(org, kind) });
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());
  beforeEach(() => {
    received = [];
    const answer = org.router.answer.bind(org.router);
    vi.spyOn(org.router, 'answer').mockImplementation((req, signal, o) => {
      received.push(req);
      return answer(req, signal, o);
    });
  });
  afterEach(() => vi.restoreAllMocks());
  /** Forgets what the server received so far. */
  const listen = () => {
    received = [];
  };
  const to = (path: string) => received.filter((r) => r.path === path);
  const file = (name: string, text: string) => {
    const path = join(tempHome().home, name);
    writeFileSync(path, text);
    return path;
  };

  it('-F types numbers, booleans, null and JSON; -f sends text as written; the wire carries Zulip form values', async () => {
    const ada = org.addUser({ name: 'Ada' });
    const t = await cliTarget(org, kind);
    listen();
    const r = await cli(
      [
        ...t.args,
        'api',
        'GET',
        '/users',
        '-F',
        `user_ids=[${ada.id}, ${org.owner.id}]`,
        '-F',
        'client_gravatar=false',
        '-F',
        'x=null',
        '-F',
        'n=5',
        '-F',
        'o={"a": [1]}',
        '-f',
        'raw=[ 1 ]',
        '-F',
        's=text',
      ],
      { env: t.env },
    );
    expect(r.code).toBe(0);
    // -f fields first, then -F fields, each in the order given.
    expect(to('/users')[0]!.query).toEqual([
      ['raw', '[ 1 ]'],
      ['user_ids', `[${ada.id},${org.owner.id}]`],
      ['client_gravatar', 'false'],
      ['x', 'null'],
      ['n', '5'],
      ['o', '{"a":[1]}'],
      ['s', 'text'],
    ]);
    const body = JSON.parse(r.stdout) as { members: { user_id: number }[]; ignored_parameters_unsupported: string[] };
    expect(body.members.map((u) => u.user_id).sort()).toEqual([org.owner.id, ada.id].sort());
    // POST puts the same values in the form body.
    const p = await cli([...t.args, 'api', 'POST', '/users/me/presence', '-f', 'status=active', '-F', 'ping_only=true'], { env: t.env });
    expect(p.code).toBe(0);
    expect(to('/users/me/presence')[0]).toMatchObject({
      query: [],
      body: [
        ['status', 'active'],
        ['ping_only', 'true'],
      ],
    });
  });

  it('-F file=@FILE uploads the file as multipart; attachments list then shows it', async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind, user);
    const note = file('note.txt', 'hello from api\n');
    listen();
    const r = await cli([...t.args, 'api', 'POST', '/user_uploads', '-F', `file=@${note}`], { env: t.env });
    expect(r.code).toBe(0);
    const res = JSON.parse(r.stdout) as { result: string; uri: string; url: string; filename: string };
    expect(res).toMatchObject({ result: 'success', filename: 'note.txt' });
    const sent = to('/user_uploads')[0]!;
    expect(sent.files).toHaveLength(1);
    expect(sent.files![0]).toMatchObject({ field: 'file', filename: 'note.txt', contentType: 'text/plain' });
    expect(Buffer.from(sent.files![0]!.data).toString()).toBe('hello from api\n');
    const list = await cli([...t.args, 'attachments', 'list', '--json'], { env: t.env });
    expect((JSON.parse(list.stdout) as { name: string; path_id: string }[]).map((a) => [a.name, `/user_uploads/${a.path_id}`])).toEqual([
      ['note.txt', decodeURIComponent(res.uri)],
    ]);
  });

  it('-F file=@- uploads stdin, named "stdin"', async () => {
    const t = await cliTarget(org, kind, org.addUser());
    listen();
    const r = await cli([...t.args, 'api', 'POST', '/user_uploads', '-F', 'file=@-'], { env: t.env, stdin: 'piped bytes' });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'success', filename: 'stdin' });
    const sent = to('/user_uploads')[0]!.files![0]!;
    expect([sent.filename, Buffer.from(sent.data).toString()]).toEqual(['stdin', 'piped bytes']);
  });

  it('--input takes a JSON object (non-strings JSON-encoded) or form text; -f and -F replace its keys', async () => {
    const ada = org.addUser();
    const t = await cliTarget(org, kind);
    const body = file('body.json', JSON.stringify({ type: 'direct', to: [ada.id], content: 'from --input', read_by_sender: true }));
    listen();
    const r = await cli([...t.args, 'api', 'POST', '/messages', '--input', body, '-f', 'content=replaced'], { env: t.env });
    expect(r.code).toBe(0);
    expect(to('/messages')[0]!.body).toEqual([
      ['type', 'direct'],
      ['to', `[${ada.id}]`],
      ['read_by_sender', 'true'],
      ['content', 'replaced'],
    ]);
    const { id } = JSON.parse(r.stdout) as { id: number };
    expect(org.db.prepare('SELECT content FROM messages WHERE id = ?').pluck().get(id)).toBe('replaced');

    const form = await cli([...t.args, 'api', 'POST', '/users/me/presence', '--input', '-'], { env: t.env, stdin: 'status=idle&ping_only=true\n' });
    expect(form.code).toBe(0);
    expect(to('/users/me/presence')[0]!.body).toEqual([
      ['status', 'idle'],
      ['ping_only', 'true'],
    ]);
  });

  it('-H adds headers the server receives; --verbose never shows them', async () => {
    const t = await cliTarget(org, kind);
    listen();
    const r = await cli([...t.args, '--verbose', 'api', 'GET', '/users/me', '-H', 'X-Request-Tag: nightly'], { env: t.env });
    expect(r.code).toBe(0);
    expect(to('/users/me')[0]!.headers['x-request-tag']).toBe('nightly');
    const secret = `Basic ${Buffer.from(`${org.owner.email}:${'S'.repeat(32)}`).toString('base64')}`;
    const bad = await cli([...t.args, '--verbose', 'api', 'GET', '/users/me', '-H', `Authorization: ${secret}`], { env: t.env });
    expect(bad.code).toBe(4);
    expect(to('/users/me')[1]!.headers.authorization).toBe(secret);
    expect(bad.stderr).toContain('> GET /users/me');
    expect(bad.stderr).not.toContain(secret.slice(6));
    expect(bad.stderr).not.toContain(org.owner.apiKey);
  });

  it('-i prints the status line and headers on stdout before the body', async () => {
    const t = await cliTarget(org, kind);
    const r = await cli([...t.args, 'api', '-i', 'GET', '/users/me'], { env: t.env });
    expect(r.code).toBe(0);
    const [head, body] = r.stdout.split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head).toMatch(/\r\ncontent-type: application\/json/);
    expect(JSON.parse(body!)).toMatchObject({ result: 'success', email: org.owner.email });
  });

  describe('--paginate', () => {
    let sender: TestUser;
    let ids: number[];
    const narrow = () => JSON.stringify([{ operator: 'sender', operand: sender.id }]);
    beforeAll(async () => {
      sender = org.addUser();
      const client = await clientFor(org, kind, sender);
      ids = [];
      for (let i = 0; i < 7; i++) ids.push((await client.call(sendMessage, { type: 'direct', to: JSON.stringify([org.owner.id]), content: `m${i}` })).id);
    });

    it('walks GET /messages by anchor in batches of num_after, one message per line', async () => {
      const t = await cliTarget(org, kind);
      listen();
      const r = await cli([...t.args, 'api', 'GET', '/messages', '-F', `narrow=${narrow()}`, '-F', 'num_after=3', '--paginate'], { env: t.env });
      expect(r.code).toBe(0);
      const lines = jsonLines(r.stdout) as { id: number; content: string }[];
      expect(lines.map((m) => m.id)).toEqual(ids);
      expect(lines[0]!.content).toBe('<p>m0</p>');
      const anchors = to('/messages').map((q) => [q.query.find(([k]) => k === 'anchor')?.[1], q.query.find(([k]) => k === 'include_anchor')?.[1]]);
      expect(anchors.slice(0, 3)).toEqual([
        ['oldest', undefined],
        [String(ids[2]), 'false'],
        [String(ids[5]), 'false'],
      ]);
    });

    it('--slurp prints one array; --format and --fields apply to the messages', async () => {
      const t = await cliTarget(org, kind);
      const args = [...t.args, 'api', 'GET', '/messages', '-F', `narrow=${narrow()}`, '-F', 'num_after=2', '--paginate'];
      const slurp = await cli([...args, '--slurp'], { env: t.env });
      expect(slurp.code).toBe(0);
      expect((JSON.parse(slurp.stdout) as { id: number }[]).map((m) => m.id)).toEqual(ids);
      const tsv = await cli([...args, '--format', 'tsv', '--fields', 'id,sender_email'], { env: t.env });
      expect(tsv.stdout).toBe(ids.map((id) => `${id}\t${sender.email}\n`).join(''));
    });

    it('--jq runs once per message as pages arrive, or once over every page with --slurp', async () => {
      const t = await cliTarget(org, kind);
      const args = [...t.args, 'api', 'GET', '/messages', '-F', `narrow=${narrow()}`, '-F', 'num_after=3', '--paginate'];
      const each = await cli([...args, '--jq', '.content'], { env: t.env });
      expect(each.code).toBe(0);
      expect(each.stdout).toBe(ids.map((_, i) => `<p>m${i}</p>\n`).join(''));
      const whole = await cli([...args, '--slurp', '--jq', '[length, (map(.id) | max)]'], { env: t.env });
      expect(whole.stdout).toBe(`[${ids.length},${ids.at(-1)}]\n`);
    });
  });

  it('--jq filters a single response; a bad expression is refused before anything is sent (exit 2)', async () => {
    const t = await cliTarget(org, kind);
    const r = await cli([...t.args, 'api', 'GET', '/users/me', '--jq', '.email'], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${org.owner.email}\n`);
    listen();
    const bad = await cli([...t.args, 'api', 'POST', '/messages', '-f', 'type=stream', '--jq', '.id |'], { env: t.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --jq expression');
    expect(received).toEqual([]);
  });

  it.each([
    [['GET', '/users', '--paginate'], '--paginate walks GET /messages by anchor, not GET /users'],
    [['GET', '/messages', '--paginate', '-F', 'num_before=5'], 'num_before must be 0'],
    [['GET', '/messages', '--slurp'], '--slurp goes with --paginate'],
    [['GET', '/messages', '--paginate', '-i'], '-i shows one response'],
    [['GET', '/users/me', '--fields', 'id'], '--fields picks fields of the messages --paginate prints'],
    [['GET', '/users', '-F', 'ids=[1,'], '-F ids: [1, is not valid JSON'],
    [['GET', '/users', '-H', 'no colon'], "-H takes 'Name: value'"],
    [['POST', '/user_uploads', '-F', 'a=@-', '-F', 'b=@-'], 'stdin (-) can be read once'],
    [['POST', '/messages', '--input', '-'], '--input - must be a JSON object of parameters'],
  ])('%j is refused before anything is sent (exit 2)', async (argv, message) => {
    const t = await cliTarget(org, kind);
    listen();
    const r = await cli([...t.args, 'api', ...argv], { env: t.env, stdin: '[1]' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(received).toEqual([]);
  });
});

describe('api --help', () => {
  it('lists each operation once', async () => {
    const r = await runCli(['api', '--help']);
    const ops = r.stdout
      .slice(r.stdout.indexOf('Known operations:'))
      .split('\n')
      .slice(1)
      .map((l) => l.trim())
      .filter((l) => /^[A-Z]+ +\//.test(l));
    expect(ops.length).toBeGreaterThan(50);
    expect(new Set(ops).size).toBe(ops.length);
    expect(ops).toContain('POST   /user_uploads');
  });
});
