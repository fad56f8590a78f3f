/**
 * The feature level as commands get it (target/connect.ts): from the profile's cache while fresh, read from
 * GET /server_settings when stale and stored back, read once per process without a profile, and read from the
 * embedded organization the same way, whose calls it shapes and gates as a remote server's. Server requests are
 * counted in the served organization's log.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel } from '../../src/api/operations/channels.js';
import { getOwnUser } from '../../src/api/operations/users.js';
import { connect } from '../../src/cli/target/connect.js';
import type { GlobalOptions } from '../../src/cli/command/context.js';
import { createContext } from '../../src/cli/entry/make-context.js';
import { terminalPrompter } from '../../src/cli/core/prompter.js';
import type { IO } from '../../src/cli/core/io.js';
import { setFeatureLevel } from '../../src/server/feature-level.js';
import { tempHome, writeProfile } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';

const NOW_MS = 1_800_000_000_000;
/** GET /users/me, declared as if a far later level had added it. */
const futureMe = { ...getOwnUser, minFeatureLevel: 9999 };
const DAY = 24 * 3600;

function contextFor(env: Record<string, string>, globals: Partial<GlobalOptions> = {}) {
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const io: IO = { stdin: new PassThrough(), stdout: new PassThrough(), stderr, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false, columns: 80 };
  const ctx = createContext({ io, env, globals, prompter: terminalPrompter(io, false), nowMs: () => NOW_MS });
  return { ctx, stderr: () => err };
}

describe('the feature level of a remote profile', () => {
  let org: TestOrg;
  let site: string;
  const settingsReads = () => org.logs.filter((l) => l.includes('"GET /api/v1/server_settings"')).length;
  beforeAll(async () => {
    org = createTestOrg();
    site = await org.http();
  });
  afterAll(() => org.close());

  it('comes from a fresh cache without a request, and the file is left alone', async () => {
    const { env } = tempHome();
    const file = writeProfile(env, {
      server: site,
      email: org.owner.email,
      apiKey: org.owner.apiKey,
      featureLevel: 400,
      serverVersion: '10.0',
      checkedAt: NOW_MS / 1000 - 3600,
    });
    const before = readFileSync(file, 'utf8');
    const reads = settingsReads();
    const { ctx } = contextFor(env);
    const client = await connect(ctx);
    expect(await client.featureLevel()).toBe(400);
    await ctx.close();
    expect(settingsReads()).toBe(reads);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('is read again when older than a day, stored in the profile, and then trusted', async () => {
    const { env } = tempHome();
    const file = writeProfile(env, { server: site, email: org.owner.email, apiKey: org.owner.apiKey, featureLevel: 170, checkedAt: NOW_MS / 1000 - DAY - 1 });
    const reads = settingsReads();
    const first = contextFor(env);
    const client = await connect(first.ctx);
    expect(await client.featureLevel()).toBe(471);
    await first.ctx.close();
    expect(settingsReads()).toBe(reads + 1);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default).toMatchObject({
      featureLevel: 471,
      serverVersion: '12.0-chatctl',
      checkedAt: NOW_MS / 1000,
      apiKey: org.owner.apiKey,
    });

    const second = contextFor(env);
    expect(await (await connect(second.ctx)).featureLevel()).toBe(471);
    await second.ctx.close();
    expect(settingsReads()).toBe(reads + 1);
  });

  it('is read once per process when no profile holds the target, and nothing is written', async () => {
    const { env } = tempHome();
    const reads = settingsReads();
    const { ctx } = contextFor({ ...env, ZULIP_EMAIL: org.owner.email, ZULIP_API_KEY: org.owner.apiKey }, { server: site });
    const client = await connect(ctx);
    expect(await Promise.all([client.featureLevel(), client.featureLevel()])).toEqual([471, 471]);
    await ctx.close();
    expect(settingsReads()).toBe(reads + 1);
    expect(existsSync(join(env.CHATCTL_CONFIG_DIR!, 'config.json'))).toBe(false);
  });

  it('refuses a command above a cached level only after reading the server again', async () => {
    const { env } = tempHome();
    writeProfile(env, { server: site, email: org.owner.email, apiKey: org.owner.apiKey, featureLevel: 300, checkedAt: NOW_MS / 1000 - 60 });
    const { ctx } = contextFor(env);
    const client = await connect(ctx);
    const reads = settingsReads();
    await expect(client.call(futureMe, {})).rejects.toThrow('get-own-user needs feature level ≥ 9999 (server has 471)');
    expect(settingsReads()).toBe(reads + 1);
    await ctx.close();
  });
});

describe('the feature level of the embedded organization', () => {
  it('is read from the organization (a copy of an older server answers at its level), and calls are shaped and gated by it', async () => {
    const org = createTestOrg();
    try {
      setFeatureLevel(org.db, 263);
      const { env } = tempHome();
      const { ctx } = contextFor({ ...env, ZULIP_EMAIL: org.owner.email, ZULIP_API_KEY: org.owner.apiKey }, { dataDir: org.dataDir });
      const client = await connect(ctx);
      expect(client.transport.kind).toBe('embedded');
      expect(await client.featureLevel()).toBe(263);
      await expect(client.call(futureMe, {})).rejects.toThrow('get-own-user needs feature level ≥ 9999 (server has 263)');
      // POST /channels/create came at 417: a 263 organization is asked the way a 263 server is.
      const [request] = await client.prepare(createChannel, { name: 'x', subscribers: [] });
      expect(request).toMatchObject({ method: 'POST', path: '/users/me/subscriptions' });
      await ctx.close();
    } finally {
      await org.close();
    }
  });
});
