/**
 * `--jq` on real command output over both transports: the whole result (every page of `users list`, every
 * batch of `flags add --all`, every outcome of a bulk run), once per record with NDJSON, strings raw, and a
 * bad expression refused (exit 2) before anything is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/api/operations/channels.js';
import { sendMessage } from '../../src/api/operations/messages.js';
import { getUsers } from '../../src/api/operations/users.js';
import type { User } from '../../src/api/types.js';
import { seedUsers } from '../../src/server/model/bulk-seed.js';
import { USER_PAGE } from '../../src/server/model/user-view.js';
import { cliTarget, expectUsageError, runCli, spawnCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

const lines = (...values: (string | number)[]) => values.map((v) => `${v}\n`).join('');

describe.each(TRANSPORTS)('--jq over %s', (kind) => {
  let org: TestOrg;
  let members: User[];
  beforeAll(async () => {
    org = createTestOrg();
    // More users than a page: `users list` streams pages, and --jq must see them all.
    org.db.transaction(() =>
      seedUsers(
        org.db,
        Array.from({ length: USER_PAGE + 50 }, (_, i) => ({ email: `seeded${i}@example.com`, full_name: `Seeded ${i}`, role: i % 10 === 0 ? 200 : 400 })),
        org.clock.now(),
      ),
    )();
    ({ members } = await (await clientFor(org, kind)).call(getUsers, {}));
  });
  afterAll(() => org.close());

  const run = async (args: string[], env: Record<string, string> = {}) => {
    const t = await cliTarget(org, kind);
    return runCli([...t.args, ...args], { env: { ...t.env, ...env } });
  };
  const ok = async (args: string[]) => {
    const r = await run(args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return r.stdout;
  };
  const isActive = (id: number) => (org.db.prepare('SELECT is_active FROM users WHERE id = ?').get(id) as { is_active: number }).is_active === 1;

  it('runs once over every page of users list, and prints strings raw', async () => {
    expect(await ok(['users', 'list', '--jq', 'length'])).toBe(lines(members.length));
    expect(await ok(['users', 'list', '--jq', '.[] | select(.role <= 200) | .email'])).toBe(lines(...members.filter((u) => u.role <= 200).map((u) => u.email)));
    expect(await ok(['users', 'list', '--jq', 'map(.user_id) | add'])).toBe(lines(members.reduce((n, u) => n + u.user_id, 0)));
    const byRole = await ok(['users', 'list', '--jq', 'group_by(.role) | map({role: .[0].role, n: length})']);
    expect(JSON.parse(byRole)).toEqual(
      [...new Set(members.map((u) => u.role))].sort((a, b) => a - b).map((role) => ({ role, n: members.filter((u) => u.role === role).length })),
    );
  });

  it('prints other values as compact JSON, one a line, as real jq computes them', async () => {
    const [first, second] = members;
    expect(await ok(['users', 'list', '--jq', 'limit(2; .[]) | {user_id, email}'])).toBe(
      lines(JSON.stringify({ user_id: first!.user_id, email: first!.email }), JSON.stringify({ user_id: second!.user_id, email: second!.email })),
    );
    expect(await ok(['users', 'list', '--jq', '.[0] | "\\(.full_name) <\\(.email)>"'])).toBe(lines(`${first!.full_name} <${first!.email}>`));
    expect(await ok(['users', 'list', '--jq', '.[0] | [.email, .role] | @csv'])).toBe(lines(`"${first!.email}",${first!.role}`));
    expect(await ok(['users', 'list', '--jq', '[.[] | .email | select(test("^seeded1[0-9]@")) | ltrimstr("seeded")] | length'])).toBe(lines(10));
    expect(await ok(['users', 'list', '--jq', '.[0] | [paths] | length'])).toBe(lines(Object.keys(first!).length));
    expect(await ok(['users', 'get', String(org.owner.id), '--jq', '.email, .is_owner, null'])).toBe(lines(org.owner.email, 'true', 'null'));
  });

  it('runs once per record as they stream with --format ndjson', async () => {
    expect(await ok(['users', 'list', '--format', 'ndjson', '--jq', '.user_id'])).toBe(lines(...members.map((u) => u.user_id)));
    // `length` of each record (an object) is its number of fields, never the list's length.
    const counts = (await ok(['users', 'list', '--format', 'ndjson', '--jq', 'length'])).trim().split('\n');
    expect(counts).toHaveLength(members.length);
  });

  it("filters a bulk command's outcome rows as one list, also beside --json", async () => {
    const users = [org.addUser(), org.addUser()];
    const ids = users.map((u) => String(u.id));
    expect(await run(['users', 'deactivate', ...ids, '--yes', '--jq', 'map(.status)'])).toMatchObject({
      code: 0,
      stdout: lines('["deactivated","deactivated"]'),
    });
    // --json streams outcomes a line each; with --jq they are still one list.
    expect(await run(['users', 'reactivate', ...ids, '--json', '--jq', 'map("\\(.target) \\(.status)") | join(", ")'])).toMatchObject({
      code: 0,
      stdout: lines(`${ids[0]} reactivated, ${ids[1]} reactivated`),
    });
    expect(await run(['users', 'deactivate', ...ids, '--yes', '--format', 'ndjson', '--jq', '.ok'])).toMatchObject({ code: 0, stdout: lines('true', 'true') });
  });

  it('runs over every batch of flags add --all', async () => {
    const poster = org.addUser();
    const name = `jq-${kind}`;
    await (await clientFor(org, kind)).call(subscribe, { subscriptions: [{ name }], principals: [org.owner.id, poster.id] });
    const as = await clientFor(org, kind, poster);
    for (let i = 0; i < 5; i++) await as.call(sendMessage, { type: 'stream', to: name, topic: 't', content: `m${i}` });
    const r = await run(['flags', 'add', 'read', '--narrow', `channel:${name}`, '--all', '--after', '2', '--jq', '[length, (map(.updated_count) | add)]']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(lines('[3,5]'));
  });

  it('refuses a bad expression with exit 2 before anything is sent', async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind);
    let opened = 0;
    const r = await runCli([...t.args, 'users', 'deactivate', String(user.id), '--yes', '--jq', '.[] |'], {
      env: t.env,
      openTransport: async () => {
        opened++;
        throw new Error('nothing may be sent');
      },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('chatctl: invalid --jq expression: syntax error, unexpected end of file');
    expect(r.stdout).toBe('');
    expect(opened).toBe(0);
    expect(isActive(user.id)).toBe(true);
    const unknown = await run(['users', 'list', '--jq', 'nosuchfunction(1)']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('nosuchfunction/1 is not defined');
  });

  it('prints nothing and exits 0 when the program prints nothing, over the whole result or per record', async () => {
    const none = 'select(.email == "nobody@example.com")';
    const silent = { code: 0, stdout: '', stderr: '' };
    expect(await run(['users', 'list', '--jq', `.[] | ${none}`])).toEqual(silent);
    expect(await run(['users', 'list', '--jq', 'empty'])).toEqual(silent);
    expect(await run(['users', 'list', '--json', '--jq', 'empty'])).toEqual(silent);
    expect(await run(['users', 'get', String(org.owner.id), '--jq', none])).toEqual(silent);
    expect(await run(['users', 'list', '--format', 'ndjson', '--jq', none])).toEqual(silent);
    expect(await run(['users', 'list', '--format', 'ndjson', '--jq', 'empty'])).toEqual(silent);
    // Records that print nothing, before and after one that prints: the run goes on over every page.
    expect(await ok(['users', 'list', '--format', 'ndjson', '--jq', 'select(.role == 100) | .email'])).toBe(
      lines(...members.filter((u) => u.role === 100).map((u) => u.email)),
    );
    const users = [org.addUser(), org.addUser()];
    const outcome = await run(['users', 'deactivate', ...users.map((u) => String(u.id)), '--yes', '--jq', '.[] | select(.ok | not)']);
    expect(outcome).toMatchObject({ code: 0, stdout: '' });
    expect(users.map((u) => isActive(u.id))).toEqual([false, false]);
  });

  it('prints every value a program gives for each input', async () => {
    const [first, second] = members;
    expect(await ok(['users', 'list', '--jq', '.[0:2][] | .user_id, .email'])).toBe(lines(first!.user_id, first!.email, second!.user_id, second!.email));
    const both = (await ok(['users', 'list', '--format', 'ndjson', '--jq', '.user_id, .email'])).trim().split('\n');
    // Users earlier tests added come after these.
    expect(both.slice(0, 2 * members.length)).toEqual(members.flatMap((u) => [String(u.user_id), u.email]));
  });

  it('feeds a filtered NDJSON list to a bulk command: users list | users deactivate --from-file -', async () => {
    // Added after the seeded pages: every record before them prints nothing.
    const leavers = [org.addUser({ email: `leaver-a-${kind}@example.com` }), org.addUser({ email: `leaver-b-${kind}@example.com` })];
    const listed = await ok([
      'users',
      'list',
      '--format',
      'ndjson',
      '--jq',
      `select(.email | startswith("leaver-")) | select(.email | endswith("-${kind}@example.com"))`,
    ]);
    expect(
      listed
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as User).email),
    ).toEqual(leavers.map((u) => u.email));
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'users', 'deactivate', '--from-file', '-', '--yes', '--json'], { env: t.env, stdin: listed });
    expect(r.code).toBe(0);
    expect(leavers.map((u) => isActive(u.id))).toEqual([false, false]);
  });

  it("reports an error of the running expression with jq's message, exit 1", async () => {
    const r = await run(['users', 'list', '--jq', '.[0].role | .[]']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^chatctl: jq: Cannot iterate over number \(\d+\)\n/);
    expect(r.stdout).toBe('');
  });
});

describe('--jq beside other output options', () => {
  it.each([
    [['--jq', '.', '--fields', 'email'], '--jq and --fields exclude each other'],
    [['--jq', '.', '--format', 'csv'], '--jq reads JSON: --format csv does not apply'],
    [['--template', '{{.}}', '--format', 'table'], '--template reads JSON: --format table does not apply'],
    [['--jq', '.', '--template', '{{.}}'], '--jq and --template exclude each other'],
    [['--jq', '.', '--json', '--format', 'tsv'], '--json and --format disagree'],
  ])('users list %j is a usage error', async (args, message) => {
    await expectUsageError(['users', 'list', ...args], message);
  });
});

describe('--jq from the installed command', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('loads the engine in a real process: raw strings, and exit 2 for a bad expression', async () => {
    const t = await cliTarget(org, 'embedded');
    const r = await spawnCli([...t.args, 'users', 'list', '--jq', '.[] | .email'], { env: t.env });
    expect(r).toMatchObject({ code: 0, stdout: lines(org.owner.email), stderr: '' });
    const bad = await spawnCli([...t.args, 'users', 'list', '--jq', '{'], { env: t.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --jq expression');
  });
});
