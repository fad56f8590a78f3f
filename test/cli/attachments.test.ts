import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from '../../src/api/operations/attachments.js';
import { sendMessage } from '../../src/api/operations/messages.js';
import { formatSize, parseDuration, parseIdArgs, parseSize } from '../../src/cli/core/units.js';
import { cliTarget, expectUsageError, jsonLines, parse, runCli, scriptedPrompter, tempHome } from '../helpers/cli.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

const DAY_MS = 86_400_000;

describe('durations, sizes and IDs as typed (src/cli/core/units.ts)', () => {
  it.each([
    ['30d', 2_592_000],
    ['12h', 43_200],
    ['90m', 5400],
    ['45s', 45],
    ['2w', 1_209_600],
    ['1h30m', 5400],
    ['1.5d', 129_600],
    [' 7d ', 604_800],
    ['1h 30m', 5400],
  ])('duration %j is %i seconds', (text, seconds) => expect(parseDuration(text)).toBe(seconds));

  it.each([
    ['10MB', 10_000_000],
    ['1.5 GB', 1_500_000_000],
    ['512KiB', 524_288],
    ['200k', 204_800],
    ['4096', 4096],
    ['3b', 3],
    ['2MiB', 2_097_152],
  ])('size %j is %i bytes', (text, bytes) => expect(parseSize(text)).toBe(bytes));

  it('refuses anything else with a usage error naming the flag and the accepted forms', () => {
    for (const bad of ['30', 'd', '-1d', '30 days', '1y', '1M', '6mo', '7D', '']) {
      expect(() => parseDuration(bad, '--older-than')).toThrow(`--older-than takes a duration like 30d or 12h, not "${bad}"`);
    }
    expect(() => parseDuration('soon')).toThrow('expected a duration like 30d or 12h, not "soon"');
    for (const bad of ['ten', '10XB', '-5MB', 'MB'])
      expect(() => parseSize(bad, '--larger-than')).toThrow(`--larger-than takes a size like 10MB or 512KiB, not "${bad}"`);
    let caught: unknown;
    try {
      parseSize('10 parsecs');
    } catch (e) {
      caught = e;
    }
    expect(caught).toMatchObject({ kind: 'usage', hint: expect.stringContaining('KiB, MiB, GiB (powers of 1024)') });
    expect(() => parseIdArgs(['3', '4x'], 'attachment')).toThrow('attachment IDs are numbers, not "4x"');
    expect(parseIdArgs([' 3', '40'], 'attachment')).toEqual([3, 40]);
  });

  it('formats sizes for people in the units parseSize reads', () => {
    expect([0, 999, 1000, 1234, 12_345, 2_500_000, 12_000_000, 123_456_789, 5e12].map(formatSize)).toEqual([
      '0 B',
      '999 B',
      '1 kB',
      '1.23 kB',
      '12.3 kB',
      '2.5 MB',
      '12 MB',
      '123 MB',
      '5 TB',
    ]);
    expect(parseSize(formatSize(2_500_000).replace(' ', ''))).toBe(2_500_000);
  });
});

describe('attachments: parsing', () => {
  it('maps argv to options', async () => {
    const p = await parse([
      'attachments',
      'clean',
      '--older-than',
      '30d',
      '--unreferenced',
      '--larger-than',
      '10MB',
      '--owner',
      'me@x.test',
      '--dry-run',
      '-y',
    ]);
    expect(p.spec.path).toEqual(['attachments', 'clean']);
    expect(p.opts).toMatchObject({ olderThan: 30 * 86_400, unreferenced: true, largerThan: 10_000_000, owner: 'me@x.test', dryRun: true, yes: true });
    const d = await parse(['attachments', 'rm', '4', '5', '--json']);
    expect(d.spec.path).toEqual(['attachments', 'delete']);
    expect(d.opts).toMatchObject({ ids: [4, 5], json: true });
    const q = await parse(['attachments', 'clean', '--older-than', '1d', '-q']);
    expect(q.globals).toMatchObject({ quiet: true });
  });

  it.each([
    [['attachments', 'clean', '--yes'], 'say which files to delete: pass --older-than, --unreferenced or --larger-than'],
    [['attachments', 'clean', '--owner', 'x@y.test', '--yes'], 'say which files to delete'],
    [['attachments', 'clean', '--older-than', '30 days', '--yes'], '--older-than takes a duration like 30d or 12h, not "30 days"'],
    [['attachments', 'clean', '--larger-than', 'big', '--yes'], '--larger-than takes a size like 10MB or 512KiB, not "big"'],
    [['attachments', 'clean', '--older-than', '30d'], 'attachments clean deletes files: not running interactively; pass --yes'],
    [['attachments', 'delete', '7', 'x7'], 'attachment IDs are numbers, not "x7"'],
    [['attachments', 'delete'], "missing required argument 'ids'"],
    [['attachments', 'list', '--fields', 'id,colour'], 'unknown field "colour"'],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('attachments commands over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  /** Uploads `bytes` bytes as `user`, uploaded `ageDays` ago by the real clock (the CLI's). */
  const upload = async (user: TestUser, name: string, bytes: number, ageDays = 0) => {
    const client = await clientFor(org, kind, user);
    const res = await client.call(uploadFile, {}, { files: [{ field: 'f', filename: name, contentType: 'text/plain', data: new Uint8Array(bytes).fill(65) }] });
    const pathId = decodeURIComponent(res.uri.slice('/user_uploads/'.length));
    const createTime = Date.now() - ageDays * DAY_MS;
    org.db.prepare('UPDATE attachments SET create_time_ms = ? WHERE path_id = ?').run(createTime, pathId);
    const { id } = org.db.prepare('SELECT id FROM attachments WHERE path_id = ?').get(pathId) as { id: number };
    return { id, uri: res.uri, createTime };
  };
  const exists = (id: number) => org.db.prepare('SELECT count(*) FROM attachments WHERE id = ?').pluck().get(id) === 1;

  describe('list', () => {
    it('prints tab-separated rows when piped: ID, name, bytes, ISO time, references', async () => {
      const user = org.addUser();
      const a = await upload(user, 'notes.txt', 1234, 2);
      const b = await upload(user, 'big.bin', 2_500_000);
      await (await clientFor(org, kind, user)).call(sendMessage, { type: 'direct', to: JSON.stringify([org.owner.id]), content: `see [notes](${a.uri})` });
      const t = await cliTarget(org, kind, user);
      const r = await runCli([...t.args, 'attachments', 'list'], { env: t.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(
        `${a.id}\tnotes.txt\t1234\t${new Date(a.createTime).toISOString()}\t1\n` + `${b.id}\tbig.bin\t2500000\t${new Date(b.createTime).toISOString()}\t0\n`,
      );
      expect(r.stderr).toBe('');
    });

    it('shows a table with headers and sizes for people on a terminal', async () => {
      const user = org.addUser();
      await upload(user, 'big.bin', 2_500_000);
      const t = await cliTarget(org, kind, user);
      const r = await runCli([...t.args, 'attachments', 'list'], { env: { ...t.env, NO_COLOR: '1' }, tty: true });
      expect(r.code).toBe(0);
      const [header, row] = r.stdout.trimEnd().split('\n');
      expect(header).toMatch(/^ID\s+NAME\s+SIZE\s+CREATE_TIME\s+REFERENCES$/);
      expect(row).toMatch(/big\.bin\s+2\.5 MB\s+\d{4}-\d\d-\d\dT/);
    });

    it('prints the wire objects with --json, references and owner added', async () => {
      const user = org.addUser();
      const a = await upload(user, 'a.txt', 5, 40);
      const t = await cliTarget(org, kind, user);
      const r = await runCli([...t.args, 'attachments', 'list', '--json'], { env: t.env });
      expect(r.code).toBe(0);
      const [item] = JSON.parse(r.stdout) as Record<string, unknown>[];
      expect(item).toEqual({
        id: a.id,
        name: 'a.txt',
        path_id: expect.any(String),
        size: 5,
        create_time: a.createTime,
        messages: [],
        references: 0,
        owner: user.email,
      });
      const fields = await runCli([...t.args, 'attachments', 'list', '--fields', 'name,size', '--format', 'csv'], { env: t.env });
      expect(fields.stdout).toBe('name,size\na.txt,5\n');
    });

    it('prints [] with --json when there are none', async () => {
      const t = await cliTarget(org, kind, org.addUser());
      const r = await runCli([...t.args, 'attachments', 'list', '--json'], { env: t.env });
      expect(r).toMatchObject({ code: 0, stdout: '[]\n' });
    });
  });

  describe('delete', () => {
    it('deletes with --yes and prints each outcome', async () => {
      const user = org.addUser();
      const a = await upload(user, 'a.txt', 10);
      const b = await upload(user, 'b.txt', 10);
      const t = await cliTarget(org, kind, user);
      const r = await runCli([...t.args, 'attachments', 'delete', String(a.id), String(b.id), '--yes', '--json'], { env: t.env });
      expect(r.code).toBe(0);
      expect(jsonLines(r.stdout).map((o) => [o.target, o.ok, o.status, o.id])).toEqual([
        [String(a.id), true, 'deleted', a.id],
        [String(b.id), true, 'deleted', b.id],
      ]);
      expect(r.stderr).toContain('chatctl: 2 deleted, 0 failed');
      expect(exists(a.id) || exists(b.id)).toBe(false);
    });

    it('exits 3 when any ID fails, the only one given too, saying its error', async () => {
      const user = org.addUser();
      const a = await upload(user, 'a.txt', 10);
      const t = await cliTarget(org, kind, user);
      const one = await runCli([...t.args, 'attachments', 'delete', '999999', '--yes'], { env: t.env });
      expect(one.code).toBe(3);
      expect(one.stderr).toContain('chatctl: Invalid attachment (BAD_REQUEST)');
      const some = await runCli([...t.args, 'attachments', 'delete', '999999', String(a.id), '--yes'], { env: t.env });
      expect(some.code).toBe(3);
      expect(some.stdout.split('\n').slice(0, 2)).toEqual([
        '1\t999999\tfalse\tfailed\t\tInvalid attachment\tBAD_REQUEST',
        `2\t${a.id}\ttrue\tdeleted\t${a.id}\t\t`,
      ]);
    });

    it("cannot delete someone else's upload (the server says it is not found)", async () => {
      const theirs = await upload(org.addUser(), 'theirs.txt', 10);
      const t = await cliTarget(org, kind, org.addUser());
      const r = await runCli([...t.args, 'attachments', 'delete', String(theirs.id), '--yes'], { env: t.env });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('Invalid attachment');
      expect(exists(theirs.id)).toBe(true);
    });

    it('needs --yes when piped, asks on a terminal, and sends nothing with --dry-run', async () => {
      const user = org.addUser();
      const a = await upload(user, 'a.txt', 10);
      const t = await cliTarget(org, kind, user);
      const refused = await runCli([...t.args, 'attachments', 'delete', String(a.id)], { env: t.env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`Delete attachment ${a.id}: not running interactively; pass --yes`);
      const no = scriptedPrompter({ confirm: [false] });
      const declined = await runCli([...t.args, 'attachments', 'delete', String(a.id)], { env: t.env, tty: true, prompter: no });
      expect(no.asked).toEqual([`Delete attachment ${a.id}?`]);
      expect(declined.code).toBe(130);
      const dry = await runCli([...t.args, 'attachments', 'delete', String(a.id), '--dry-run'], { env: t.env });
      expect(dry.code).toBe(0);
      expect(JSON.parse(dry.stdout)).toEqual({ method: 'DELETE', path: `/api/v1/attachments/${a.id}`, target: `attachment ${a.id}` });
      expect(exists(a.id)).toBe(true);
    });
  });

  describe('clean', () => {
    /** A user with two old uploads (one linked from a message), one new large one and one new small one. */
    const fixture = async () => {
      const user = org.addUser();
      const oldLinked = await upload(user, 'old-linked.txt', 300, 45);
      const oldLoose = await upload(user, 'old-loose.txt', 700, 31);
      const newBig = await upload(user, 'new-big.bin', 12_000_000, 1);
      const newSmall = await upload(user, 'new-small.txt', 50);
      await (await clientFor(org, kind, user)).call(sendMessage, { type: 'direct', to: JSON.stringify([org.owner.id]), content: `[x](${oldLinked.uri})` });
      return { user, oldLinked, oldLoose, newBig, newSmall, t: await cliTarget(org, kind, user) };
    };

    it('--dry-run prints what it would delete and deletes nothing', async () => {
      const f = await fixture();
      const r = await runCli([...f.t.args, 'attachments', 'clean', '--older-than', '30d', '--dry-run', '--fields', 'id,name'], { env: f.t.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${f.oldLinked.id}\told-linked.txt\n${f.oldLoose.id}\told-loose.txt\n`);
      expect(r.stderr).toBe('chatctl: dry run: would delete 2 attachments, freeing 1 kB (1000 bytes)\n');
      expect(exists(f.oldLinked.id) && exists(f.oldLoose.id)).toBe(true);
    });

    it('deletes what matches every filter, prints it, and sums up on stderr', async () => {
      const f = await fixture();
      const r = await runCli([...f.t.args, 'attachments', 'clean', '--older-than', '30d', '--unreferenced', '--yes', '--json'], { env: f.t.env });
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as { id: number; create_time: number }[]).map((a) => [a.id, a.create_time])).toEqual([
        [f.oldLoose.id, f.oldLoose.createTime],
      ]);
      expect(r.stderr).toBe('chatctl: deleted 1 attachment, freed 700 B\n');
      expect([exists(f.oldLinked.id), exists(f.oldLoose.id), exists(f.newBig.id), exists(f.newSmall.id)]).toEqual([true, false, true, true]);

      const big = await runCli([...f.t.args, 'attachments', 'clean', '--larger-than', '10MB', '--yes'], { env: f.t.env });
      expect(big.code).toBe(0);
      expect(big.stdout).toMatch(new RegExp(`^${f.newBig.id}\tnew-big\\.bin\t12000000\t`));
      expect(big.stderr).toBe('chatctl: deleted 1 attachment, freed 12 MB (12000000 bytes)\n');
      expect(exists(f.newBig.id)).toBe(false);
    });

    it('prints nothing at all with --quiet, and nothing matches the second time', async () => {
      const f = await fixture();
      const r = await runCli([...f.t.args, 'attachments', 'clean', '--older-than', '30d', '--yes', '-q'], { env: f.t.env });
      expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(exists(f.oldLinked.id) || exists(f.oldLoose.id)).toBe(false);
      const again = await runCli([...f.t.args, 'attachments', 'clean', '--older-than', '30d', '--yes', '--json'], { env: f.t.env });
      expect(again).toEqual({ code: 0, stdout: '[]\n', stderr: 'chatctl: no attachments match; nothing to delete\n' });
    });

    it('asks on a terminal, showing the count and size', async () => {
      const f = await fixture();
      const no = scriptedPrompter({ confirm: [false] });
      const declined = await runCli([...f.t.args, 'attachments', 'clean', '--older-than', '30d'], { env: f.t.env, tty: true, prompter: no });
      expect(no.asked).toEqual(['Delete 2 attachments (1 kB)?']);
      expect(declined.code).toBe(130);
      expect(exists(f.oldLoose.id)).toBe(true);
      const yes = scriptedPrompter({ confirm: [true] });
      const done = await runCli([...f.t.args, 'attachments', 'clean', '--older-than', '30d'], { env: { ...f.t.env, NO_COLOR: '1' }, tty: true, prompter: yes });
      expect(done.code).toBe(0);
      expect(done.stdout).toMatch(/^ID\s+NAME\s+SIZE/);
      expect(done.stdout).toContain('700 B');
      expect(exists(f.oldLoose.id)).toBe(false);
    });

    it('accepts --owner naming yourself, refuses anyone else', async () => {
      const f = await fixture();
      const other = await runCli([...f.t.args, 'attachments', 'clean', '--older-than', '30d', '--owner', org.owner.email, '--yes'], { env: f.t.env });
      expect(other.code).toBe(2);
      expect(other.stderr).toContain(`--owner ${org.owner.email} is not you (${f.user.email})`);
      expect(exists(f.oldLoose.id)).toBe(true);
      const self = await runCli([...f.t.args, 'attachments', 'clean', '--older-than', '30d', '--owner', String(f.user.id), '--yes'], { env: f.t.env });
      expect(self.code).toBe(0);
      expect(exists(f.oldLoose.id)).toBe(false);
    });

    it('leaves the work to a run that holds the lock, and exits 0', async () => {
      const f = await fixture();
      const site = kind === 'http' ? await org.http() : '';
      const lockPath =
        kind === 'embedded'
          ? join(org.dataDir, 'attachments-clean.lock')
          : join(f.t.env.CHATCTL_CONFIG_DIR!, 'locks', `attachments-clean-${site.replace(/[^a-z0-9.-]+/gi, '_')}.lock`);
      mkdirSync(join(lockPath, '..'), { recursive: true });
      // This test process stands for the other run: its PID is alive.
      writeFileSync(lockPath, String(process.pid));
      const r = await runCli([...f.t.args, 'attachments', 'clean', '--older-than', '30d', '--yes'], { env: f.t.env });
      expect(r).toEqual({
        code: 0,
        stdout: '',
        stderr: `chatctl: another attachments clean (pid ${process.pid}) is running on this organization; leaving it to finish\n`,
      });
      expect(exists(f.oldLoose.id)).toBe(true);
      // A lock left by a process that is gone is taken over, and released after the run.
      writeFileSync(lockPath, '999999999');
      const after = await runCli([...f.t.args, 'attachments', 'clean', '--older-than', '30d', '--yes'], { env: f.t.env });
      expect(after.code).toBe(0);
      expect(exists(f.oldLoose.id)).toBe(false);
      expect(existsSync(lockPath)).toBe(false);
    });

    it('exits 4 without credentials', async () => {
      const { env } = tempHome();
      const args = kind === 'embedded' ? ['--data-dir', org.dataDir] : ['--server', await org.http()];
      const r = await runCli([...args, 'attachments', 'clean', '--older-than', '30d', '--yes'], {
        env: { ...env, ZULIP_EMAIL: 'nobody@example.com', ZULIP_API_KEY: 'B'.repeat(32) },
      });
      expect(r.code).toBe(4);
    });
  });
});
