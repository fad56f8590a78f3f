/**
 * Uploads: `attachments upload` (the story of issue 14: upload, see it listed, clean it away) and `messages
 * send --file`, over both transports; the server's upload limit refusing a file before anything is sent; a
 * 413 from a server in front of which a proxy takes less (nock).
 */
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { LIMITS } from '../../src/api/limits.js';
import type { WireRequest } from '../../src/api/wire.js';
import type { Transport } from '../../src/client/transport.js';
import { cliTarget, jsonLines, runCli, tempHome, summariesIn } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { intercepting, transportFor, TRANSPORTS } from '../helpers/transports.js';

const file = (name: string, text: string): string => {
  const path = join(tempHome().home, name);
  writeFileSync(path, text);
  return path;
};

describe.each(TRANSPORTS)('uploads over %s', (kind) => {
  let org: TestOrg;
  let received: WireRequest[];
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());
  beforeEach(() => {
    const answer = org.router.answer.bind(org.router);
    vi.spyOn(org.router, 'answer').mockImplementation((req, signal, o) => {
      received.push(req);
      return answer(req, signal, o);
    });
  });
  afterEach(() => vi.restoreAllMocks());

  /** The CLI through the organization's router, whose requests are kept; `wrap` may stand in for some answers. */
  const cli = (argv: string[], env: Record<string, string>, wrap?: (t: Transport) => Transport) => {
    received = [];
    return runCli(argv, { env, openTransport: async () => (wrap ? wrap(await transportFor(org, kind)) : transportFor(org, kind)) });
  };
  const uploads = () => received.filter((r) => r.path === '/user_uploads');

  it('attachments upload prints each URL and ID; attachments list shows them; attachments clean deletes them', async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind, user);
    const a = file('a.txt', 'first');
    const b = file('b.md', '# second');
    const up = await cli([...t.args, 'attachments', 'upload', a, b, '--json'], t.env);
    expect(up.code).toBe(0);
    const rows = jsonLines(up.stdout) as { row: number; target: string; ok: boolean; status: string; id: number; url: string }[];
    expect(rows.map((r) => [r.row, r.target, r.ok, r.status])).toEqual([
      [1, a, true, 'uploaded'],
      [2, b, true, 'uploaded'],
    ]);
    expect(rows[1]!.url).toMatch(/^\/user_uploads\/.+\/b\.md$/);
    expect(up.stderr).toBe('chatctl: 2 uploaded (13 B), 0 failed\n');
    expect(uploads().map((r) => r.files![0]!.contentType)).toEqual(['text/plain', 'text/markdown']);

    const list = await cli([...t.args, 'attachments', 'list', '--json'], t.env);
    const listed = JSON.parse(list.stdout) as { id: number; name: string; size: number }[];
    expect(listed.map((x) => [x.id, x.name, x.size])).toEqual([
      [rows[0]!.id, 'a.txt', 5],
      [rows[1]!.id, 'b.md', 8],
    ]);

    const clean = await cli([...t.args, 'attachments', 'clean', '--unreferenced', '--yes', '--json'], t.env);
    expect(clean.code).toBe(0);
    expect((JSON.parse(clean.stdout) as { id: number }[]).map((x) => x.id)).toEqual(rows.map((r) => r.id));
    expect(JSON.parse((await cli([...t.args, 'attachments', 'list', '--json'], t.env)).stdout)).toEqual([]);
  });

  it('one file on a terminal: a sentence with its ID and URL, no table of one row; piped, the row', async () => {
    const t = await cliTarget(org, kind, org.addUser());
    const f = file('one.txt', 'single');
    const tty = await runCli([...t.args, 'attachments', 'upload', f], {
      env: { ...t.env, NO_COLOR: '1' },
      tty: true,
      openTransport: () => transportFor(org, kind),
    });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toBe('');
    expect(tty.stderr).toMatch(new RegExp(`^Uploaded ${f} \\(6 B\\) as attachment \\d+: /user_uploads/.+/one\\.txt\n$`));
    const piped = await cli([...t.args, 'attachments', 'upload', f], t.env);
    expect(piped.stdout).toMatch(new RegExp(`^${f}\tuploaded\t\\d+\t/user_uploads/.+/one\\.txt\t\n$`));
    expect(piped.stderr).toBe('chatctl: 1 uploaded (6 B), 0 failed\n');
  });

  it('several files: one refused by the server fails its row only (exit 3); one file exits 3 too, saying its error', async () => {
    const t = await cliTarget(org, kind, org.addUser());
    const refuse = (inner: Transport): Transport =>
      intercepting(inner, async (req, signal) =>
        req.files?.[0]?.filename === 'bad.txt'
          ? { status: 400, headers: {}, body: { result: 'error', msg: 'You may only upload one file at a time', code: 'BAD_REQUEST' } }
          : inner.send(req, signal),
      );
    const good = file('good.txt', 'ok');
    const bad = file('bad.txt', 'no');
    const r = await cli([...t.args, 'attachments', 'upload', bad, good, '--json'], t.env, refuse);
    expect(r.code).toBe(3);
    expect((jsonLines(r.stdout) as { ok: boolean; status: string; error: string | null }[]).map((x) => [x.ok, x.status, x.error])).toEqual([
      [false, 'failed', 'You may only upload one file at a time'],
      [true, 'uploaded', null],
    ]);
    expect(summariesIn(r.stderr)).toEqual(['1 uploaded (2 B), 1 failed']);
    const one = await cli([...t.args, 'attachments', 'upload', bad], t.env, refuse);
    expect(one.code).toBe(3);
    expect(one.stderr).toContain('You may only upload one file at a time (BAD_REQUEST)');
  });

  it("a file larger than the server's max_file_upload_size_mib is refused before anything is sent (exit 2)", async () => {
    const t = await cliTarget(org, kind);
    const big = join(tempHome().home, 'big.bin');
    writeFileSync(big, '');
    // Sparse: the size is checked before the file is read.
    truncateSync(big, LIMITS.uploadMiB * 1024 * 1024 + 1);
    const small = file('small.txt', 'fine');
    for (const argv of [
      ['attachments', 'upload', small, big],
      ['messages', 'send', '--to', String(org.owner.id), '--content', 'see', '--file', big],
    ]) {
      const r = await cli([...t.args, ...argv], t.env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `${big} is 26.2 MB (${LIMITS.uploadMiB * 1024 * 1024 + 1} bytes), more than the server's upload limit of 25 MiB; nothing was sent`,
      );
      expect(uploads()).toEqual([]);
      expect(received.filter((q) => q.path === '/messages')).toEqual([]);
    }
  });

  it('messages send --file uploads first and ends the message with [name](url), as Zulip clients do', async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind, user);
    const log = file('backup.log', 'all good');
    const r = await cli([...t.args, 'messages', 'send', '--to', String(org.owner.id), '--content', 'last night', '--file', log, '--json'], t.env);
    expect(r.code).toBe(0);
    const { id } = JSON.parse(r.stdout) as { id: number };
    const content = org.db.prepare('SELECT content FROM messages WHERE id = ?').pluck().get(id) as string;
    expect(content).toMatch(/^last night\n\[backup\.log\]\(\/user_uploads\/[^)]+\/backup\.log\)$/);
    const list = JSON.parse((await cli([...t.args, 'attachments', 'list', '--json'], t.env)).stdout) as { name: string; references: number }[];
    expect(list.map((a) => [a.name, a.references])).toEqual([['backup.log', 1]]);
    // Without --content the message is the link; --dry-run uploads nothing.
    const dry = await cli([...t.args, 'messages', 'send', '--to', String(org.owner.id), '--file', log, '--dry-run'], t.env);
    expect(dry.code).toBe(0);
    expect(jsonLines(dry.stdout)).toMatchObject([
      { method: 'POST', path: '/api/v1/user_uploads', files: [{ field: 'file', filename: 'backup.log', bytes: 8 }] },
      { method: 'POST', path: '/api/v1/messages', body: { content: '[backup.log](<URL of the upload of backup.log>)' } },
    ]);
    // Only reads: over HTTP, the server's feature level.
    expect(received.filter((q) => q.method !== 'GET')).toEqual([]);
  });
});

describe('uploads against a mocked server', () => {
  const SITE = 'http://chat.test';
  const env = () => ({ ...tempHome().env, ZULIP_EMAIL: 'iago@zulip.com', ZULIP_API_KEY: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' });
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it('a 413 from a proxy in front of the server is said as too large', async () => {
    nock.disableNetConnect();
    nock(SITE).post('/api/v1/register').reply(200, { result: 'success', msg: '', queue_id: 'q1', last_event_id: -1, max_file_upload_size_mib: 100 });
    nock(SITE).delete('/api/v1/events').query(true).reply(200, { result: 'success', msg: '' });
    nock(SITE).delete('/api/v1/events').reply(200, { result: 'success', msg: '' });
    nock(SITE)
      .post('/api/v1/user_uploads')
      .reply(413, '<html><head><title>413 Request Entity Too Large</title></head></html>', { 'content-type': 'text/html' });
    const r = await runCli(['--server', SITE, 'attachments', 'upload', file('scan.pdf', 'x'.repeat(2000))], { env: env() });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('chatctl: the server refused scan.pdf (2 kB) as too large (HTTP 413)');
    expect(r.stderr).toContain('client_max_body_size');
  });
});
