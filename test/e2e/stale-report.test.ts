/**
 * Issue 13's inactivity story: the real bin/chatctl prints who went stale and the next command takes that
 * report from stdin as it is. `users list --inactive-since 90d --format ndjson` piped into `users deactivate
 * --from-file - --dry-run` would deactivate exactly the inactive users, and `channels list --quiet-since 180d`
 * piped into `channels archive --dry-run` exactly the quiet channels; nothing changes. The organization is made
 * with a clock 200 days back, so its presence and messages have an age. Needs a build first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/api/operations/messages.js';
import { updatePresence } from '../../src/api/operations/presence.js';
import { createChannel } from '../helpers/channels.js';
import { cliTarget, jsonLines, spawnCli } from '../helpers/cli.js';
import { createTestOrg, TestClock, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor } from '../helpers/transports.js';

const DAY = 86400;

describe('an inactivity report piped into deactivate and archive, with --dry-run', () => {
  let org: TestOrg;
  let stale: TestUser[];
  let cli: (argv: string[], stdin?: string) => ReturnType<typeof spawnCli>;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    org = createTestOrg({ clock: new TestClock(Math.floor(Date.now() / 1000) - 200 * DAY) });
    stale = [org.addUser(), org.addUser()];
    const recent = org.addUser();
    org.addUser(); // never reported presence: unknown, left alone
    const as = (u: TestUser) => clientFor(org, 'embedded', u);
    for (const u of [...stale, recent]) await (await as(u)).call(updatePresence, { status: 'active', ping_only: true });
    const owner = await as(org.owner);
    const say = async (id: number) => owner.call(sendMessage, { type: 'stream', to: String(id), topic: 't', content: 'hi' });
    for (const name of ['old-talk', 'busy']) ids[name] = (await createChannel(org, owner, name)).id;
    await say(ids['old-talk']!);
    org.clock.advance(190 * DAY);
    await (await as(recent)).call(updatePresence, { status: 'active', ping_only: true });
    await say(ids.busy!);
    const t = await cliTarget(org, 'embedded');
    cli = (argv, stdin) => spawnCli([...t.args, ...argv], { env: t.env, stdin });
  });
  afterAll(() => org.close());

  const activeIds = () => org.db.prepare('SELECT id FROM users WHERE is_active = 1 ORDER BY id').pluck().all();
  const archivedIds = () => org.db.prepare('SELECT id FROM streams WHERE is_archived = 1').pluck().all();

  it('deactivates, in a dry run, exactly the inactive users', async () => {
    const before = activeIds();
    const report = await cli(['users', 'list', '--inactive-since', '90d', '--format', 'ndjson']);
    expect(report.code, report.stderr).toBe(0);
    expect(jsonLines(report.stdout).map((r) => [r.email, r.status])).toEqual(stale.map((u) => [u.email, 'inactive']));
    const dry = await cli(['users', 'deactivate', '--from-file', '-', '--dry-run', '--json'], report.stdout);
    expect(dry.code, dry.stderr).toBe(0);
    // Each request line names its user, so the plan can be reviewed before it is run.
    expect(jsonLines(dry.stdout)).toEqual(
      stale.map((u) => ({ method: 'DELETE', path: `/api/v1/users/${u.id}`, target: `user ${u.id} (${u.email}, ${u.row.full_name})` })),
    );
    expect(dry.stderr).toContain('dry run: 2 requests not sent');
    expect(activeIds()).toEqual(before);
  });

  it('archives, in a dry run, exactly the quiet channels', async () => {
    const report = await cli(['channels', 'list', '--all', '--quiet-since', '180d', '--format', 'ndjson']);
    expect(report.code, report.stderr).toBe(0);
    // `general`, made with the organization, never had a message.
    const quiet = jsonLines(report.stdout).map((r) => r.name);
    expect(quiet.sort()).toEqual(['general', 'old-talk']);
    const dry = await cli(['channels', 'archive', '--from-file', '-', '--dry-run', '--json'], report.stdout);
    expect(dry.code, dry.stderr).toBe(0);
    const general = org.db.prepare("SELECT id FROM streams WHERE name = 'general'").pluck().get();
    expect(
      jsonLines(dry.stdout)
        .map((l) => `${l.method} ${l.path}`)
        .sort(),
    ).toEqual([general, ids['old-talk']].map((id) => `DELETE /api/v1/streams/${id}`).sort());
    expect(archivedIds()).toEqual([]);
  });
});
