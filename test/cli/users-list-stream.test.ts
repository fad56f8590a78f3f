/**
 * `users list` prints a list longer than a page as it arrives, over either transport, in every format
 * that can be written a row at a time: the output is the text the whole list gives.
 */
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getUsers } from '../../src/api/operations/users.js';
import type { User } from '../../src/api/types.js';
import { seedUsers } from '../../src/server/model/bulk-seed.js';
import { USER_PAGE } from '../../src/server/model/user-view.js';
import { documentedExample } from '../client/examples.js';
import { cliTarget, runCli, tempHome } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

const SEEDED = 2 * USER_PAGE + 500;

describe('users list, longer than a page', () => {
  let org: TestOrg;
  let members: User[];
  beforeAll(async () => {
    org = createTestOrg();
    org.db.transaction(() =>
      seedUsers(
        org.db,
        Array.from({ length: SEEDED }, (_, i) => ({ email: `seeded${i}@example.com`, full_name: `Seeded, "${i}"\té`, role: i % 5 === 0 ? 600 : 400 })),
        org.clock.now(),
      ),
    )();
    org.addUser({ active: false });
    org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
    ({ members } = await (await clientFor(org, 'embedded')).call(getUsers, {}));
  });
  afterAll(() => org.close());

  const list = async (kind: (typeof TRANSPORTS)[number], args: string[], tty = false) => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'users', 'list', ...args], { env: t.env, tty });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return r.stdout;
  };

  it('prints the same NDJSON and JSON over both transports, as the whole list gives them', async () => {
    const lines = members.map((u) => `${JSON.stringify(u)}\n`).join('');
    for (const kind of TRANSPORTS) {
      expect(await list(kind, ['--format', 'ndjson'])).toBe(lines);
      expect(await list(kind, ['--json'])).toBe(`${JSON.stringify(members)}\n`);
      expect(await list(kind, ['--json'], true)).toBe(`${JSON.stringify(members, null, 2)}\n`);
    }
  });

  it('prints the same CSV and TSV over both transports', async () => {
    const [csv, tsv] = [await list('embedded', ['--format', 'csv']), await list('embedded', ['--format', 'tsv'])];
    expect(csv.split('\n')[0]).toBe('user_id,full_name,email,delivery_email,role,is_active,is_bot,date_joined');
    expect(csv).toContain('"Seeded, ""2400""\té"');
    expect(tsv.trimEnd().split('\n')).toHaveLength(members.length);
    expect(await list('http', ['--format', 'csv'])).toBe(csv);
    expect(await list('http', ['--format', 'tsv'])).toBe(tsv);
  });

  it('applies filters to every row, on every page', async () => {
    const guests = members.filter((u) => u.role === 600 && u.is_active);
    // On every page of the list.
    expect(guests.at(-1)!.user_id - guests[0]!.user_id).toBeGreaterThan(2 * USER_PAGE);
    for (const kind of TRANSPORTS) {
      expect(await list(kind, ['--role', 'guest', '--active', '--json'])).toBe(`${JSON.stringify(guests)}\n`);
      expect(await list(kind, ['--bots', '--fields', 'user_id,is_bot', '--format', 'csv'])).toBe(
        `user_id,is_bot\n${members.find((u) => u.is_bot)!.user_id},true\n`,
      );
      expect(await list(kind, ['--deactivated', '--role', 'owner', '--json'])).toBe('[]\n');
      expect(await list(kind, ['--deactivated', '--role', 'owner', '--format', 'csv'])).toBe(
        'user_id,full_name,email,delivery_email,role,is_active,is_bot,date_joined\n',
      );
    }
  });
});

describe('users list --ids against a server before feature level 384', () => {
  const SITE = 'http://old.chat.test';
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it('asks for every user and keeps the ones named, as the list arrives', async () => {
    nock(SITE)
      .get('/api/v1/server_settings')
      .reply(200, { ...documentedExample('GET', '/server_settings'), zulip_feature_level: 300, realm_url: SITE, realm_uri: SITE });
    const [example] = (documentedExample('GET', '/users') as { members: User[] }).members;
    const everyone = Array.from({ length: 3000 }, (_, i) => ({ ...example!, user_id: i + 1, full_name: `User ${i + 1}` }));
    let query: Record<string, unknown> | undefined;
    nock(SITE)
      .get('/api/v1/users')
      .query((q) => {
        query = q;
        return true;
      })
      .reply(200, { result: 'success', msg: '', members: everyone });
    const r = await runCli(['--server', SITE, 'users', 'list', '--ids', '2999,7,1500', '--format', 'ndjson', '--fields', 'user_id,full_name'], {
      env: { ...tempHome().env, ZULIP_EMAIL: 'iago@zulip.com', ZULIP_API_KEY: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(query).not.toHaveProperty('user_ids');
    expect(r.stdout).toBe([7, 1500, 2999].map((id) => `${JSON.stringify({ user_id: id, full_name: `User ${id}` })}\n`).join(''));
  });
});
