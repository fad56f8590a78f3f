/**
 * `users create --from-file` into the embedded organization, which takes the rows in batches (one
 * transaction and one pass over the event queues a batch): every account created with its outcome in
 * input order, the events a server sends for each, re-runs unchanged, and passwords only where rows have them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchApiKey } from '../../src/api/operations/server.js';
import { getUser } from '../../src/api/operations/users.js';
import { cliTarget, jsonLines, runCli, tempHome, summariesIn } from '../helpers/cli.js';
import { eventErrors, openQueue, takeEvents } from '../helpers/events.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor } from '../helpers/transports.js';

const csv = (name: string, header: string, lines: string[]): string => {
  const file = join(tempHome().home, name);
  writeFileSync(file, `${header}\n${lines.join('\n')}\n`);
  return file;
};

describe('users create --from-file into the embedded organization', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('creates 2,000 accounts, one outcome each in order, and one realm_user add event per account', async () => {
    // The CLI runs on the real clock: a queue last used now is alive for it.
    const queue = openQueue(org, org.owner, { eventTypes: ['realm_user'], lastAccess: Math.floor(Date.now() / 1000) });
    const emails = Array.from({ length: 2000 }, (_, i) => `many${i + 1}@batch.test`);
    const file = csv(
      'many.csv',
      'email,full_name',
      emails.map((e, i) => `${e},Many Person ${i + 1}`),
    );
    const t = await cliTarget(org, 'embedded');
    const r = await runCli([...t.args, 'users', 'create', '--from-file', file, '--json'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('chatctl: 2000 created, 0 failed');
    const outcomes = jsonLines(r.stdout);
    expect(outcomes.map((o) => [o.row, o.target, o.ok, o.status])).toEqual(emails.map((e, i) => [i + 1, e, true, 'created']));
    const idOf = org.db.prepare('SELECT id FROM users WHERE email = ?').pluck();
    expect(outcomes.map((o) => o.id)).toEqual(emails.map((e) => idOf.get(e)));

    const events = takeEvents(org, queue);
    expect(events.map((e) => [e.type, e.op, (e.person as { user_id: number }).user_id])).toEqual(outcomes.map((o) => ['realm_user', 'add', o.id]));
    // Each carries the user object POST /users would send: the one GET /users/{id} shows the owner.
    const owner = await clientFor(org, 'embedded');
    for (const event of [events[0]!, events[1999]!]) {
      const { user } = await owner.call(getUser, {
        user_id: (event.person as { user_id: number }).user_id,
        client_gravatar: false,
        include_custom_profile_fields: true,
      });
      expect(event.person).toEqual(user);
      expect(eventErrors(event)).toEqual([]);
    }
  });

  it('keeps per-row outcomes in input order across batches, good rows created, bad ones refused alone; a re-run is unchanged', async () => {
    const lines = Array.from({ length: 1200 }, (_, i) => `mixed${i + 1}@batch.test,Mixed Person ${i + 1}`);
    lines[3] = 'not-an-address,Bad Address';
    lines[600] = 'mixed1@batch.test,Mixed Person 1';
    lines[700] = 'short@batch.test,X';
    lines[1100] = `${org.owner.email},Someone Else`;
    const file = csv('mixed.csv', 'email,full_name', lines);
    const t = await cliTarget(org, 'embedded');
    const r = await runCli([...t.args, 'users', 'create', '--from-file', file, '--json'], { env: t.env });
    expect(r.code).toBe(3);
    const outcomes = jsonLines(r.stdout);
    expect(outcomes.map((o) => o.row)).toEqual(lines.map((_, i) => i + 1));
    const failed = outcomes.filter((o) => !o.ok).map((o) => [o.row, o.error, o.code]);
    expect(failed).toEqual([
      [4, 'Bad name or username', 'BAD_REQUEST'],
      [601, "Email 'mixed1@batch.test' already in use", 'BAD_REQUEST'],
      [701, 'Name too short!', 'BAD_REQUEST'],
      [1101, expect.stringContaining(`already has an account (user ${org.owner.id}) named`), 'BAD_REQUEST'],
    ]);
    expect(summariesIn(r.stderr)).toEqual(['1196 created, 4 failed']);
    expect(org.db.prepare("SELECT count(*) FROM users WHERE email LIKE 'mixed%@batch.test'").pluck().get()).toBe(1196);

    const again = await runCli([...t.args, 'users', 'create', '--from-file', file, '--json'], { env: t.env });
    expect(again.code).toBe(3);
    const rerun = jsonLines(again.stdout);
    // Row 601 names the account row 1 made, under the same name: on a re-run it is that person, unchanged.
    expect(rerun.filter((o) => o.status === 'unchanged')).toHaveLength(1197);
    expect(rerun.filter((o) => !o.ok).map((o) => o.row)).toEqual([4, 701, 1101]);
    expect(org.db.prepare("SELECT count(*) FROM users WHERE email LIKE 'mixed%@batch.test'").pluck().get()).toBe(1196);
  });

  it('stops at the first failed row with --fail-fast: nothing after it is written', async () => {
    const file = csv('stop.csv', 'email,full_name', ['stop1@batch.test,Stop One', 'bad,Bad Row', 'stop3@batch.test,Stop Three']);
    const t = await cliTarget(org, 'embedded');
    const r = await runCli([...t.args, 'users', 'create', '--from-file', file, '--fail-fast', '--json'], { env: t.env });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout).map((o) => o.status)).toEqual(['created', 'failed', 'skipped']);
    expect(org.db.prepare("SELECT count(*) FROM users WHERE email LIKE 'stop%@batch.test'").pluck().get()).toBe(1);
  });

  it('creates rows with a password that logs in, and rows without one that cannot log in with any password', async () => {
    const file = csv('passwords.csv', 'email,full_name,password', [
      'withpw@batch.test,With Password,correct-horse-1',
      'nopw@batch.test,No Password,',
      'weak@batch.test,Weak Password,abc',
    ]);
    const t = await cliTarget(org, 'embedded');
    const r = await runCli([...t.args, 'users', 'create', '--from-file', file, '--json'], { env: t.env });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout).map((o) => [o.status, o.error])).toEqual([
      ['created', null],
      ['created', null],
      ['failed', 'The password is too weak.'],
    ]);
    const anonymous = await clientFor(org, 'embedded', null);
    const key = await anonymous.call(fetchApiKey, { username: 'withpw@batch.test', password: 'correct-horse-1' });
    expect(key.email).toBe('withpw@batch.test');
    for (const password of ['', 'correct-horse-1', 'password']) {
      await expect(anonymous.call(fetchApiKey, { username: 'nopw@batch.test', password })).rejects.toMatchObject({
        msg: 'Your username or password is incorrect',
      });
    }
  });
});
