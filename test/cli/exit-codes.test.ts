/**
 * Exit codes of bulk runs follow the rows, not their number: 3 whenever a row failed, for a run of one row
 * (an argument or a one-row file), of some or of every row, on every bulk command; 0 when every row was
 * done or unchanged. Another code only for what ends the whole run (bad credentials: 4), or for a command
 * that names one thing (`users update USER`, `linkifiers update ID`), which exits as its request would.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from '../../src/api/operations/attachments.js';
import type { Transport } from '../../src/client/transport.js';
import { cliTarget, runCli, tempHome } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, intercepting, transportFor, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('bulk exit codes over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const run = async (args: string[], o: { stdin?: string; wrap?: (t: Transport) => Transport } = {}) => {
    const t = await cliTarget(org, kind);
    const { wrap } = o;
    return runCli([...t.args, ...args], {
      env: t.env,
      stdin: o.stdin,
      ...(wrap ? { openTransport: async () => wrap(await transportFor(org, kind)) } : {}),
    });
  };
  const file = (name: string, text: string) => {
    const path = join(tempHome().home, name);
    writeFileSync(path, text);
    return path;
  };

  it('users deactivate: 3 for one unknown user, a one-row file, every row or some rows; 0 for a re-run', async () => {
    const [a, b] = [org.addUser(), org.addUser()];
    const one = await run(['users', 'deactivate', '999999', '--yes']);
    expect(one).toMatchObject({ code: 3, stderr: 'chatctl: No such user (BAD_REQUEST)\n' });
    const oneRowFile = await run(['users', 'deactivate', '--from-file', file('one.csv', 'user\n999999\n'), '--yes']);
    expect(oneRowFile.code).toBe(3);
    const every = await run(['users', 'deactivate', '999998', '999999', '--yes']);
    expect(every).toMatchObject({ code: 3, stderr: 'chatctl: 0 deactivated, 2 failed\n' });
    const some = await run(['users', 'deactivate', String(a.id), '999999', '--yes']);
    expect(some.code).toBe(3);
    const again = await run(['users', 'deactivate', String(a.id), String(b.id), '--yes']);
    expect(again.code).toBe(0);
    // JSON errors carry the same code.
    const json = await run(['users', 'deactivate', '999999', '--yes', '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr.trim())).toMatchObject({ error: { message: 'No such user', exit_code: 3 } });
  });

  it('linkifiers remove and events delete: 3 for the only ID given; linkifiers update names one linkifier: 6', async () => {
    expect((await run(['linkifiers', 'remove', '999999', '--yes'])).code).toBe(3);
    expect((await run(['events', 'delete', '1517975029:0', '--yes'])).code).toBe(3);
    const update = await run(['linkifiers', 'update', '999999', 'X(?P<id>[0-9]+)', 'https://x.test/{id}']);
    expect(update).toMatchObject({ code: 6, stderr: expect.stringContaining('Linkifier not found') });
  });

  it('users update: USER names one account (6); rows of a file are a bulk run (3), a dry run too', async () => {
    expect((await run(['users', 'update', '999999', '--role', 'admin'])).code).toBe(6);
    const rows = file('roles.csv', 'user,role\nnobody@example.com,admin\n');
    expect((await run(['users', 'update', 'nobody@example.com', '--role', 'admin', '--dry-run'])).code).toBe(6);
    expect((await run(['users', 'update', '--from-file', rows])).code).toBe(3);
    expect((await run(['users', 'update', '--from-file', rows, '--dry-run'])).code).toBe(3);
  });

  it('attachments clean: 3 when every deletion fails, 4 when the credentials fail', async () => {
    const user = org.addUser();
    await (await clientFor(org, kind, user)).call(
      uploadFile,
      {},
      { files: [{ field: 'f', filename: 'a.txt', contentType: 'text/plain', data: new Uint8Array(3) }] },
    );
    const t = await cliTarget(org, kind, user);
    const answering = (status: number, msg: string, code: string) => async () => {
      const inner = await transportFor(org, kind);
      return intercepting(inner, async (req, signal) =>
        req.method === 'DELETE' && req.path.startsWith('/attachments/')
          ? { status, headers: {}, body: { result: 'error', msg, code } }
          : inner.send(req, signal),
      ) satisfies Transport;
    };
    const refused = await runCli([...t.args, 'attachments', 'clean', '--larger-than', '1', '--yes'], {
      env: t.env,
      openTransport: answering(400, 'The attachment is in use', 'BAD_REQUEST'),
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('could not delete attachment');
    const unauthenticated = await runCli([...t.args, 'attachments', 'clean', '--larger-than', '1', '--yes'], {
      env: t.env,
      openTransport: answering(401, 'Invalid API key', 'INVALID_API_KEY'),
    });
    expect(unauthenticated.code).toBe(4);
  });

  it('a bulk run whose credentials fail ends with 4, whatever its rows', async () => {
    const t = await cliTarget(org, kind, { email: org.owner.email, apiKey: 'x'.repeat(32) });
    const r = await runCli([...t.args, 'users', 'deactivate', '999998', '999999', '--yes'], { env: t.env });
    expect(r.code).toBe(4);
  });
});

describe('chatctl help exit-codes', () => {
  it('says when a bulk run exits 3 and when another code', async () => {
    const r = await runCli(['help', 'exit-codes']);
    expect(r.stdout).toContain('3 whenever at least one row failed, however many rows the run had: one, some or all of them');
    expect(r.stdout).toMatch(/bad credentials \(4\)/);
  });
});
