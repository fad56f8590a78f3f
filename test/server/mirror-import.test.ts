import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthHeader } from '../../src/api/wire.js';
import { addRealmDomain, getRealmDomains } from '../../src/api/operations/domains.js';
import { deleteQueue, register } from '../../src/api/operations/events.js';
import { createChannelFolder, getChannelFolders } from '../../src/api/operations/folders.js';
import { createUserGroup, deactivateUserGroup, getUserGroups } from '../../src/api/operations/groups.js';
import { addLinkifier, getLinkifiers, reorderLinkifiers } from '../../src/api/operations/linkifiers.js';
import { createCustomProfileField, getCustomProfileFields } from '../../src/api/operations/profile-fields.js';
import { addDefaultStream, createChannel, getStreams, getSubscribers } from '../../src/api/operations/channels.js';
import { updateRealm } from '../../src/api/operations/server.js';
import { createUser, getUsers, updateUser } from '../../src/api/operations/users.js';
import type { WireRequest } from '../../src/api/wire.js';
import { ChatClient } from '../../src/client/client.js';
import { ROLE } from '../../src/api/roles.js';
import { EmbeddedTransport } from '../../src/client/embedded.js';
import { EmbeddedOrganization, type MirrorOutcome, NotEmptyError, type OrganizationSnapshot, SnapshotError } from '../../src/server/embedded.js';
import { setFeatureLevel } from '../../src/server/feature-level.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor } from '../helpers/transports.js';

const FETCH = [
  'realm',
  'realm_user',
  'realm_domains',
  'realm_linkifiers',
  'custom_profile_fields',
  'realm_user_groups',
  'default_streams',
  'stream',
  'channel_folders',
];

/** The snapshot a client builds from a server's own answers, as `org mirror` reads them. */
async function snapshotOf(client: ChatClient): Promise<OrganizationSnapshot> {
  const state = await client.call(register, {
    fetch_event_types: FETCH,
    event_types: FETCH,
    client_capabilities: { linkifier_url_template: true, include_deactivated_groups: true },
  });
  if (typeof state.queue_id === 'string') await client.call(deleteQueue, { queue_id: state.queue_id });
  const { members: users } = await client.call(getUsers, { include_custom_profile_fields: true });
  const { user_groups: groups } = await client.call(getUserGroups, { include_deactivated_groups: true });
  const members: Record<string, number[]> = {};
  const channels = Array.isArray(state.streams) ? state.streams : [];
  for (const c of channels) {
    const id = (c as { stream_id: number }).stream_id;
    members[String(id)] = (await client.call(getSubscribers, { stream_id: id })).subscribers;
  }
  return { register: state, users, groups, members };
}

/** What a copy must equal the original in, read the same way from both. */
async function configurationOf(client: ChatClient) {
  // No message is copied: the copy's channels have no first message (Notification Bot's announcements stay behind).
  const streams = (await client.call(getStreams, { include_all: true, include_default: true })).streams.map(
    ({ subscriber_count: _count, first_message_id: _first, ...c }) => c,
  );
  const members: Record<string, number[]> = {};
  for (const c of streams) members[String(c.stream_id)] = (await client.call(getSubscribers, { stream_id: c.stream_id })).subscribers;
  const realm = await client.call(register, { fetch_event_types: ['realm'], event_types: ['realm'] });
  const { queue_id, last_event_id: _l, realm_url: _u, realm_uri: _uri, realm_icon_url: _i, realm_logo_url: _lo, realm_night_logo_url: _n, ...settings } = realm;
  if (typeof queue_id === 'string') await client.call(deleteQueue, { queue_id });
  return {
    users: (await client.call(getUsers, { include_custom_profile_fields: true })).members,
    groups: (await client.call(getUserGroups, { include_deactivated_groups: true })).user_groups,
    streams,
    members,
    linkifiers: (await client.call(getLinkifiers, {})).linkifiers,
    domains: (await client.call(getRealmDomains, {})).domains,
    fields: (await client.call(getCustomProfileFields, {})).custom_fields,
    folders: (await client.call(getChannelFolders, { include_archived: true })).channel_folders,
    settings,
  };
}

const newDataDir = () => mkdtempSync(join(tmpdir(), 'chatctl-mirror-'));
const get = (path: string, auth: string): WireRequest => ({ method: 'GET', path, headers: { authorization: auth }, query: [], body: [] });

describe('a mirror of a populated organization', () => {
  let source: TestOrg;
  let owner: ChatClient;
  let snapshot: OrganizationSnapshot;
  let dataDir: string;
  let copy: EmbeddedOrganization;
  let copyOwner: ChatClient;
  const sourceKeys: { email: string; apiKey: string }[] = [];

  beforeAll(async () => {
    source = createTestOrg();
    owner = await clientFor(source, 'embedded');
    const admin = source.addUser({ role: 200, name: 'Ada Admin' });
    const moderator = source.addUser({ role: 300 });
    const guest = source.addUser({ role: 600 });
    const member = source.addUser({ name: 'Max Member' });
    source.addUser({ active: false });
    const bot = source.addUser({ bot: { type: 1, ownerId: member.id } });
    sourceKeys.push(admin, member, bot, source.owner);
    await owner.call(addRealmDomain, { domain: 'example.com', allow_subdomains: true });
    const l1 = await owner.call(addLinkifier, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' });
    const l2 = await owner.call(addLinkifier, { pattern: 'PR(?P<id>[0-9]+)', url_template: 'https://git.example/pr/{id}' });
    await owner.call(reorderLinkifiers, { ordered_linkifier_ids: [l2.id, l1.id] });
    const team = await owner.call(createCustomProfileField, { name: 'Team', field_type: 1 });
    const site = await owner.call(createCustomProfileField, {
      name: 'Site',
      field_type: 3,
      field_data: { north: { text: 'North', order: '1' }, south: { text: 'South', order: '2' } },
    });
    await owner.call(updateUser, {
      user_id: member.id,
      profile_data: [
        { id: team.id, value: 'Platform' },
        { id: site.id, value: 'south' },
      ],
    });
    const folder = await owner.call(createChannelFolder, { name: 'Engineering', description: 'Where we build' });
    const devs = await owner.call(createUserGroup, { name: 'devs', description: 'Developers', members: [member.id, admin.id] });
    await owner.call(createUserGroup, {
      name: 'leads',
      description: 'Leads',
      members: [admin.id],
      subgroups: [devs.group_id],
      can_mention_group: { direct_members: [moderator.id], direct_subgroups: [devs.group_id] },
    });
    const old = await owner.call(createUserGroup, { name: 'old', description: 'Gone', members: [] });
    await owner.call(deactivateUserGroup, { user_group_id: old.group_id });
    const eng = await owner.call(createChannel, {
      name: 'engineering',
      description: 'Build things',
      subscribers: [member.id, admin.id, bot.id],
      folder_id: folder.channel_folder_id,
    });
    await owner.call(createChannel, { name: 'secret', subscribers: [admin.id, guest.id], invite_only: true, history_public_to_subscribers: false });
    await owner.call(addDefaultStream, { stream_id: eng.id });
    await owner.call(updateRealm, {
      waiting_period_threshold: 3,
      can_move_messages_between_topics_group: { new: devs.group_id },
      signup_announcements_stream_id: eng.id,
    });
    snapshot = await snapshotOf(owner);

    dataDir = newDataDir();
    copy = EmbeddedOrganization.open(dataDir);
  });
  afterAll(async () => {
    await copy.close();
    await source.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('makes an organization equal to the original, IDs included, whose operator gets a new key that works', async () => {
    const outcome = copy.mirror(snapshot, { operatorEmail: 'owner@example.com', now: 1_770_000_000 });
    expect(outcome.operator).toMatchObject({ id: source.owner.id, email: 'owner@example.com' });
    expect(outcome.operator.apiKey).not.toBe(source.owner.apiKey);
    expect(copy.initialized).toBe(true);
    copyOwner = new ChatClient(new EmbeddedTransport(copy, dataDir), { email: outcome.operator.email, apiKey: outcome.operator.apiKey });
    const [original, copied] = [await configurationOf(owner), await configurationOf(copyOwner)];
    expect(copied.users).toEqual(original.users);
    expect(copied.groups).toEqual(original.groups);
    expect(copied.streams).toEqual(original.streams);
    expect(copied.members).toEqual(original.members);
    expect(copied.linkifiers).toEqual(original.linkifiers);
    expect(copied.domains).toEqual(original.domains);
    expect(copied.fields).toEqual(original.fields);
    expect(copied.folders).toEqual(original.folders);
    expect(copied.settings).toEqual(original.settings);
    // Something to compare: the original is populated.
    expect(original.users.length).toBeGreaterThan(6);
    expect(original.groups.some((g) => g.name === 'leads' && g.direct_subgroup_ids.length === 1)).toBe(true);
    expect(original.members[String(original.streams.find((c) => c.name === 'engineering')!.stream_id)]).toHaveLength(3);
  });

  it('gives no copied key access, and is stock: its owner cannot create users', async () => {
    for (const user of sourceKeys) {
      const answer = await copy.handle(get('/users/me', basicAuthHeader(user.email, user.apiKey)));
      expect(answer.status).toBe(401);
    }
    const refused = await copyOwner
      .call(createUser, { email: 'new@example.com', password: 'a-long-password-1', full_name: 'New Person' })
      .catch((e: unknown) => e);
    expect(String(refused)).toContain('User not authorized to create users');
  });

  it('gives new objects new IDs, after every copied one', async () => {
    const { members } = await copyOwner.call(getUsers, {});
    const groups = (await copyOwner.call(getUserGroups, { include_deactivated_groups: true })).user_groups;
    const streams = (await copyOwner.call(getStreams, { include_all: true })).streams;
    const channel = await copyOwner.call(createChannel, { name: 'brand-new', subscribers: [] });
    expect(channel.id).toBeGreaterThan(Math.max(...streams.map((c) => c.stream_id)));
    const group = await copyOwner.call(createUserGroup, { name: 'brand-new', description: '', members: [] });
    expect(group.group_id).toBeGreaterThan(Math.max(...groups.map((g) => g.id)));
    const folders = (await copyOwner.call(getChannelFolders, { include_archived: true })).channel_folders;
    const folder = await copyOwner.call(createChannelFolder, { name: 'Brand new', description: '' });
    expect(folder.channel_folder_id).toBeGreaterThan(Math.max(...folders.map((f) => f.id)));
    const sourceUsers = (await owner.call(getUsers, {})).members;
    expect(members.map((u) => u.user_id).sort()).toEqual(sourceUsers.map((u) => u.user_id).sort());
  });

  it('refuses a data dir that already holds an organization, and a snapshot without the operator', async () => {
    expect(() => copy.mirror(snapshot, { operatorEmail: 'owner@example.com', now: 1 })).toThrow(NotEmptyError);
    const other = EmbeddedOrganization.open(newDataDir());
    try {
      expect(() => other.mirror(snapshot, { operatorEmail: 'nobody@example.com', now: 1 })).toThrow(SnapshotError);
      expect(other.initialized).toBe(false);
    } finally {
      await other.close();
      rmSync(other.dataDir, { recursive: true, force: true });
    }
  });
});

describe('a mirror of an organization at another level', () => {
  it("answers at the snapshot's level, and moves the system bots out of the way of the organization's IDs", async () => {
    const source = createTestOrg();
    const dataDir = newDataDir();
    const copy = EmbeddedOrganization.open(dataDir);
    try {
      setFeatureLevel(source.db, 263);
      const snap = await snapshotOf(await clientFor(source, 'embedded'));
      expect(snap.register.zulip_feature_level).toBe(263);
      // A real server numbers its accounts its own way: here the owner holds ID 1, where a new data dir has Notification Bot.
      const ownerId = source.owner.id;
      const renumber = (id: number) => (id === ownerId ? 1 : id);
      const users = snap.users.map((u) => ({ ...u, user_id: renumber(u.user_id) }));
      const copied = copy.mirror({ ...snap, users, register: { ...snap.register, cross_realm_bots: [] } }, { operatorEmail: 'owner@example.com', now: 1 });
      expect(copied.featureLevel).toBe(263);
      expect(copied.operator.id).toBe(1);
      // The one in the way goes after every ID in use (the accounts' and the bots'); the others keep theirs.
      expect(copied.systemBots).toEqual({
        'notification-bot@zulip.com': 4,
        'welcome-bot@zulip.com': 2,
        'emailgateway@zulip.com': 3,
      });
      const auth = basicAuthHeader(copied.operator.email, copied.operator.apiKey);
      expect((await copy.handle(get('/server_settings', auth))).body).toMatchObject({ zulip_feature_level: 263 });
      const me = await copy.handle(get('/users/me', auth));
      expect(me.body).toMatchObject({ user_id: 1, email: 'owner@example.com' });
      const absent = await copy.handle({
        method: 'POST',
        path: '/channels/create',
        headers: { authorization: auth },
        query: [],
        body: [
          ['name', 'x'],
          ['subscribers', '[]'],
        ],
      });
      expect(absent.status).toBe(404);
    } finally {
      await copy.close();
      await source.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/**
 * Runs a mirror as `chatctl org mirror` runs it: on a main thread's stack (Node's default, under 1 MB), not on
 * the 4 MB of the worker a test runs in. The embedded server is bundled for a worker of that stack.
 */
async function mirrorOnMainThreadStack(snapshot: OrganizationSnapshot, dataDir: string): Promise<MirrorOutcome | string> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const bundle = buildSync({
    entryPoints: [join(root, 'src/server/embedded.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    packages: 'external',
    write: false,
    logLevel: 'error',
    // Packages resolve from the project, wherever the bundle is written.
    banner: { js: `var require = require('node:module').createRequire(${JSON.stringify(join(root, 'package.json'))});` },
  });
  const file = join(dataDir, '..', `embedded-${process.pid}.cjs`);
  writeFileSync(file, bundle.outputFiles[0]!.text);
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { EmbeddedOrganization } = require(workerData.file);
    const copy = EmbeddedOrganization.open(workerData.dataDir);
    try {
      parentPort.postMessage(copy.mirror(workerData.snapshot, { operatorEmail: 'owner@example.com', now: 1 }));
    } catch (e) {
      parentPort.postMessage(String(e));
    } finally {
      copy.close();
    }`;
  const worker = new Worker(code, { eval: true, workerData: { file, dataDir, snapshot }, resourceLimits: { stackSizeMb: 0.95 } });
  try {
    return await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
    rmSync(file, { force: true });
  }
}

describe('a mirror of a very large organization', () => {
  it('copies 130,000 accounts, more than a call takes as arguments, and still moves the system bots after them', async () => {
    const source = createTestOrg();
    const work = newDataDir();
    try {
      const snap = await snapshotOf(await clientFor(source, 'embedded'));
      const owner = snap.users.find((u) => u.user_id === source.owner.id)!;
      const first = Math.max(...snap.users.map((u) => u.user_id)) + 1;
      const many = Array.from({ length: 130_000 }, (_, i) => ({
        ...owner,
        user_id: first + i,
        email: `user${i}@example.com`,
        delivery_email: `user${i}@example.com`,
        full_name: `User ${i}`,
        role: ROLE.member,
      }));
      // The real server's Notification Bot holds an ID the copy's accounts take.
      const register = { ...snap.register, cross_realm_bots: [{ email: 'notification-bot@zulip.com', user_id: first }] };
      const copied = await mirrorOnMainThreadStack({ ...snap, users: [...snap.users, ...many], register }, join(work, 'data'));
      expect(typeof copied === 'string' ? copied : copied.counts.users).toBe(snap.users.length + many.length);
      expect(typeof copied !== 'string' && copied.systemBots['notification-bot@zulip.com']).toBeGreaterThan(first + many.length - 1);
    } finally {
      await source.close();
      rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);
});
