/**
 * The per-user permissions a stock server withholds (can_create_users, can_change_user_emails): nobody holds
 * them by default, init gives them to the owner it creates, `server grant|revoke` changes them in a data dir,
 * an older data dir keeps them for its owners, and a server's refusal of `users create` is explained.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DB_FILE, openDb } from '../../src/server/store/db.js';
import { documentedExample } from '../client/examples.js';
import { cliTarget, jsonLines, runCli, tempHome } from '../helpers/cli.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';
import { applyMigrations } from '../helpers/schema.js';

const creds = (u: { email: string; apiKey: string }) => ({ ZULIP_EMAIL: u.email, ZULIP_API_KEY: u.apiKey });

describe.each(TRANSPORTS)('users create and the can_create_users permission over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200, email: `admin-${kind}@example.com` });
  });
  afterAll(() => org.close());

  it('an administrator without it is refused with what to do (exit 5); server grant lets them, server revoke stops them', async () => {
    const t = await cliTarget(org, kind, admin);
    const refused = await runCli([...t.args, 'users', 'create', `new-${kind}@example.com`, '--name', 'New Person'], { env: t.env });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('chatctl: User not authorized to create users: creating accounts needs the per-user permission can_create_users');
    // Over HTTP the CLI sees a server like any other, whose operator grants it.
    const grantHint =
      kind === 'embedded'
        ? `grant it: chatctl server grant ${admin.email}`
        : `only the server's operator can grant it: manage.py change_user_role ${admin.email}`;
    expect(refused.stderr).toContain(`hint: ${grantHint} can_create_users; without it, invite people instead: chatctl invite send EMAIL`);

    const dir = ['--data-dir', org.dataDir];
    const grant = await runCli([...dir, 'server', 'grant', admin.email.toUpperCase(), 'can_create_users', '--json'], { env: tempHome().env });
    expect(grant.code).toBe(0);
    expect(JSON.parse(grant.stdout)).toEqual({ user_id: admin.id, email: admin.email, permission: 'can_create_users', granted: true, changed: true });
    const again = await runCli([...dir, 'server', 'grant', admin.email, 'can_create_users', '--json'], { env: tempHome().env });
    expect(JSON.parse(again.stdout)).toMatchObject({ granted: true, changed: false });
    expect(again.stderr).toBe(`chatctl: ${admin.email} already holds can_create_users\n`);

    const created = await runCli([...t.args, 'users', 'create', `new-${kind}@example.com`, '--name', 'New Person', '--json'], { env: t.env });
    expect(created.code).toBe(0);
    expect(jsonLines(created.stdout)[0]).toMatchObject({ ok: true, status: 'created' });

    expect((await runCli([...dir, 'server', 'revoke', admin.email, 'can_create_users'], { env: tempHome().env })).code).toBe(0);
    const afterRevoke = await runCli([...t.args, 'users', 'create', `later-${kind}@example.com`, '--name', 'Later Person'], { env: t.env });
    expect(afterRevoke.code).toBe(5);
  });

  it('a refusal ends a --from-file run at once: every row would be refused alike', async () => {
    const other = org.addUser({ role: 200 });
    const t = await cliTarget(org, kind, other);
    const file = join(mkdtempSync(join(tmpdir(), 'chatctl-perm-')), 'people.csv');
    writeFileSync(file, `email,full_name\nr1-${kind}@example.com,Row One\nr2-${kind}@example.com,Row Two\nr3-${kind}@example.com,Row Three\n`);
    const r = await runCli([...t.args, 'users', 'create', '--from-file', file, '--concurrency', '1', '--json'], { env: t.env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('can_create_users');
    const created = org.db.prepare("SELECT count(*) FROM users WHERE email LIKE 'r_-%'").pluck().get();
    expect(created).toBe(0);
  });
});

describe('server grant and revoke', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('gives an owner the e-mail-change permission the API document asks for', async () => {
    const owner = org.addUser({ role: 100, email: 'second-owner@example.com' });
    const target = org.addUser();
    const t = await cliTarget(org, 'embedded', owner);
    const refused = await runCli([...t.args, 'users', 'update', String(target.id), '--new-email', 'moved@example.com'], { env: t.env });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('User not authorized to change user emails');
    expect((await runCli(['--data-dir', org.dataDir, 'server', 'grant', owner.email, 'can_change_user_emails'], { env: tempHome().env })).code).toBe(0);
    const moved = await runCli([...t.args, 'users', 'update', String(target.id), '--new-email', 'moved@example.com'], { env: t.env });
    expect(moved.code).toBe(0);
    expect(org.db.prepare('SELECT email FROM users WHERE id = ?').pluck().get(target.id)).toBe('moved@example.com');
  });

  it.each([
    [['server', 'grant', 'owner@example.com', 'can_fly'], 2, 'unknown permission "can_fly"'],
    [['server', 'grant', 'ghost@example.com', 'can_create_users'], 6, 'No such user: ghost@example.com'],
  ])('%j exits %i', async (argv, code, message) => {
    const r = await runCli(['--data-dir', org.dataDir, ...argv], { env: tempHome().env });
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
  });

  it('refuses a data dir without an organization (exit 6) and a remote server (exit 2), naming what its operator runs', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'chatctl-empty-'));
    try {
      const none = await runCli(['--data-dir', empty, 'server', 'grant', 'a@b.test', 'can_create_users'], { env: tempHome().env });
      expect(none.code).toBe(6);
      expect(none.stderr).toContain(`there is no organization in ${empty} (chosen by flag --data-dir)`);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    const remote = await runCli(['--server', 'https://chat.example.com', 'server', 'revoke', 'a@b.test', 'can_create_users'], { env: tempHome().env });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toBe(
      "chatctl: server revoke works on an embedded organization's data dir, but the target is the server https://chat.example.com (chosen by flag --server)\n" +
        'hint: on a Zulip server its operator runs: manage.py change_user_role a@b.test can_create_users\n',
    );
  });
});

describe('the owner chatctl creates', () => {
  it('init gives its owner both permissions: users create and --new-email work straight away', async () => {
    const { env, home } = tempHome();
    const dir = join(home, 'org');
    expect((await runCli(['init', '--data-dir', dir, '--email', 'boss@acme.test', '--password-stdin'], { env, stdin: 'pw-123456\n' })).code).toBe(0);
    const created = await runCli(['users', 'create', 'ada@acme.test', '--name', 'Ada Lovelace', '--json'], { env });
    expect(created.code).toBe(0);
    const id = String(jsonLines(created.stdout)[0]!.id);
    expect((await runCli(['users', 'update', id, '--new-email', 'ada@elsewhere.test'], { env })).code).toBe(0);
    // No one else holds them, not even an account made an administrator.
    expect((await runCli(['users', 'update', id, '--role', 'admin'], { env })).code).toBe(0);
    const db = openDb(dir);
    try {
      expect(db.prepare('SELECT can_create_users, can_change_user_emails FROM users WHERE id = ?').get(Number(id))).toEqual({
        can_create_users: 0,
        can_change_user_emails: 0,
      });
    } finally {
      db.close();
    }
  });

  it('the organization created on first use gives its owner users create', async () => {
    const { env } = tempHome();
    const r = await runCli(['users', 'create', 'first@localhost', '--name', 'First Person'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('created an embedded organization');
  });
});

describe('a data dir from before the permissions were per-user', () => {
  /** A data dir at schema 2, as the previous release left it: an owner and an administrator. */
  function oldDataDir(settings: Record<string, unknown> = {}): {
    dir: string;
    owner: { email: string; apiKey: string };
    admin: { email: string; apiKey: string };
  } {
    const dir = mkdtempSync(join(tmpdir(), 'chatctl-old-'));
    const db = new Database(join(dir, DB_FILE));
    applyMigrations(db, 2);
    const insert = db.prepare('INSERT INTO users (email, full_name, role, api_key, date_joined) VALUES (?, ?, ?, ?, 0)');
    insert.run('old-owner@example.com', 'Old Owner', 100, 'O'.repeat(32));
    insert.run('old-admin@example.com', 'Old Admin', 200, 'A'.repeat(32));
    for (const [key, value] of Object.entries(settings)) db.prepare('INSERT INTO realm_settings (key, value) VALUES (?, ?)').run(key, JSON.stringify(value));
    db.close();
    return { dir, owner: { email: 'old-owner@example.com', apiKey: 'O'.repeat(32) }, admin: { email: 'old-admin@example.com', apiKey: 'A'.repeat(32) } };
  }

  it('keeps both permissions for its owners, and gives them to no one else', async () => {
    const old = oldDataDir();
    try {
      const asOwner = await runCli(['--data-dir', old.dir, 'users', 'create', 'kept@example.com', '--name', 'Kept Person'], {
        env: { ...tempHome().env, ...creds(old.owner) },
      });
      expect(asOwner.code).toBe(0);
      const asAdmin = await runCli(['--data-dir', old.dir, 'users', 'create', 'not@example.com', '--name', 'Not Person'], {
        env: { ...tempHome().env, ...creds(old.admin) },
      });
      expect(asAdmin.code).toBe(5);
      const db = openDb(old.dir);
      try {
        expect(db.prepare('SELECT email, can_create_users, can_change_user_emails FROM users WHERE is_system_bot = 0 ORDER BY id').all()).toEqual([
          { email: 'old-owner@example.com', can_create_users: 1, can_change_user_emails: 1 },
          { email: 'old-admin@example.com', can_create_users: 0, can_change_user_emails: 0 },
          { email: 'kept@example.com', can_create_users: 0, can_change_user_emails: 0 },
        ]);
        expect(db.prepare("SELECT count(*) FROM realm_settings WHERE key LIKE 'can_c%'").pluck().get()).toBe(0);
      } finally {
        db.close();
      }
    } finally {
      rmSync(old.dir, { recursive: true, force: true });
    }
  });

  it('keeps a permission its organization had turned off turned off', async () => {
    const old = oldDataDir({ can_create_users: false });
    try {
      const db = openDb(old.dir);
      try {
        expect(db.prepare('SELECT can_create_users, can_change_user_emails FROM users WHERE role = 100').get()).toEqual({
          can_create_users: 0,
          can_change_user_emails: 1,
        });
      } finally {
        db.close();
      }
    } finally {
      rmSync(old.dir, { recursive: true, force: true });
    }
  });
});

describe('a stock Zulip server refusing users create', () => {
  const SITE = 'http://chat.test';
  const iago = { ZULIP_EMAIL: 'iago@zulip.com', ZULIP_API_KEY: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' };
  beforeEach(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it('explains the permission, who grants it and that invitations are the way without it (exit 5)', async () => {
    nock(SITE)
      .get('/api/v1/server_settings')
      .optionally()
      .reply(200, { ...(documentedExample('GET', '/server_settings') as Record<string, unknown>), zulip_feature_level: 442, realm_url: SITE, realm_uri: SITE });
    // Nobody has the address yet: the run looks first for accounts an earlier run created.
    nock(SITE).get('/api/v1/users').reply(200, { result: 'success', msg: '', members: [] });
    const post = nock(SITE).post('/api/v1/users').reply(400, { result: 'error', msg: 'User not authorized to create users', code: 'BAD_REQUEST' });
    const r = await runCli(['--server', SITE, 'users', 'create', 'new@zulip.com', '--name', 'New Person'], { env: { ...tempHome().env, ...iago } });
    expect(post.isDone()).toBe(true);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'chatctl: User not authorized to create users: creating accounts needs the per-user permission can_create_users besides being an administrator, and a Zulip server gives it to no one by default\n',
    );
    expect(r.stderr).toContain(
      "hint: only the server's operator can grant it: manage.py change_user_role iago@zulip.com can_create_users; without it, invite people instead: chatctl invite send EMAIL",
    );
  });
});
