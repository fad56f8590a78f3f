/**
 * chatctl org mirror and the three-way org plan --desired DIR --against PROFILE: a copy of a real organization
 * served over HTTP (as `serve` serves it), a script of commands run on the copy, its plan applied to the
 * original, a conflict that stays one, and copies of remote stand-ins at feature levels 263 and 421 that refuse
 * what those levels refuse.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe, updateStream } from '../../src/api/operations/channels.js';
import { EXIT } from '../../src/errors.js';
import { setFeatureLevel } from '../../src/server/feature-level.js';
import { expectUsageError, jsonLines, runCli, tempHome, writeProfile } from '../helpers/cli.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor } from '../helpers/transports.js';

type Obj = Record<string, unknown>;
type Doc = Obj & { channels: Obj[]; users: Obj[]; groups: Obj[]; linkifiers: Obj[]; domains: Obj[]; folders?: Obj[]; settings: Obj };

/** A HOME whose config holds the profile `prod`: the original over HTTP, as its owner. */
function homeWithProd(site: string, owner: TestUser): Record<string, string> {
  const { env } = tempHome();
  writeProfile(env, { server: site, email: owner.email, apiKey: owner.apiKey }, 'prod');
  return env;
}

const newDir = () => join(mkdtempSync(join(tmpdir(), 'chatctl-mirror-cli-')), 'copy');

/** A document without the IDs the copy gave the objects it made, nor where it was read: what two organizations share. */
function comparable(doc: Doc): Doc {
  const strip = (list: Obj[] | undefined) => (list ?? []).map(({ id: _id, ...o }) => o);
  const { server: _server, ...rest } = doc;
  return {
    ...rest,
    channels: strip(doc.channels),
    groups: strip(doc.groups),
    linkifiers: strip(doc.linkifiers),
    folders: strip(doc.folders),
    users: strip(doc.users),
  } as Doc;
}

describe('org mirror of an organization served over HTTP, and the three-way plan of a script run on the copy', () => {
  let org: TestOrg;
  let env: Record<string, string>;
  let dir: string;
  const people: Record<string, TestUser> = {};
  const cli = (...argv: string[]) => runCli(argv, { env });
  const exportOf = async (profile: string): Promise<Doc> => {
    const r = await cli('--profile', profile, 'org', 'export', '--format', 'json');
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Doc;
  };

  beforeAll(async () => {
    org = createTestOrg();
    people.admin = org.addUser({ role: 200, email: 'ada@example.com', name: 'Ada Admin' });
    people.max = org.addUser({ email: 'max@example.com', name: 'Max Member' });
    people.mia = org.addUser({ email: 'mia@example.com', name: 'Mia Member' });
    people.leo = org.addUser({ email: 'leo@example.com', name: 'Leo Member' });
    people.zoe = org.addUser({ email: 'zoe@example.com', name: 'Zoe Member' });
    env = homeWithProd(await org.http(), org.owner);
    for (const argv of [
      ['groups', 'create', 'devs', '--description', 'Developers', '--member', 'max@example.com'],
      ['groups', 'create', 'old-team', '--description', 'Gone soon', '--member', 'mia@example.com'],
      ['channels', 'create', 'engineering', '--description', 'Build things', '--user', 'max@example.com', '--user', 'mia@example.com'],
      ['channels', 'create', 'old-project', '--description', 'Done'],
      ['linkifiers', 'add', '#(?P<id>[0-9]+)', 'https://tracker.example/{id}'],
    ]) {
      const r = await cli(...argv);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
    }
    dir = newDir();
  });
  afterAll(() => org.close());

  it('copies the organization with its IDs into a new data dir, saves a base without secrets and a private profile', async () => {
    const r = await cli('org', 'mirror', '--from', 'prod', '--to', dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /mirrored http:\/\/127\.0\.0\.1:\d+ into .* \(feature level \d+\): 6 users, 3 channels, \d+ groups, \d+ subscriptions; \d+ requests/,
    );
    expect(r.stderr).toContain('the copy is profile "copy"');
    const base = readFileSync(join(dir, 'base.json'), 'utf8');
    expect(statSync(join(dir, 'base.json')).mode & 0o777).toBe(0o600);
    for (const u of [org.owner, ...Object.values(people)]) expect(base).not.toContain(u.apiKey);
    const config = JSON.parse(readFileSync(join(env.CHATCTL_CONFIG_DIR!, 'config.json'), 'utf8')) as {
      profiles: Record<string, { apiKey: string; embedded?: string }>;
    };
    expect(config.profiles.copy).toMatchObject({ embedded: dir, email: org.owner.email });
    expect(config.profiles.copy!.apiKey).not.toBe(org.owner.apiKey);
    expect(r.stderr + r.stdout).not.toContain(config.profiles.copy!.apiKey);
    // The same organization, IDs included.
    const [original, copy] = [await exportOf('prod'), await exportOf('copy')];
    expect({ ...copy, server: null }).toEqual({ ...original, server: null });
    // Stock: no operator permission was copied, so the copy refuses what the server refuses.
    const create = await cli('--profile', 'copy', 'users', 'create', 'new@example.com', '--name', 'New Person');
    expect(create.code).not.toBe(0);
    // And a directory that is not empty is refused before anything is read.
    const again = await cli('org', 'mirror', '--from', 'prod', '--to', dir);
    expect(again.code).toBe(EXIT.usage);
    expect(again.stderr).toContain('is not empty');
  });

  it("a script of 22 commands on the copy: its plan, applied to the original, makes the original's export the copy's; a field both changed is a conflict and stays", async () => {
    const script = [
      ['groups', 'create', 'designers', '--description', 'Design', '--member', 'max@example.com'],
      ['groups', 'create', 'reviewers', '--description', 'Reviews', '--member', 'mia@example.com', '--member', 'leo@example.com'],
      ['groups', 'members', 'devs', '--add', 'mia@example.com', '--remove', 'max@example.com', '--yes'],
      ['groups', 'update', 'devs', '--description', 'Developers, all of them'],
      ['groups', 'deactivate', 'old-team', '--yes'],
      ['channels', 'create', 'design', '--description', 'Design reviews', '--user', 'max@example.com'],
      ['channels', 'create', 'leadership', '--privacy', 'private', '--user', 'ada@example.com'],
      ['channels', 'subscribe', '--channel', 'engineering', '--user', 'leo@example.com'],
      ['channels', 'unsubscribe', '--channel', 'engineering', '--user', 'mia@example.com', '--yes'],
      ['channels', 'rename', 'engineering', 'eng'],
      ['channels', 'update', 'eng', '--description', 'Build things, better'],
      ['channels', 'update', 'general', '--description', 'Said on the copy'],
      ['channels', 'archive', 'old-project', '--yes'],
      ['linkifiers', 'add', 'PR(?P<id>[0-9]+)', 'https://git.example/pr/{id}'],
      ['linkifiers', 'add', 'T(?P<id>[0-9]+)', 'https://tickets.example/{id}'],
      ['domains', 'add', 'example.org'],
      ['users', 'update', 'max@example.com', '--role', 'moderator'],
      ['users', 'update', 'mia@example.com', '--name', 'Mia Renamed'],
      ['users', 'deactivate', 'zoe@example.com', '--yes'],
      ['server', 'update', '--description', 'Rehearsed first'],
      ['folders', 'create', 'Engineering', '--description', 'Engineering channels'],
      ['channels', 'update', 'design', '--folder', 'Engineering'],
    ];
    for (const argv of script) {
      const r = await cli('--profile', 'copy', ...argv);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
    }
    // Production moves on meanwhile: the same channel's description (a conflict), and a member the copy never had.
    const prod = await clientFor(org, 'http');
    const general = (await exportOf('prod')).channels.find((c) => c.name === 'general')!;
    await prod.call(updateStream, { stream_id: Number(general.id), description: 'Said on production' });
    await prod.call(subscribe, { subscriptions: [{ name: 'engineering' }], principals: [people.zoe!.id] });

    const planFile = join(tmpdir(), `rehearsal-${process.pid}-${Date.now()}.json`);
    const plan = await cli('org', 'plan', '--desired', dir, '--against', 'prod', '--out', planFile);
    expect(plan.code, plan.stderr).toBe(EXIT.pending);
    expect(plan.stdout).toContain('! channels/general');
    expect(plan.stdout).toContain('conflict: description changed on production since the mirror');
    expect(plan.stdout).toContain('+ channels/design');
    expect(plan.stdout).toMatch(/→ channels\/engineering \(id \d+\) → eng/);
    const saved = JSON.parse(readFileSync(planFile, 'utf8')) as { changes: { address: string; action: string; after: Obj | null }[] };
    expect(saved.changes.filter((c) => c.action === 'conflict').map((c) => c.address)).toEqual(['channels/general']);
    // Production's own member of engineering is no change of the copy's: nothing removes it.
    expect(saved.changes.some((c) => c.action === 'remove' && JSON.stringify(c).includes('zoe@example.com') && c.address.includes('engineering'))).toBe(false);

    const apply = await cli('--profile', 'prod', 'org', 'apply', '--plan', planFile, '--prune', 'all', '--max-removals', '100', '--yes', '--json');
    // The conflict is refused (exit 3: a row failed); everything else is made.
    expect(apply.code, apply.stderr).toBe(EXIT.partial);
    const rows = jsonLines(apply.stdout) as Obj[];
    expect(rows.filter((r) => r.ok !== true)).toEqual([expect.objectContaining({ target: 'channels/general', status: 'conflict' })]);

    const [prodNow, copyNow] = [await exportOf('prod'), await exportOf('copy')];
    // The rename kept the channel's ID on both sides.
    expect(prodNow.channels.find((c) => c.name === 'eng')!.id).toBe(copyNow.channels.find((c) => c.name === 'eng')!.id);
    const [original, copy] = [comparable(prodNow), comparable(copyNow)];
    // What differs is what production did: its description of general, and Zoe in eng (deactivated by the script, so not listed).
    const fix = (d: Doc) => ({ ...d, channels: d.channels.map((c) => (c.name === 'general' ? { ...c, description: 'Said on production' } : c)) });
    expect(original).toEqual(fix(copy));
    expect(original.channels.find((c) => c.name === 'general')).toMatchObject({ description: 'Said on production' });

    // Planned again: only the conflict is left.
    const after = await cli('org', 'plan', '--desired', dir, '--against', 'prod', '--format', 'json');
    expect(after.code, after.stderr).toBe(EXIT.pending);
    expect((JSON.parse(after.stdout) as { changes: { action: string }[] }).changes.map((c) => c.action)).toEqual(['conflict']);
  });
});

describe.each([263, 421])('org mirror of a remote stand-in at feature level %i', (level) => {
  let org: TestOrg;
  let env: Record<string, string>;
  const cli = (...argv: string[]) => runCli(argv, { env });
  beforeAll(async () => {
    org = createTestOrg();
    org.addUser({ email: 'max@example.com' });
    setFeatureLevel(org.db, level);
    env = homeWithProd(await org.http(), org.owner);
  });
  afterAll(() => org.close());

  it('gives a copy at that level, which chatctl talks to as it would to a server of that level', async () => {
    const dir = newDir();
    const r = await cli('org', 'mirror', '--from', 'prod', '--to', dir, '--profile-name', 'copy');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`(feature level ${level})`);
    const settings = await cli('--profile', 'copy', 'server', 'settings', '--json');
    expect(JSON.parse(settings.stdout)).toMatchObject({ zulip_feature_level: level });
    // /channels/create came at 417: a 263 copy is sent the subscription that creates a channel, as a 263 server is.
    const create = await cli('--profile', 'copy', '--verbose', 'channels', 'create', 'made-on-the-copy', '--user', 'max@example.com');
    expect(create.code, create.stderr).toBe(0);
    expect(create.stderr).toContain(level < 417 ? '> POST /users/me/subscriptions' : '> POST /channels/create');
    // Channel folders came at 389: refused before anything is sent, naming what is missing.
    const folder = await cli('--profile', 'copy', 'folders', 'create', 'Engineering');
    if (level < 389) {
      expect(folder.code).toBe(EXIT.failure);
      expect(folder.stderr).toMatch(/needs feature level ≥ 389 \(server has 263\)/);
    } else expect(folder.code, folder.stderr).toBe(0);
    // The copy's creation is all the three-way plan proposes.
    const plan = await cli('org', 'plan', '--desired', dir, '--format', 'json');
    expect(plan.code, plan.stderr).toBe(EXIT.pending);
    const changes = (JSON.parse(plan.stdout) as { changes: { address: string; action: string }[] }).changes;
    expect(changes.filter((c) => c.action === 'create').map((c) => c.address)).toEqual(
      level < 389 ? ['channels/made-on-the-copy'] : ['folders/Engineering', 'channels/made-on-the-copy'],
    );
  });
});

describe('org plan three ways: usage', () => {
  it.each([
    [['org', 'plan', '-f', 'org.yaml', '--desired', 'copy'], 'give one of -f FILE or --desired DIR'],
    [['org', 'plan'], 'give one of -f FILE or --desired DIR'],
    [['org', 'plan', '-f', 'org.yaml', '--against', 'prod'], '--against goes with --desired DIR'],
    [['org', 'mirror', '--to', 'copy'], '--from PROFILE is required'],
    [['org', 'rehearse', '--from', 'prod'], 'missing required argument'],
  ])('%j is a usage error', async (argv, message) => expectUsageError(argv, message));
});
