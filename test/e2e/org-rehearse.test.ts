/**
 * chatctl org rehearse: mirror, run a real chatctl (bin/chatctl.cjs, found on PATH as `chatctl`) against the
 * copy, and plan what it changed against the original, which nothing touches. A command that fails, or that
 * names production, ends the rehearsal with its own exit code and no plan.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getStreams } from '../../src/api/operations/channels.js';
import { EXIT } from '../../src/errors.js';
import { setFeatureLevel } from '../../src/server/feature-level.js';
import { BIN, runCli, tempHome, writeProfile } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor } from '../helpers/transports.js';

/** A HOME with the profile `prod` (the organization over HTTP), and `chatctl` on PATH running the built CLI. */
async function rehearsalHome(org: TestOrg): Promise<Record<string, string>> {
  const { env } = tempHome();
  writeProfile(env, { server: await org.http(), email: org.owner.email, apiKey: org.owner.apiKey }, 'prod');
  const bin = mkdtempSync(join(tmpdir(), 'chatctl-bin-'));
  writeFileSync(join(bin, 'chatctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'chatctl'), 0o755);
  return { ...env, PATH: `${bin}:${env.PATH}` };
}

describe('org rehearse', () => {
  let org: TestOrg;
  let env: Record<string, string>;
  beforeAll(async () => {
    org = createTestOrg();
    org.addUser({ email: 'max@example.com' });
    env = await rehearsalHome(org);
  });
  afterAll(() => org.close());

  const channelNames = async () => (await (await clientFor(org, 'embedded')).call(getStreams, { include_all: true })).streams.map((c) => c.name);

  it('-- chatctl channels create x: prints the command’s output, then a plan with the creation; the original is untouched', async () => {
    const r = await runCli(['org', 'rehearse', '--from', 'prod', '--', 'chatctl', 'channels', 'create', 'rehearsed', '--user', 'max@example.com'], { env });
    expect(r.code, r.stderr).toBe(EXIT.pending);
    expect(r.stdout).toContain('+ channels/rehearsed');
    expect(r.stdout).toMatch(/Plan: 1 to create, 0 to change, 0 to rename, 0 to remove/);
    expect(r.stderr).toMatch(/mirrored http:\/\/127\.0\.0\.1:\d+ into /);
    expect(await channelNames()).not.toContain('rehearsed');
  });

  it('a command that names another profile finds none there, and the rehearsal stops with its exit code and no plan', async () => {
    const r = await runCli(['org', 'rehearse', '--from', 'prod', '--', 'chatctl', '--profile', 'prod', 'channels', 'create', 'escaped'], { env });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('no profile named "prod"');
    expect(r.stderr).toContain('rehearsal stopped: chatctl exited 2; nothing was planned');
    expect(r.stdout).not.toContain('Plan:');
    expect(await channelNames()).not.toContain('escaped');
  });

  it('a command the mirrored level cannot do stops the rehearsal, naming what it needs', async () => {
    const old = createTestOrg();
    try {
      setFeatureLevel(old.db, 263);
      const oldEnv = await rehearsalHome(old);
      const r = await runCli(['org', 'rehearse', '--from', 'prod', '--', 'chatctl', 'folders', 'create', 'Engineering'], { env: oldEnv });
      expect(r.code).toBe(EXIT.failure);
      expect(r.stderr).toMatch(/needs feature level ≥ 389 \(server has 263\)/);
      expect(r.stderr).toContain('rehearsal stopped: chatctl exited 1; nothing was planned');
      expect(r.stdout).not.toContain('Plan:');
    } finally {
      await old.close();
    }
  });
});
