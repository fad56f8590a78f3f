/**
 * --from-file checked whole before anything is sent (src/cli/bulk/input.ts): encoding, syntax, columns and
 * required cells, every problem in one pass with its line, row and column; empty input and directories are
 * usage errors. The Latin-1 file goes through the real binary, as a cron job would run it.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, MAX_PROBLEMS } from '../../src/cli/bulk/input.js';
import { BIN, cliTarget, fakeCreds, jsonLines, runCli, spawnCli, tempHome } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';

const LATIN1 = Buffer.concat([
  Buffer.from('email,full_name\nada@x.test,Ada\njose@x.test,Jos'),
  Buffer.from([0xe9]),
  Buffer.from(' Mar'),
  Buffer.from([0xed]),
  Buffer.from('a\n'),
]);

describe('a Latin-1 file, with the real binary', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it("is refused with each bad byte's line, row and offset, and nothing is created, even under --dry-run", async () => {
    const { home } = tempHome();
    const file = join(home, 'people.csv');
    writeFileSync(file, LATIN1);
    const t = await cliTarget(org, 'embedded');
    const users = () => org.db.prepare('SELECT count(*) FROM users').pluck().get();
    const before = users();
    for (const extra of [[], ['--dry-run']]) {
      const r = await spawnCli([...t.args, 'users', 'create', '--from-file', file, ...extra], { env: t.env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `chatctl: ${file} has 2 problems:\n` +
          '  line 3 (row 2): byte offset 46: 0xe9 is not UTF-8\n' +
          '  line 3 (row 2): byte offset 51: 0xed is not UTF-8\n' +
          'hint: pass --encoding with the encoding the file was saved in (e.g. --encoding latin1); nothing was sent\n',
      );
    }
    expect(users()).toBe(before);
  });

  it('is read as it was written with --encoding latin1', async () => {
    const { home } = tempHome();
    const file = join(home, 'people.csv');
    writeFileSync(file, LATIN1);
    const t = await cliTarget(org, 'embedded');
    const r = await spawnCli([...t.args, 'users', 'create', '--from-file', file, '--encoding', 'latin1', '--json'], { env: t.env });
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((o) => o.status)).toEqual(['created', 'created']);
    expect(org.db.prepare("SELECT full_name FROM users WHERE email = 'jose@x.test'").pluck().get()).toBe('José María');
  });
});

describe('what is wrong with a file, all at once', () => {
  const write = (name: string, content: string): string => {
    const file = join(tempHome().home, name);
    writeFileSync(file, content);
    return file;
  };
  const create = (file: string, extra: string[] = []) => runCli(['users', 'create', '--from-file', file, ...extra], { env: fakeCreds() });

  it('lists every problem with its file line, row number and column, counting rows, not lines', async () => {
    // A quoted name over two lines: row 2 ends on line 4, so the rows after it are a line further down.
    const file = write('people.csv', 'email,full_name,colour\na@x.test,A,red\n"b@x.test","B\nC",blue\n,D,green\nd@x.test,,x,y\ne@x.test,,blue\n');
    const r = await create(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `chatctl: ${file} has 4 problems:\n` +
        '  line 1, column colour: unknown column\n' +
        '  line 5 (row 3), column email: empty (required)\n' +
        '  line 6 (row 4): Invalid Record Length: columns length is 3, got 4\n' +
        '  line 7 (row 5), column full_name: empty (required)\n' +
        'hint: columns: email (required), full_name (required), password (nothing was sent)\n',
    );
  });

  it(`stops the list at ${MAX_PROBLEMS} and says how many more`, async () => {
    const file = write('many.csv', `email,full_name\n${Array.from({ length: 25 }, (_, i) => `u${i}@x.test,`).join('\n')}\n`);
    const r = await create(file);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe(`chatctl: ${file} has 25 problems:`);
    expect(lines.slice(1, 1 + MAX_PROBLEMS)).toEqual(
      Array.from({ length: MAX_PROBLEMS }, (_, i) => `  line ${i + 2} (row ${i + 1}), column full_name: empty (required)`),
    );
    expect(lines[1 + MAX_PROBLEMS]).toBe('  and 5 more');
  });

  it('names a required column the header lacks once, as missing', async () => {
    const file = write('people.csv', 'email\na@x.test\nb@x.test\n');
    const r = await create(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `chatctl: ${file} has a problem:\n  line 1, column full_name: missing (required)\nhint: columns: email (required), full_name (required), password (nothing was sent)\n`,
    );
  });

  it('reports each bad JSON line with its row', async () => {
    const file = write('people.jsonl', '{"email":"a@x.test","full_name":"A"}\n\nnot json\n[1]\n{"email":"c@x.test"}\n');
    const r = await create(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '  line 3 (row 2): not valid JSON\n  line 4 (row 3): each line must be a JSON object\n  line 5 (row 4), column full_name: empty (required)\n',
    );
  });

  it('reads a JSON array (what --format json prints), each element a row on the line it starts on', async () => {
    const file = write('people.json', '[\n  {"email": "a@x.test", "full_name": "A"},\n  {"email": "b@x.test"},\n  [1]\n]\n');
    const r = await create(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('  line 3 (row 2), column full_name: empty (required)\n  line 4 (row 3): each element must be a JSON object\n');
    const notRows = write('people.json', '{"email": "a@x.test"');
    expect((await create(notRows)).stderr).toContain('not valid JSON');
  });

  it.each([
    ['an empty file', '', 'is empty: no header and no rows'],
    ['blank lines', '\n\n  \n', 'is empty: no header and no rows'],
    ['a header alone', 'email,full_name\n', 'has a header but no rows'],
  ])('says so for %s (exit 2)', async (_what, content, message) => {
    const file = write('people.csv', content);
    const r = await create(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`chatctl: ${file} ${message}\n`);
  });

  it('takes piped input with no rows (a report that found nothing) as nothing to do: exit 0, nothing sent', async () => {
    const { env } = tempHome();
    const users = async () => (await runCli(['users', 'list', '--format', 'ndjson'], { env })).stdout;
    const before = await users();
    for (const stdin of ['', '\n', 'email,full_name\n']) {
      const r = await runCli(['users', 'create', '--from-file', '-', '--json'], { env, stdin });
      expect(r).toMatchObject({ code: 0, stdout: '', stderr: 'chatctl: 0 created, 0 failed\n' });
    }
    const piped = await runCli(['users', 'deactivate', '--from-file', '-', '--yes'], { env, stdin: '' });
    expect(piped).toMatchObject({ code: 0, stderr: 'chatctl: 0 deactivated, 0 failed\n' });
    expect(await users()).toBe(before);
  });

  it('refuses a directory, an unknown encoding, and --encoding without --from-file (exit 2)', async () => {
    const dir = join(tempHome().home, 'rows');
    mkdirSync(dir);
    expect((await create(dir)).stderr).toContain(`chatctl: ${dir} is a directory, not a file of rows\n`);
    const file = write('people.csv', 'email,full_name\na@x.test,A\n');
    const unknown = await create(file, ['--encoding', 'klingon']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('chatctl: --encoding: unknown encoding "klingon"');
    const alone = await runCli(['users', 'create', 'a@x.test', '--name', 'A', '--encoding', 'latin1'], { env: fakeCreds() });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--encoding goes with --from-file');
  });

  it('type-checks JSON values as CSV cells are checked: a number for a name, an object for a role (exit 2, line and column)', async () => {
    const file = write(
      'people.jsonl',
      '{"email":42,"full_name":"A"}\n{"email":"b@x.test","full_name":["B"]}\n{"email":"c@x.test","full_name":"C","password":null}\n',
    );
    const r = await create(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `chatctl: ${file} has 2 problems:\n` +
        '  line 1 (row 1), column email: the number 42 where a string is expected\n' +
        '  line 2 (row 2), column full_name: an array where a string is expected\n' +
        'hint: nothing was sent\n',
    );
    const roles = write('roles.jsonl', '{"user":8,"role":{"name":"admin"}}\n{"user":9,"role":200}\n{"user":true,"role":"guest"}\n');
    const update = await runCli(['users', 'update', '--from-file', roles], { env: fakeCreds() });
    expect(update.code).toBe(2);
    expect(update.stderr).toBe(
      `chatctl: ${roles} has 2 problems:\n` +
        '  line 1 (row 1), column role: an object where a string or a whole number is expected\n' +
        '  line 3 (row 3), column user: true where a string or a whole number is expected\n' +
        'hint: nothing was sent\n',
    );
  });

  it('refuses a CSV header naming a column twice, naming it (exit 2)', async () => {
    const file = write('people.csv', 'email,full_name,Email,email\na@x.test,A,b@x.test,c@x.test\n');
    const r = await create(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `chatctl: ${file} has 2 problems:\n  line 1, column Email: unknown column\n  line 1, column email: appears more than once in the header\n`,
    );
  });

  it(`refuses a line over ${MAX_LINE_BYTES} bytes in CSV and JSON lines, naming it; a JSON array on one line is not held to it`, async () => {
    const long = 'x'.repeat(MAX_LINE_BYTES);
    const csv = await create(write('people.csv', `email,full_name\na@x.test,A\nb@x.test,${long}\n`));
    expect(csv.code).toBe(2);
    expect(csv.stderr).toMatch(/^chatctl: \S+people\.csv: line 3 is longer than 1 MB, the most a line of CSV or JSON lines may hold\n/);
    const lines = await create(write('people.jsonl', `{"email":"a@x.test","full_name":"${long}"}\n`));
    expect(lines.code).toBe(2);
    expect(lines.stderr).toContain('people.jsonl: line 1 is longer than 1 MB');
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ email: `u${i}@x.test`, full_name: `Person ${i}`, colour: 'red' }));
    const array = await create(write('people.json', JSON.stringify(rows)));
    expect(array.code).toBe(2);
    expect(array.stderr).toContain('has a problem:\n  column colour: unknown column\n');
  });

  it('refuses binary input at its first NUL byte: a file, stdin, /dev/zero (exit 2)', async () => {
    const file = write('people.csv', 'email,full_name\na@x.test,A\nb@x.test,B\0\n');
    const r = await create(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `chatctl: ${file} is binary, not text: a NUL byte at byte offset 37 (line 3)\n` +
        'hint: give a CSV file with a header or JSON lines; text saved as UTF-16 needs --encoding utf-16le (nothing was sent)\n',
    );
    const piped = await runCli(['users', 'create', '--from-file', '-'], { env: fakeCreds(), stdin: '\0\0\0' });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('chatctl: stdin is binary, not text: a NUL byte at byte offset 0 (line 1)\n');
    const zero = await create('/dev/zero');
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('chatctl: /dev/zero is binary, not text: a NUL byte at byte offset 0 (line 1)\n');
    // UTF-16 text holds NUL bytes, and is text.
    const utf16 = write('people.csv', '\ufeffemail,full_name\na@x.test,\n');
    writeFileSync(utf16, Buffer.from('\ufeffemail,full_name\na@x.test,\n', 'utf16le'));
    const wide = await create(utf16, ['--encoding', 'utf-16le']);
    expect(wide.stderr).toContain('line 2 (row 1), column full_name: empty (required)');
  });

  it('ends an endless line on stdin (the real binary) with exit 2 once past the bound, not when memory runs out', { timeout: 30_000 }, async () => {
    const r = spawnSync('sh', ['-c', `tr '\\0' x < /dev/zero | "${process.execPath}" "${BIN}" users create --from-file -`], {
      env: fakeCreds(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('chatctl: stdin: line 1 is longer than 1 MB');
  });

  it('says a FIFO whose writer sent nothing is empty', async () => {
    const fifo = join(tempHome().home, 'rows.fifo');
    execFileSync('mkfifo', [fifo]);
    // A writer that opens the FIFO and closes it at once: the reader sees the end without data.
    const writer = new Promise((resolve) => execFile('sh', ['-c', `: > '${fifo}'`], resolve));
    const [r] = await Promise.all([create(fifo), writer]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`chatctl: ${fifo} is empty: no header and no rows\n`);
  });
});
