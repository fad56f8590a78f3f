/**
 * Finding what went stale: `users list --inactive-since` (from presence) and `channels list --quiet-since`
 * (from each channel's newest message), over both transports. The organization's clock starts 200 days ago
 * and is moved forward between the reports, so the fixtures end at the real "now" the CLI keeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/api/operations/messages.js';
import { updatePresence } from '../../src/api/operations/presence.js';
import { updateOwnStatus } from '../../src/api/operations/status.js';
import { createChannel } from '../helpers/channels.js';
import { cliTarget, expectUsageError, jsonLines, runCli } from '../helpers/cli.js';
import { createTestOrg, TestClock, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

const DAY = 86400;

describe('stale reports: usage', () => {
  it.each([
    [['users', 'list', '--include-unknown'], '--include-unknown goes with --inactive-since'],
    [['users', 'list', '--inactive-since', '90d', '--bots'], '--inactive-since lists active humans'],
    [['users', 'list', '--inactive-since', 'soon'], '--inactive-since takes a duration like 30d or 12h, not "soon"'],
    [['channels', 'list', '--include-unknown'], '--include-unknown goes with --quiet-since'],
  ])('%j is a usage error', expectUsageError);
});

describe('stale reports', () => {
  let org: TestOrg;
  let t0: number;
  let stale: TestUser;
  let recent: TestUser;
  let hidden: TestUser;
  let silent: TestUser;
  let gone: TestUser;
  const channels: Record<string, number> = {};

  beforeAll(async () => {
    org = createTestOrg({ clock: new TestClock(Math.floor(Date.now() / 1000) - 200 * DAY) });
    t0 = org.clock.now();
    [stale, recent, hidden, silent, gone] = [org.addUser(), org.addUser(), org.addUser(), org.addUser(), org.addUser()];
    org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
    const as = (u: TestUser) => clientFor(org, 'embedded', u);
    const active = async (u: TestUser) => (await as(u)).call(updatePresence, { status: 'active', ping_only: true });
    for (const u of [stale, recent, hidden, gone]) await active(u);
    // Presence turned off: the data stops here, whatever the user does later.
    await (await as(hidden)).call(updateOwnStatus, { away: true });
    org.db.prepare('UPDATE users SET is_active = 0 WHERE id = ?').run(gone.id);

    const owner = await as(org.owner);
    const say = async (u: TestUser, to: number) => (await as(u)).call(sendMessage, { type: 'stream', to: String(to), topic: 't', content: 'hi' });
    for (const name of ['old-talk', 'fresh-talk', 'never-used']) channels[name] = (await createChannel(org, owner, name)).id;
    channels.secret = (await createChannel(org, owner, 'secret', { principals: [stale.id], invite_only: true })).id;
    await say(org.owner, channels['old-talk']!);
    await say(stale, channels.secret);

    org.clock.advance(190 * DAY);
    await active(recent);
    await active(hidden);
    await say(org.owner, channels['fresh-talk']!);
    org.addUser();
    channels.newcomer = (await createChannel(org, owner, 'newcomer')).id;
    org.clock.advance(Math.max(0, Math.floor(Date.now() / 1000) - org.clock.now()));
  });
  afterAll(() => org.close());

  const run = async (kind: (typeof TRANSPORTS)[number], argv: string[]) => {
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, ...argv], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    return r;
  };

  it('users deactivate takes rows naming users by user, user_id or email, ignoring other columns; a row with none fails alone', async () => {
    const t = await cliTarget(org, 'embedded');
    const rows = `{"user_id":${stale.id},"status":"inactive"}\n{"email":"${silent.email}","note":"x"}\n{"user":"${recent.email}"}\n{"full_name":"nobody"}\n`;
    const r = await runCli([...t.args, 'users', 'deactivate', '--from-file', '-', '--dry-run'], { env: t.env, stdin: rows });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout)).toEqual(
      [stale, silent, recent].map((u) => ({ method: 'DELETE', path: `/api/v1/users/${u.id}`, target: `user ${u.id} (${u.email}, ${u.row.full_name})` })),
    );
    expect(r.stderr).toContain('no user, user_id or email');
  });

  describe.each(TRANSPORTS)('over %s', (kind) => {
    it('lists the humans last active before the cutoff; unknown ones only when asked', async () => {
      const r = await run(kind, ['users', 'list', '--inactive-since', '90d', '--format', 'ndjson']);
      expect(jsonLines(r.stdout)).toEqual([{ user_id: stale.id, email: stale.email, full_name: stale.row.full_name, last_active: t0, status: 'inactive' }]);
      expect(r.stderr).toContain('chatctl: 1 inactive; 3 unknown');
      const all = await run(kind, ['users', 'list', '--inactive-since', '90d', '--include-unknown', '--json']);
      const rows = JSON.parse(all.stdout) as { user_id: number; status: string; last_active: number | null }[];
      expect(rows.map((u) => [u.user_id, u.status, u.last_active])).toEqual(
        [
          [org.owner.id, 'unknown', null],
          [stale.id, 'inactive', t0],
          [hidden.id, 'unknown', null],
          [silent.id, 'unknown', null],
        ].sort((a, b) => Number(a[0]) - Number(b[0])),
      );
    });

    it('prints the report as a table with times, and nobody when the cutoff is older than everyone', async () => {
      const r = await run(kind, ['users', 'list', '--inactive-since', '90d', '--format', 'csv']);
      expect(r.stdout).toBe(
        `user_id,email,full_name,last_active,status\n${stale.id},${stale.email},${stale.row.full_name},${new Date(t0 * 1000).toISOString().replace('.000', '')},inactive\n`,
      );
      expect((await run(kind, ['users', 'list', '--inactive-since', '300d', '--json'])).stdout).toBe('[]\n');
    });

    it('lists the channels with no message since the cutoff; a private one it cannot read is unknown', async () => {
      const r = await run(kind, ['channels', 'list', '--all', '--quiet-since', '180d', '--format', 'ndjson']);
      // `general`, made with the organization, never had a message either.
      expect(
        jsonLines(r.stdout)
          .map((c) => [c.name, c.status])
          .sort(),
      ).toEqual([
        ['general', 'quiet'],
        ['never-used', 'quiet'],
        ['old-talk', 'quiet'],
      ]);
      expect(r.stderr).toContain('chatctl: 3 quiet; 1 unknown');
      const all = await run(kind, ['channels', 'list', '--all', '--quiet-since', '180d', '--include-unknown', '--json']);
      const rows = JSON.parse(all.stdout) as { name: string; status: string; last_message_time?: number | null }[];
      expect(rows.map((c) => [c.name, c.status, c.last_message_time]).sort()).toEqual([
        ['general', 'quiet', null],
        // Notification Bot's creation message, when it was made.
        ['never-used', 'quiet', org.db.prepare('SELECT max(date_sent) FROM messages WHERE stream_id = ?').pluck().get(channels['never-used']) as number],
        ['old-talk', 'quiet', t0],
        ['secret', 'unknown', null],
      ]);
    });
  });
});
