/**
 * The limits of src/api/limits.ts as a client meets them: over a limit is a JSON 4xx naming it, a body is
 * refused without being read to its end, and no request, however malformed, stops `serve` from answering.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LIMITS, showBytes } from '../../src/api/limits.js';
import type { UploadedFile } from '../../src/api/wire.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { openQueue, takeEvents } from '../helpers/events.js';
import { rawRequest, statusAndBody, TRANSPORTS } from '../helpers/transports.js';

const error = (status: number, msg: string, code = 'BAD_REQUEST') => ({ status, body: { result: 'error', msg, code } });

describe.each(TRANSPORTS)('parameter limits over %s', (kind) => {
  let org: TestOrg;
  let member: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    member = org.addUser();
  });
  afterAll(() => org.close());

  it('collapses repeated IDs: one user named 100,000 times in a typing notification is one recipient', async () => {
    const queue = openQueue(org, member);
    const to = JSON.stringify(Array.from({ length: 100_000 }, () => member.id));
    const res = await rawRequest(org, kind, {
      method: 'POST',
      path: '/typing',
      body: [
        ['op', 'start'],
        ['to', to],
      ],
    });
    expect(res.status).toBe(200);
    const [event] = takeEvents(org, queue);
    expect((event!.recipients as { user_id: number }[]).map((r) => r.user_id).sort()).toEqual([org.owner.id, member.id].sort());
  });

  it('refuses a list over its bound, naming the bound, and changes nothing', async () => {
    const queue = openQueue(org, member);
    const to = JSON.stringify(Array.from({ length: LIMITS.listItems + 1 }, (_, i) => i + 1));
    const res = await rawRequest(org, kind, {
      method: 'POST',
      path: '/typing',
      body: [
        ['op', 'start'],
        ['to', to],
      ],
    });
    expect(statusAndBody(res)).toEqual(error(400, `to has too many items (limit: ${LIMITS.listItems})`));
    expect(takeEvents(org, queue)).toEqual([]);
  });

  it('refuses JSON nested deeper than the limit (a 5,000-deep narrow on /register) with a message, not a 500', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const res = await rawRequest(org, kind, { method: 'POST', path: '/register', body: [['narrow', deep]] });
    expect(statusAndBody(res)).toEqual(error(400, `narrow is nested too deeply (limit: ${LIMITS.jsonDepth} levels)`));
    const inOperand = `[{"operator":"channel","operand":${deep}}]`;
    const res2 = await rawRequest(org, kind, { method: 'POST', path: '/register', body: [['narrow', inOperand]] });
    expect(res2.status).toBe(400);
    expect(org.logs.filter((l) => l.startsWith('internal error'))).toEqual([]);
  });

  it('refuses a narrow of more terms than the limit', async () => {
    const narrow = JSON.stringify(Array.from({ length: LIMITS.narrowTerms + 1 }, () => ['is', 'starred']));
    const res = await rawRequest(org, kind, { method: 'POST', path: '/register', body: [['narrow', narrow]] });
    expect(statusAndBody(res)).toEqual(error(400, `narrow has too many items (limit: ${LIMITS.narrowTerms})`));
  });

  it('refuses more parameters than the limit, in the body or the query string', async () => {
    const fields = Array.from({ length: LIMITS.fields + 1 }, (_, i): [string, string] => [`p${i}`, 'x']);
    const body = await rawRequest(org, kind, { method: 'POST', path: '/typing', body: fields });
    expect(statusAndBody(body)).toEqual(error(400, `Too many parameters in the body (limit: ${LIMITS.fields})`, 'REQUEST_TOO_LARGE'));
    const query = await rawRequest(org, kind, { method: 'GET', path: '/users/me', query: fields });
    expect(statusAndBody(query)).toEqual(error(400, `Too many parameters in the query string (limit: ${LIMITS.fields})`, 'REQUEST_TOO_LARGE'));
  });

  it('refuses a linkifier pattern over the limit with a message, storing nothing', async () => {
    const long = `(?P<id>${'a'.repeat(LIMITS.linkifierPattern)})`;
    const res = await rawRequest(org, kind, {
      method: 'POST',
      path: '/realm/filters',
      body: [
        ['pattern', long],
        ['url_template', 'https://x.test/{id}'],
      ],
    });
    expect(statusAndBody(res)).toEqual(error(400, `pattern is too long (limit: ${LIMITS.linkifierPattern} characters)`));
    const count = org.db.prepare('SELECT count(*) AS n FROM linkifiers').get();
    expect(count).toEqual({ n: 0 });
  });

  it('refuses an upload whose name is over 255 bytes, storing nothing', async () => {
    const name = `${'é'.repeat(127)}.t`; // 256 bytes in UTF-8, 129 characters
    const file: UploadedFile = { field: 'file', filename: name, contentType: 'text/plain', data: new TextEncoder().encode('hello') };
    const res = await rawRequest(org, kind, { method: 'POST', path: '/user_uploads', files: [file] }, member);
    expect(statusAndBody(res)).toEqual(error(400, `The file name is too long (limit: ${LIMITS.uploadNameBytes} bytes)`));
    expect(org.db.prepare('SELECT count(*) AS n FROM attachments').get()).toEqual({ n: 0 });
    const fits = await rawRequest(org, kind, { method: 'POST', path: '/user_uploads', files: [{ ...file, filename: `${'é'.repeat(126)}.t` }] }, member);
    expect(fits.status).toBe(200);
  });
});

/** Writes `head` (and then `body` chunks, while the socket takes them) and resolves with what comes back. */
function exchange(site: string, head: string, body?: { chunk: Buffer; times: number }): Promise<string> {
  const { port } = new URL(site);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString('utf8');
      const length = /content-length: (\d+)/i.exec(answer);
      const head = answer.indexOf('\r\n\r\n');
      // A whole answer is all the test needs: the server may linger over the rest of the upload.
      if (length && head >= 0 && Buffer.byteLength(answer.slice(head + 4)) >= Number(length[1])) socket.destroy();
    });
    socket.on('close', () => resolve(answer));
    // A reset after the answer is how a refused upload ends; the answer is what counts.
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? undefined : reject(e)));
    socket.write(head);
    if (!body) return;
    let left = body.times;
    const pump = () => {
      while (left > 0 && !socket.destroyed) {
        left--;
        if (!socket.write(body.chunk)) return void socket.once('drain', pump);
      }
    };
    pump();
  });
}

const basic = (user: TestUser): string => `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;
const jsonOf = (answer: string): unknown => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
const statusOf = (answer: string): number => Number(answer.split(' ')[1]);

describe('serve under malformed and oversized requests', () => {
  let org: TestOrg;
  let site: string;
  beforeAll(async () => {
    org = createTestOrg();
    site = await org.http();
  });
  afterAll(() => org.close());

  const alive = async () => {
    const res = await fetch(`${site}/api/v1/server_settings`);
    expect(res.status).toBe(200);
  };
  const tooLarge = { result: 'error', msg: `The request body is too large (limit: ${showBytes(LIMITS.bodyBytes)})`, code: 'REQUEST_TOO_LARGE' };
  const formTooLarge = { result: 'error', msg: `The form data is too large (limit: ${showBytes(LIMITS.formBytes)})`, code: 'REQUEST_TOO_LARGE' };

  it('answers a declared body over the limit with 413 at once, without waiting for the body, and keeps serving', async () => {
    // Only the headers are sent: an answer proves the server did not wait to read (or buffer) the 40 MiB.
    const answer = await exchange(
      site,
      `POST /api/v1/user_uploads HTTP/1.1\r\nhost: x\r\ncontent-type: multipart/form-data; boundary=b\r\ncontent-length: ${40 * 1024 * 1024}\r\n\r\n`,
    );
    expect(statusOf(answer)).toBe(413);
    expect(jsonOf(answer)).toEqual(tooLarge);
    // A body that cannot carry a file is held to the form limit.
    const form = await exchange(
      site,
      `POST /api/v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/octet-stream\r\ncontent-length: ${LIMITS.formBytes + 1}\r\n\r\n`,
    );
    expect(jsonOf(form)).toEqual(formTooLarge);
    // Nor does a path outside the API wait for its body.
    const elsewhere = await exchange(site, `POST /elsewhere HTTP/1.1\r\nhost: x\r\ncontent-length: ${40 * 1024 * 1024}\r\n\r\n`);
    expect(jsonOf(elsewhere)).toEqual({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
    await alive();
  });

  it('stops reading a chunked body once it passes the limit (the >32 MiB request that used to end the process)', async () => {
    const chunk = Buffer.concat([Buffer.from(`${(1024 * 1024).toString(16)}\r\n`), Buffer.alloc(1024 * 1024, 0x61), Buffer.from('\r\n')]);
    // With the owner's key: a body that may be large is read only once its key is checked (serve-bounds.test.ts).
    const head = (type: string) =>
      `POST /api/v1/user_uploads HTTP/1.1\r\nhost: x\r\nauthorization: ${basic(org.owner)}\r\ntransfer-encoding: chunked\r\ncontent-type: ${type}\r\n\r\n`;
    const answer = await exchange(site, head('multipart/form-data; boundary=b'), { chunk, times: 40 });
    expect(statusOf(answer)).toBe(413);
    expect(jsonOf(answer)).toEqual(tooLarge);
    const form = await exchange(site, head('application/x-www-form-urlencoded'), { chunk, times: 40 });
    expect(jsonOf(form)).toEqual(formTooLarge);
    await alive();
    expect(org.logs.filter((l) => l.startsWith('internal error'))).toEqual([]);
  });

  it('refuses form data over the form limit with 413, naming it, url-encoded or beside a file', async () => {
    const res = await fetch(`${site}/api/v1/users/me`, {
      method: 'PATCH',
      body: 'a='.padEnd(LIMITS.formBytes + 1, 'b'),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual(formTooLarge);
    // In a multipart body the text fields are held to it too, beside the file.
    const form = new FormData();
    form.append('content', 'b'.repeat(LIMITS.formBytes));
    form.append('file', new Blob(['x']), 'a.txt');
    const multipart = await fetch(`${site}/api/v1/user_uploads`, { method: 'POST', body: form, headers: { authorization: basic(org.owner) } });
    expect(multipart.status).toBe(413);
    expect(await multipart.json()).toEqual(formTooLarge);
  });

  it('answers oversized headers with a JSON 431 and a malformed request with a JSON 400', async () => {
    const big = await exchange(site, `GET /api/v1/server_settings HTTP/1.1\r\nhost: x\r\nx-pad: ${'a'.repeat(LIMITS.headerBytes)}\r\n\r\n`);
    expect(statusOf(big)).toBe(431);
    expect(jsonOf(big)).toEqual({
      result: 'error',
      msg: `The request headers are too large (limit: ${showBytes(LIMITS.headerBytes)})`,
      code: 'REQUEST_TOO_LARGE',
    });
    const garbage = await exchange(site, 'NOT HTTP AT ALL\r\n\r\n');
    expect(statusOf(garbage)).toBe(400);
    expect(jsonOf(garbage)).toEqual({ result: 'error', msg: 'Malformed HTTP request', code: 'BAD_REQUEST' });
    const target = await exchange(site, 'GET http://[ HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    expect(statusOf(target)).toBe(400);
    expect(jsonOf(target)).toEqual({ result: 'error', msg: 'Malformed request target', code: 'BAD_REQUEST' });
    await alive();
  });

  it('answers an error nothing else caught with a JSON 500 and goes on serving', async () => {
    // Failing at once (as a read answered in its turn would) and later (as one that awaits would).
    const spy = vi
      .spyOn(org.router, 'answer')
      .mockImplementationOnce(() => {
        throw new Error('boom now');
      })
      .mockImplementationOnce(() => Promise.reject(new Error('boom later')));
    for (const boom of ['boom now', 'boom later']) {
      const res = await fetch(`${site}/api/v1/users/me`);
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ result: 'error', msg: 'Internal server error', code: 'BAD_REQUEST' });
      expect(org.logs).toContain(`internal error: ${boom}`);
    }
    spy.mockRestore();
    await alive();
  });
});
