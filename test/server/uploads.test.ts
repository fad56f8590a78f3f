import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from '../../src/api/operations/attachments.js';
import type { UploadedFile } from '../../src/api/wire.js';
import { pendingEvents } from '../../src/server/model/event-queues.js';
import { sanitizeFileName } from '../../src/server/model/uploads.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';
import { storedFile } from '../helpers/uploads.js';

const file = (filename: string, text: string, contentType = 'text/plain'): UploadedFile => ({
  field: 'file',
  filename,
  contentType,
  data: new TextEncoder().encode(text),
});

describe('upload file names', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['my résumé (final).pdf', 'my-résumé-final.pdf'],
    ['  spaced   out  .txt ', 'spaced-out-.txt'],
    ['a -- b.txt', 'a-b.txt'],
    ['../../etc/passwd', '....etcpasswd'],
    ['日本語.txt', '日本語.txt'],
    ['ﬁle.txt', 'file.txt'],
    ['', 'uploaded-file'],
    ['..', 'uploaded-file'],
    ['???', 'uploaded-file'],
  ])('stores %j as %j', (name, stored) => {
    expect(sanitizeFileName(name)).toBe(stored);
  });
});

describe.each(TRANSPORTS)('POST /user_uploads over %s', (kind) => {
  let org: TestOrg;
  let ann: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    ann = org.addUser({ name: 'Ann' });
  });
  afterAll(() => org.close());

  it('stores the file under a Zulip-shaped path and answers uri, url and filename', async () => {
    const queue = `uploads-${ann.id}`;
    org.db.prepare('INSERT OR IGNORE INTO event_queues (id, user_id, lifespan_secs, last_access) VALUES (?, ?, 600, ?)').run(queue, ann.id, org.clock.now());
    const res = await (await clientFor(org, kind, ann)).call(uploadFile, {}, { files: [file('notes.txt', 'hello world')] });
    expect(res.uri).toMatch(/^\/user_uploads\/2\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}\/notes\.txt$/);
    expect(res.url).toBe(res.uri);
    expect(res.filename).toBe('notes.txt');
    expect(openapiErrors('post', '/user_uploads', 200, res)).toEqual([]);
    const pathId = res.uri.slice('/user_uploads/'.length);
    expect(readFileSync(storedFile(org, pathId), 'utf8')).toBe('hello world');
    const row = org.db.prepare('SELECT * FROM attachments WHERE path_id = ?').get(pathId);
    expect(row).toMatchObject({ owner_id: ann.id, name: 'notes.txt', size: 11, content_type: 'text/plain', create_time_ms: org.clock.now() * 1000 });
    const events = pendingEvents(org.db, queue).map(({ id: _id, ...event }) => event);
    expect(events).toEqual([
      {
        type: 'attachment',
        op: 'add',
        attachment: { id: (row as { id: number }).id, name: 'notes.txt', path_id: pathId, size: 11, create_time: org.clock.now() * 1000, messages: [] },
        upload_space_used: expect.any(Number),
      },
    ]);
    expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: [{ ...(events[0] as object), id: 0 }] })).toEqual([]);
  });

  it('keeps the original name in the record, sanitizes the stored one, and URL-encodes the link', async () => {
    const res = await (await clientFor(org, kind, ann)).call(uploadFile, {}, { files: [file('my résumé (final).pdf', '%PDF', 'application/pdf')] });
    expect(res.filename).toBe('my-résumé-final.pdf');
    expect(res.uri.endsWith('/my-r%C3%A9sum%C3%A9-final.pdf')).toBe(true);
    const pathId = decodeURIComponent(res.uri.slice('/user_uploads/'.length));
    expect(existsSync(storedFile(org, pathId))).toBe(true);
    expect(org.db.prepare('SELECT name, content_type FROM attachments WHERE path_id = ?').get(pathId)).toEqual({
      name: 'my résumé (final).pdf',
      content_type: 'application/pdf',
    });
  });

  it('accepts the file under any field name, and gives each upload its own path', async () => {
    const client = await clientFor(org, kind, ann);
    const a = await client.call(uploadFile, {}, { files: [{ ...file('same.txt', 'one'), field: 'whatever' }] });
    const b = await client.call(uploadFile, {}, { files: [file('same.txt', 'two')] });
    expect(a.uri).not.toBe(b.uri);
  });

  it('accepts an empty file', async () => {
    const res = await (await clientFor(org, kind, ann)).call(uploadFile, {}, { files: [file('empty.txt', '')] });
    expect(org.db.prepare('SELECT size FROM attachments WHERE path_id = ?').get(res.uri.slice('/user_uploads/'.length))).toEqual({ size: 0 });
  });

  it.each([
    ['no file', [], 'You must specify a file to upload'],
    ['two files', [file('a.txt', 'a'), file('b.txt', 'b')], 'You may only upload one file at a time'],
  ])('refuses %s and stores nothing', async (_name, files, msg) => {
    const before = org.db.prepare('SELECT count(*) AS n FROM attachments').get();
    const res = await rawRequest(org, kind, { method: 'POST', path: '/user_uploads', files }, ann);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
    expect(org.db.prepare('SELECT count(*) AS n FROM attachments').get()).toEqual(before);
  });

  it('refuses a file over 25 MiB and accepts one of exactly 25 MiB', async () => {
    const limit = 25 * 1024 * 1024;
    const big: UploadedFile = { field: 'file', filename: 'big.bin', contentType: 'application/octet-stream', data: new Uint8Array(limit + 1) };
    const res = await rawRequest(org, kind, { method: 'POST', path: '/user_uploads', files: [big] }, ann);
    expect(res.body).toEqual({ result: 'error', msg: 'Uploaded file is larger than the allowed limit of 25 MiB', code: 'BAD_REQUEST' });
    const fits = await rawRequest(org, kind, { method: 'POST', path: '/user_uploads', files: [{ ...big, data: big.data.subarray(0, limit) }] }, ann);
    expect(fits.status).toBe(200);
  });

  it('needs authentication', async () => {
    const res = await rawRequest(org, kind, { method: 'POST', path: '/user_uploads', files: [file('a.txt', 'a')] }, null);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
