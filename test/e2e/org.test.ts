/**
 * The README's story of issue 26: the organization as code. The real bin/chatctl runs every step against one
 * embedded organization in a temporary data dir: export to YAML, edit the file, plan (exit 10, the edit and
 * nothing else), apply, then the cron drift check (exit 0). Needs a build first (npm run build; npm test does it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { spawnCli, tempHome } from '../helpers/cli.js';

type Obj = Record<string, unknown>;

describe('the organization as code', () => {
  it('export → edit → plan (exit 10) → apply → drift (exit 0)', async () => {
    const { home, env } = tempHome();
    const dataDir = join(home, 'org');
    const cli = (argv: string[], stdin?: string) => spawnCli(['--data-dir', dataDir, ...argv], { env, stdin });
    expect((await spawnCli(['init', '--data-dir', dataDir, '--email', 'admin@acme.test', '--password-stdin'], { env, stdin: 'org-pass-1\n' })).code).toBe(0);
    const people = 'email,full_name\nada@acme.test,Ada Lovelace\nbob@acme.test,Bob Builder\n';
    expect((await cli(['users', 'create', '--from-file', '-'], people)).code).toBe(0);

    const file = join(home, 'org.yaml');
    const exported = await cli(['org', 'export', '-o', file]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/wrote .*org\.yaml \(\d+ requests\)/);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('# yaml-language-server: $schema=')).toBe(true);
    expect((await cli(['org', 'plan', '-f', file])).code).toBe(0);

    const doc = parse(text) as Obj & { users: Obj[]; groups: Obj[]; channels: Obj[] };
    const bob = doc.users.find((u) => u.email === 'bob@acme.test')!;
    doc.users = doc.users.map((u) => (u === bob ? { ...u, role: 'moderator' } : u));
    doc.groups = [...doc.groups, { name: 'eng', description: 'Engineers', members: ['ada@acme.test', 'bob@acme.test'] }];
    doc.channels = [...doc.channels, { name: 'deploys', description: 'Deploys', members: ['admin@acme.test', 'ada@acme.test'] }];
    writeFileSync(file, stringify(doc));

    const plan = await cli(['org', 'plan', '-f', file]);
    expect(plan.code, plan.stderr).toBe(10);
    expect(plan.stdout).toContain(`~ users/bob@acme.test (id ${bob.id})\n      role: "member" → "moderator"`);
    expect(plan.stdout).toContain('+ groups/eng');
    expect(plan.stdout).toContain('+ channels/deploys');
    // Zulip's Notification Bot tells Ada she was subscribed by someone else; nobody is told of a group membership.
    expect(plan.stdout).toMatch(
      /Plan: 2 to create, 1 to change, 0 to rename, 0 to remove; 3 requests, no wait under 200\/min and 2000\/h; 1 person will be notified\n$/,
    );
    expect(plan.stderr).toContain('3 changes pending');

    const apply = await cli(['org', 'apply', '-f', file, '--yes']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('groups/eng');
    expect(apply.stdout).toContain('users/bob@acme.test');

    const drift = await cli(['org', 'drift', '-f', file]);
    expect(drift.code, drift.stderr).toBe(0);
    expect(drift.stdout).toContain('groups: in sync\n');
    expect(drift.stdout).toContain('users: in sync\n');
    expect(drift.stdout).toContain('channels: in sync\n');
    const users = await cli(['users', 'list', '--json']);
    expect(users.stdout).toMatch(/"email":"bob@acme\.test"[^\n]*"role":300|"role":300[^\n]*"email":"bob@acme\.test"/);
  });
});
