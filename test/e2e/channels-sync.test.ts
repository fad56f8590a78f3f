/**
 * The story of issue 13: an administrator keeps channels in step with a user group from cron. The real
 * bin/chatctl runs every step against one embedded organization: a group-to-channels map synced twice (the
 * second run changes nothing and says "in sync"), a member leaves the group and `--remove` unsubscribes
 * them, and a map naming someone who does not exist fails that row alone (exit 3). Needs a build first
 * (npx tsc -p tsconfig.json; npm test does it).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, spawnCli, tempHome } from '../helpers/cli.js';

describe('channels sync from cron', () => {
  it('syncs a group into channels, twice, then removes who left the group, and reports a bad row alone', async () => {
    const { home, env } = tempHome();
    const dataDir = join(home, 'org');
    const cli = (argv: string[], stdin?: string) => spawnCli(['--data-dir', dataDir, ...argv], { env, stdin });
    expect((await spawnCli(['init', '--data-dir', dataDir, '--email', 'admin@acme.test', '--password-stdin'], { env, stdin: 'sync-pass-1\n' })).code).toBe(0);
    const people = 'email,full_name\nada@acme.test,Ada Lovelace\nbob@acme.test,Bob Builder\ncyd@acme.test,Cyd Charisse\n';
    expect((await cli(['users', 'create', '--from-file', '-'], people)).code).toBe(0);
    expect((await cli(['groups', 'create', 'eng', '--description', 'Engineers', '--member', 'ada@acme.test', 'bob@acme.test'])).code).toBe(0);
    for (const name of ['engineering', 'deploys']) expect((await cli(['channels', 'create', name, '--description', name])).code).toBe(0);
    const map = join(home, 'channels.json');
    writeFileSync(map, JSON.stringify({ rules: [{ group: 'eng', channels: ['engineering', 'deploys'] }] }));

    const first = await cli(['channels', 'sync', '--map', map, '--json']);
    expect(first.code).toBe(0);
    expect(jsonLines(first.stdout).map((l) => [l.target, l.status])).toEqual([
      ['engineering: +ada@acme.test', 'subscribed'],
      ['engineering: +bob@acme.test', 'subscribed'],
      ['deploys: +ada@acme.test', 'subscribed'],
      ['deploys: +bob@acme.test', 'subscribed'],
    ]);
    expect(first.stderr).toContain('4 subscribed, 0 failed');

    const second = await cli(['channels', 'sync', '--map', map, '--json']);
    expect(second).toMatchObject({ code: 0, stdout: '' });
    expect(second.stderr).toContain('in sync: 2 channels, 4 subscriptions');

    expect((await cli(['groups', 'members', 'eng', '--remove', 'bob@acme.test', '--yes'])).code).toBe(0);
    const dry = await cli(['channels', 'sync', '--map', map, '--remove', '--dry-run', '--json']);
    expect(jsonLines(dry.stdout).map((l) => [l.action, l.channel, l.user])).toEqual([
      ['unsubscribe', 'engineering', 'bob@acme.test'],
      ['unsubscribe', 'deploys', 'bob@acme.test'],
    ]);
    const removed = await cli(['channels', 'sync', '--map', map, '--remove', '--yes', '--json']);
    expect(removed.code).toBe(0);
    expect(jsonLines(removed.stdout).map((l) => [l.target, l.status])).toEqual([
      ['engineering: -bob@acme.test', 'unsubscribed'],
      ['deploys: -bob@acme.test', 'unsubscribed'],
    ]);
    const members = await cli(['channels', 'members', 'engineering', '--fields', 'email', '--format', 'csv']);
    expect(members.stdout).toBe('email\nada@acme.test\n');
    expect((await cli(['channels', 'sync', '--map', map, '--remove', '--yes'])).stderr).toContain('in sync');

    const mixed = join(home, 'people.csv');
    writeFileSync(mixed, 'user,channels\ncyd@acme.test,engineering\nnobody@acme.test,engineering\n');
    const partial = await cli(['channels', 'sync', '--map', mixed, '--json']);
    expect(partial.code).toBe(3);
    expect(jsonLines(partial.stdout)).toEqual([
      { row: 1, target: 'engineering: +nobody@acme.test', ok: false, status: 'failed', id: null, error: 'No such user: nobody@acme.test', code: 'BAD_REQUEST' },
      { row: 2, target: 'engineering: +cyd@acme.test', ok: true, status: 'subscribed', id: expect.any(Number), error: null, code: null },
    ]);
    expect(partial.stderr).toContain('1 subscribed, 1 failed');
  }, 60_000);
});
