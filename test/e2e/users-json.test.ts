/**
 * The scripting story: `chatctl users list --json | jq ...`. The real binary's output is consumed field by
 * field, the way a jq filter or a script would, for users of every kind.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, tempHome } from '../helpers/cli.js';

type Json = Record<string, unknown>;

/** What a script may rely on for each field of the user object (document §2.1). */
const FIELD_TYPES: Record<string, (v: unknown, u: Json) => boolean> = {
  user_id: (v) => Number.isInteger(v),
  delivery_email: (v) => v === null || (typeof v === 'string' && v.includes('@')),
  email: (v) => typeof v === 'string' && v.includes('@'),
  full_name: (v) => typeof v === 'string' && v.length > 0,
  date_joined: (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)),
  is_active: (v) => typeof v === 'boolean',
  is_owner: (v, u) => typeof v === 'boolean' && (!v || u.is_admin === true),
  is_admin: (v) => typeof v === 'boolean',
  is_guest: (v) => typeof v === 'boolean',
  is_bot: (v) => typeof v === 'boolean',
  bot_type: (v, u) => (u.is_bot ? [1, 2, 3, 4].includes(v as number) : v === null),
  role: (v) => [100, 200, 300, 400, 600].includes(v as number),
  timezone: (v) => typeof v === 'string',
  avatar_url: (v) => v === null || (typeof v === 'string' && v.startsWith('https://')),
  avatar_version: (v) => Number.isInteger(v),
  is_imported_stub: (v) => typeof v === 'boolean',
};

describe('users list --json, consumed by a script', () => {
  it('gives every field of every user with the documented type, and filters like jq would', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    expect((await spawnCli(['init', '--data-dir', dir, '--demo', '--password-stdin'], { env, stdin: 'demo-pass-1\n' })).code).toBe(0);
    const r = await spawnCli(['users', 'list', '--json', '--custom-fields'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const users = JSON.parse(r.stdout) as Json[];
    expect(users.length).toBeGreaterThanOrEqual(7);
    for (const u of users) {
      for (const [field, ok] of Object.entries(FIELD_TYPES)) expect(ok(u[field], u), `${String(u.email)}.${field} = ${JSON.stringify(u[field])}`).toBe(true);
      expect(u.is_admin).toBe((u.role as number) <= 200);
      expect(u.is_guest).toBe(u.role === 600);
      if (u.is_bot) {
        expect(Number.isInteger(u.bot_owner_id)).toBe(true);
        expect(u).not.toHaveProperty('profile_data');
      } else {
        expect(typeof u.profile_data).toBe('object');
      }
    }
    // jq -r '.[] | select(.role <= 200) | .delivery_email'
    const admins = users.filter((u) => (u.role as number) <= 200).map((u) => u.delivery_email);
    expect(admins).toEqual(expect.arrayContaining(['owner@localhost', 'iago@example.com', 'prospero@example.com']));
    // jq '[.[] | select(.is_bot)] | length'
    expect(users.filter((u) => u.is_bot)).toHaveLength(1);
    // Profile values are keyed by field ID, as strings.
    const hamlet = users.find((u) => u.delivery_email === 'hamlet@example.com')!;
    expect(Object.values(hamlet.profile_data as Record<string, { value: string }>).map((p) => p.value)).toEqual(['he/him']);

    // The same data as NDJSON, one user a line (jq -c '.[]').
    const nd = await spawnCli(['users', 'list', '--format', 'ndjson'], { env });
    expect(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Json).user_id),
    ).toEqual(users.map((u) => u.user_id));
  });
});
