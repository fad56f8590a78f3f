/**
 * The admin's story: invite a class of 50 from a spreadsheet export, three of whose rows are bad, and
 * consume the results the way a script with jq would. Runs the installed bin/chatctl.cjs in a child process
 * with its own HOME, against an embedded organization made by `init`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, tempHome } from '../helpers/cli.js';

const ROLES = [100, 200, 300, 400, 600];

describe('invite send --from-file: 50 invitations, 3 bad rows', () => {
  it('invites the 47 good rows, reports each row as a JSON line with the reasons of the 3 failures, exits 3', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    const init = await spawnCli(['init', '--data-dir', dir, '--email', 'boss@acme.test', '--password-stdin'], { env, stdin: 'invite-pass-1\n' });
    expect(init.code).toBe(0);
    const org = ['--data-dir', dir];

    // Good rows: some join #general, some as guests with a shorter expiry, the rest with the defaults.
    const good = Array.from({ length: 47 }, (_, i) => {
      const email = `student${i + 1}@school.test`;
      if (i % 3 === 0) return { email, channels: 'general', as: '', expires: '' };
      if (i % 3 === 1) return { email, channels: '', as: 'guest', expires: '3d' };
      return { email, channels: '', as: '', expires: '' };
    });
    const bad = [
      { at: 10, row: { email: 'not-an-address', channels: '', as: '', expires: '' }, reason: 'Invalid address.' },
      { at: 25, row: { email: 'boss@acme.test', channels: '', as: '', expires: '' }, reason: 'Already has an account.' },
      { at: 40, row: { email: 'late@school.test', channels: 'no-such-channel', as: '', expires: '' }, reason: "Channel 'no-such-channel' does not exist" },
    ];
    const rows = [...good];
    for (const b of bad) rows.splice(b.at - 1, 0, b.row);
    expect(rows).toHaveLength(50);
    const csv = join(home, 'invites.csv');
    writeFileSync(csv, `${['email,channels,as,expires', ...rows.map((r) => [r.email, r.channels, r.as, r.expires].join(','))].join('\n')}\n`);

    const sent = await spawnCli([...org, 'invite', 'send', '--from-file', csv, '--json'], { env, timeoutMs: 60_000 });
    expect(sent.code).toBe(3);
    const outcomes = sent.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(outcomes).toHaveLength(50);
    for (const o of outcomes) {
      expect(Object.keys(o).sort()).toEqual(['code', 'error', 'id', 'ok', 'row', 'status', 'target']);
      expect(o.target).toBe(rows[(o.row as number) - 1]!.email);
      expect(o.status).toBe(o.ok ? 'invited' : 'failed');
    }
    expect(outcomes.map((o) => o.row as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(47);
    const failures = outcomes.filter((o) => !o.ok).sort((a, b) => (a.row as number) - (b.row as number));
    expect(failures.map((o) => [o.row, o.target, o.error])).toEqual(bad.map((b) => [b.at, b.row.email, b.reason]));
    expect(failures.map((o) => typeof o.code)).toEqual(['string', 'string', 'string']);
    // One summary a run: with rows failed it is the run's error, in JSON under --json.
    expect(JSON.parse(sent.stderr.trim())).toEqual({ error: { message: '47 invited, 3 failed', code: 'PARTIAL', exit_code: 3 } });

    const listed = await spawnCli([...org, 'invite', 'list', '--json'], { env });
    expect(listed.code).toBe(0);
    const invites = JSON.parse(listed.stdout) as Record<string, unknown>[];
    expect(invites).toHaveLength(47);
    const boss = JSON.parse((await spawnCli([...org, 'users', 'get', 'boss@acme.test', '--json'], { env })).stdout) as { user_id: number };
    expect(new Set(invites.map((i) => i.email))).toEqual(new Set(good.map((g) => g.email)));
    for (const invite of invites) {
      const row = good.find((g) => g.email === invite.email)!;
      expect(Object.keys(invite).sort()).toEqual([
        'email',
        'expiry_date',
        'id',
        'invited',
        'invited_as',
        'invited_by_user_id',
        'is_multiuse',
        'notify_referrer_on_join',
      ]);
      expect(invite.notify_referrer_on_join).toBe(true);
      expect(Number.isInteger(invite.id)).toBe(true);
      expect(invite.invited_by_user_id).toBe(boss.user_id);
      expect(Number.isInteger(invite.invited)).toBe(true);
      expect(ROLES).toContain(invite.invited_as);
      expect(invite.invited_as).toBe(row.as === 'guest' ? 600 : 400);
      const days = row.expires === '3d' ? 3 : 10;
      expect(invite.expiry_date).toBe((invite.invited as number) + days * 86400);
      expect(invite.is_multiuse).toBe(false);
    }
  }, 90_000);
});
