/**
 * `serve` keeps users' and messages' wire forms with their JSON across requests and writes
 * (model/rendered-cache.ts) and gives one again while nothing it was made of changed (store/changes.ts: the
 * log SQLite triggers write). Only answers written as JSON over HTTP use them, so every read here goes over
 * HTTP to a serve-style server on 127.0.0.1 and is compared byte for byte with the same request answered
 * in-process, where nothing kept is used. Each case reads before a change, so that renderings are kept, and
 * after it: the answer must show the change.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe, updateStream } from '../../src/api/operations/channels.js';
import { addLinkifier } from '../../src/api/operations/linkifiers.js';
import { sendMessage, updateMessage, updateMessageFlags, type FetchedMessage } from '../../src/api/operations/messages.js';
import { createCustomProfileField, deleteCustomProfileField } from '../../src/api/operations/profile-fields.js';
import { addReaction, removeReaction } from '../../src/api/operations/reactions.js';
import { createUser, deactivateUser, updateUser } from '../../src/api/operations/users.js';
import type { User } from '../../src/api/types.js';
import { basicAuthHeader } from '../../src/api/wire.js';
import type { ChatClient } from '../../src/client/client.js';
import { getSetting, setSetting } from '../../src/server/model/realm.js';
import { KEPT_USERS } from '../../src/server/model/kept-user-pages.js';
import { seedUsers } from '../../src/server/model/bulk-seed.js';
import { USER_PAGE, USER_VIEW_COLUMNS } from '../../src/server/model/user-view.js';
import { insertUser } from '../../src/server/model/users.js';
import { CHANGE_LOG_LIMITS } from '../../src/server/store/changes.js';
import { newStream, ownerChannel } from '../helpers/channels.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, transportFor } from '../helpers/transports.js';
import { SRC, sourceFiles } from '../architecture/sources.js';

type Params = Record<string, unknown>;
type Users = { members: User[] };
type Messages = { messages: FetchedMessage[] };

/**
 * Changes the log keeps at most (migration 17, trigger changes_pruned: the newest 10,000, pruned at every
 * thousandth): a reader further behind starts afresh.
 */
const LOG_KEPT = 11_000;

/** A serve-style HTTP server over a new organization, with reads over it. */
function servedOrg() {
  const org = createTestOrg();
  const site = org.http();
  const basic = (user: TestUser) => basicAuthHeader(user.email, user.apiKey);
  // Parameters as a client sends them: strings as they are, anything else as JSON.
  const wire = (params: Params) => Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]);

  /** The body of a GET of `path` over HTTP as `viewer`, as it came. */
  async function overHttp(viewer: TestUser, path: string, params: Params = {}): Promise<string> {
    const res = await fetch(`${await site}/api/v1${path}?${new URLSearchParams(wire(params))}`, { headers: { authorization: basic(viewer) } });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return text;
  }

  /** The same request answered in-process (the embedded transport) and encoded by JSON.stringify. */
  async function inProcess(viewer: TestUser, path: string, params: Params = {}): Promise<string> {
    const host = new URL(await site).host;
    // The realm URL of the HTTP request (its host), under another key of the answer cache (a forwarded scheme):
    // this answer is made anew, never given back from the HTTP one.
    const headers = { authorization: basic(viewer), host, 'x-forwarded-proto': 'http' };
    const res = await (await transportFor(org, 'embedded')).send({ method: 'GET', path, query: wire(params), body: [], headers });
    expect(res.status).toBe(200);
    return JSON.stringify(res.body);
  }

  /** A GET that may fail, over HTTP and in-process: the status and body of each. */
  async function bothWays(viewer: TestUser, path: string, params: Params = {}): Promise<{ http: [number, string]; local: [number, string] }> {
    const res = await fetch(`${await site}/api/v1${path}?${new URLSearchParams(wire(params))}`, { headers: { authorization: basic(viewer) } });
    const host = new URL(await site).host;
    const headers = { authorization: basic(viewer), host, 'x-forwarded-proto': 'http' };
    const local = await (await transportFor(org, 'embedded')).send({ method: 'GET', path, query: wire(params), body: [], headers });
    return { http: [res.status, await res.text()], local: [local.status, JSON.stringify(local.body)] };
  }

  /** GET over HTTP, byte for byte the in-process answer (`result`, `msg` and all) and valid against the OpenAPI description. */
  async function read<T>(viewer: TestUser, path: string, params: Params = {}): Promise<T> {
    const text = await overHttp(viewer, path, params);
    expect(text).toBe(await inProcess(viewer, path, params));
    const body = JSON.parse(text) as T;
    expect(openapiErrors('get', path, 200, body)).toEqual([]);
    return body;
  }
  return { org, read, overHttp, inProcess, bothWays, as: (user: TestUser): Promise<ChatClient> => clientFor(org, 'embedded', user) };
}

const channelNarrow = (id: number) => [{ operator: 'channel', operand: id }];
const newestIn = (channelId: number, params: Params = {}): Params => ({
  anchor: 'newest',
  num_before: 20,
  num_after: 0,
  narrow: channelNarrow(channelId),
  ...params,
});
const gravatar = expect.stringMatching(/^https:\/\/secure\.gravatar\.com\/avatar\//);

describe('GET /users from kept renderings', () => {
  const { org, read, as } = servedOrg();
  let owner: ChatClient;
  let member: TestUser;
  let field: number;
  beforeAll(async () => {
    owner = await as(org.owner);
    member = org.addUser({ name: 'Mia Member' });
    org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
    field = (await owner.call(createCustomProfileField, { name: 'Pronouns', field_type: 1 })).id;
  });
  afterAll(() => org.close());

  const QUERIES: Params[] = [{}, { client_gravatar: true, include_custom_profile_fields: true }, { client_gravatar: false }];
  /** Answers `seen` gives: two viewers, QUERIES and a `user_ids` query each. */
  const SEEN = 2 * (QUERIES.length + 1);

  /** User `id` as the owner and a member see them in GET /users, in each of QUERIES and asked for by ID. */
  async function seen(id: number): Promise<{ admin: boolean; query: Params; user: User }[]> {
    const out: { admin: boolean; query: Params; user: User }[] = [];
    for (const viewer of [org.owner, member]) {
      for (const query of [...QUERIES, { user_ids: [id] }]) {
        // Twice: a page made whole is kept the second time it is (model/kept-user-pages.ts), so that what a case
        // reads after its change is what was kept, with the change put in.
        const once = await read<Users>(viewer, '/users', query);
        expect(await read<Users>(viewer, '/users', query)).toEqual(once);
        const user = once.members.find((u) => u.user_id === id);
        expect(user).toBeDefined();
        out.push({ admin: viewer === org.owner, query, user: user! });
      }
    }
    return out;
  }

  it('shows a renamed user with the new name', async () => {
    const target = org.addUser({ name: 'Tess Target' });
    expect((await seen(target.id)).map((s) => s.user.full_name)).toEqual(Array(SEEN).fill('Tess Target'));
    await owner.call(updateUser, { user_id: target.id, full_name: 'Tess Renamed' });
    expect((await seen(target.id)).map((s) => s.user.full_name)).toEqual(Array(SEEN).fill('Tess Renamed'));
  });

  it("shows a role change, and the addresses the promoted user may now see of others'", async () => {
    const target = org.addUser();
    const other = org.addUser();
    setSetting(org.db, 'email_address_visibility', 3);
    try {
      expect((await seen(target.id)).map((s) => [s.user.role, s.user.is_admin])).toEqual(Array(SEEN).fill([400, false]));
      const targetSees = async () => (await read<Users>(target, '/users')).members.find((u) => u.user_id === other.id)!.delivery_email;
      expect(await targetSees()).toBeNull();
      await owner.call(updateUser, { user_id: target.id, role: 200 });
      expect((await seen(target.id)).map((s) => [s.user.role, s.user.is_admin])).toEqual(Array(SEEN).fill([200, true]));
      expect(await targetSees()).toBe(other.email);
    } finally {
      setSetting(org.db, 'email_address_visibility', 1);
    }
  });

  it('shows a profile value once set, and none once its field is deleted', async () => {
    const target = org.addUser();
    const profiles = async () => (await seen(target.id)).filter((s) => s.query.include_custom_profile_fields === true).map((s) => s.user.profile_data);
    expect(await profiles()).toEqual([{}, {}]);
    await owner.call(updateUser, { user_id: target.id, profile_data: [{ id: field, value: 'they/them' }] });
    expect(await profiles()).toEqual(Array(2).fill({ [field]: { value: 'they/them', rendered_value: '<p>they/them</p>' } }));
    // A value set again is an update of its row.
    await owner.call(updateUser, { user_id: target.id, profile_data: [{ id: field, value: 'she/her' }] });
    expect(await profiles()).toEqual(Array(2).fill({ [field]: { value: 'she/her', rendered_value: '<p>she/her</p>' } }));
    await owner.call(deleteCustomProfileField, { field_id: field });
    expect(await profiles()).toEqual([{}, {}]);
  });

  it('shows addresses and avatars as a new email_address_visibility allows', async () => {
    const target = org.addUser();
    const placeholder = `user${target.id}@${getSetting(org.db, 'bot_domain')}`;
    const everyone = await seen(target.id);
    for (const { query, user } of everyone) {
      expect(user).toMatchObject({ email: target.email, delivery_email: target.email });
      expect(user.avatar_url).toEqual(query.client_gravatar === false ? gravatar : null);
    }
    setSetting(org.db, 'email_address_visibility', 3);
    try {
      for (const { admin, query, user } of await seen(target.id)) {
        expect(user).toMatchObject({ email: placeholder, delivery_email: admin ? target.email : null });
        // Left to the client only where the caller may see the address a Gravatar is computed from.
        expect(user.avatar_url).toEqual(query.client_gravatar !== false && admin ? null : gravatar);
      }
      // The caller's own address stays theirs to see.
      const self = (await read<Users>(member, '/users')).members.find((u) => u.user_id === member.id);
      expect(self).toMatchObject({ delivery_email: member.email, avatar_url: null });
    } finally {
      setSetting(org.db, 'email_address_visibility', 1);
    }
    expect(await seen(target.id)).toEqual(everyone);
  });

  it('shows a deactivated user as inactive', async () => {
    const target = org.addUser();
    expect((await seen(target.id)).map((s) => s.user.is_active)).toEqual(Array(SEEN).fill(true));
    await owner.call(deactivateUser, { user_id: target.id });
    expect((await seen(target.id)).map((s) => s.user.is_active)).toEqual(Array(SEEN).fill(false));
  });

  it('shows changes another connection to the same store made: the triggers log them', async () => {
    const target = org.addUser({ name: 'Before Elsewhere' });
    const bio = (await owner.call(createCustomProfileField, { name: 'Bio', field_type: 2 })).id;
    await seen(target.id);
    const other = org.otherConnection();
    other.prepare('UPDATE users SET full_name = ?, timezone = ? WHERE id = ?').run('Changed Elsewhere', 'Europe/Paris', target.id);
    other.prepare('INSERT INTO profile_values (user_id, field_id, value) VALUES (?, ?, ?)').run(target.id, bio, 'set elsewhere');
    const after = await seen(target.id);
    expect(after.map((s) => [s.user.full_name, s.user.timezone])).toEqual(Array(SEEN).fill(['Changed Elsewhere', 'Europe/Paris']));
    expect(after.filter((s) => s.query.include_custom_profile_fields === true).map((s) => s.user.profile_data)).toEqual(
      Array(2).fill({ [bio]: { value: 'set elsewhere' } }),
    );
  });

  it("gives each member their own address in a list kept for all of them, as theirs and others' rows change", async () => {
    const [ann, bob] = [org.addUser({ name: 'Ann Alike' }), org.addUser({ name: 'Bob Alike' })];
    const policy = getSetting(org.db, 'email_address_visibility');
    setSetting(org.db, 'email_address_visibility', 3);
    try {
      /** Who `viewer` sees with an address, and Ann's and Bob's names as they see them. */
      const view = async (viewer: TestUser) => {
        const { members } = await read<Users>(viewer, '/users');
        const name = (u: TestUser) => members.find((m) => m.user_id === u.id)!.full_name;
        // A bot's address shows to everyone.
        const addressed = members.filter((m) => m.delivery_email !== null && !m.is_bot).map((m) => m.user_id);
        return { addressed, names: [name(ann), name(bob)] };
      };
      for (const round of [0, 1]) {
        // Read in turns, so that one kept page serves both, each with their own entry put in.
        expect(await view(ann)).toEqual({ addressed: [ann.id], names: [round ? 'Ann Again' : 'Ann Alike', round ? 'Bob Again' : 'Bob Alike'] });
        expect(await view(bob)).toEqual({ addressed: [bob.id], names: [round ? 'Ann Again' : 'Ann Alike', round ? 'Bob Again' : 'Bob Alike'] });
        await owner.call(updateUser, { user_id: ann.id, full_name: 'Ann Again' });
        await owner.call(updateUser, { user_id: bob.id, full_name: 'Bob Again' });
      }
    } finally {
      setSetting(org.db, 'email_address_visibility', policy);
    }
  });

  it('lists users who joined after the list was read, through the API or another connection', async () => {
    const ids = async () => (await read<Users>(member, '/users')).members.map((u) => u.user_id);
    const before = await ids();
    const { user_id: joined } = await owner.call(createUser, { email: 'joiner@example.com', password: 'joiner-password-1', full_name: 'Jo Iner' });
    const other = org.otherConnection();
    const elsewhere = insertUser(other, { email: 'elsewhere@example.com', full_name: 'Else Where' }, Math.floor(Date.now() / 1000)).id;
    expect(await ids()).toEqual([...before, joined, elsewhere]);
  });
});

describe('GET /users of more users than are kept', () => {
  const { org, read } = servedOrg();
  let ids: number[];
  let reader: TestUser;
  beforeAll(() => {
    // Past the kept users by a page and a half: the rest are rendered as in-process, page by page.
    const count = KEPT_USERS + Math.floor(1.5 * USER_PAGE);
    ids = org.db.transaction(() =>
      seedUsers(
        org.db,
        Array.from({ length: count }, (_, i) => ({ email: `many${i}@example.com`, full_name: `Many ${i}`, role: 400 })),
        Math.floor(Date.now() / 1000),
      ),
    )();
    // A member past the kept part: their own entry, with their address, comes from the pages rendered anew.
    reader = org.addUser();
  });
  afterAll(() => org.close());

  it("lists every user the same on each read, changes and the caller's own address shown on both sides of the kept part", async () => {
    const early = ids[10]!;
    const late = ids.at(-10)!;
    setSetting(org.db, 'email_address_visibility', 3);
    try {
      for (const round of [0, 1, 2]) {
        const members = (await read<Users>(reader, '/users')).members;
        expect(members.map((u) => u.user_id)).toEqual([org.owner.id, ...ids, reader.id]);
        expect(members.map((u) => u.full_name).filter((n) => n.startsWith('Renamed'))).toEqual(
          round ? [`Renamed ${round} early`, `Renamed ${round} late`] : [],
        );
        expect(members.filter((u) => u.delivery_email !== null).map((u) => u.user_id)).toEqual([reader.id]);
        org.db.prepare('UPDATE users SET full_name = ? WHERE id = ?').run(`Renamed ${round + 1} early`, early);
        org.db.prepare('UPDATE users SET full_name = ? WHERE id = ?').run(`Renamed ${round + 1} late`, late);
      }
    } finally {
      setSetting(org.db, 'email_address_visibility', 1);
    }
  });
});

describe('GET /messages from kept renderings', () => {
  const { org, read, bothWays, as } = servedOrg();
  let owner: ChatClient;
  let member: TestUser;
  let channel: { id: number; name: string };
  beforeAll(async () => {
    owner = await as(org.owner);
    member = org.addUser({ name: 'Mia Member' });
    channel = await ownerChannel(org, owner, [member]);
  });
  afterAll(() => org.close());

  const VARIANTS: Params[] = [{}, { client_gravatar: false, apply_markdown: false }];

  /**
   * Message `id` as the owner and a member (or `viewers`) see it among the newest of the channel (or `channelId`)
   * and by its ID, in each of VARIANTS: the owner's answers first.
   */
  async function seen(id: number, o: { viewers?: TestUser[]; channelId?: number } = {}): Promise<FetchedMessage[]> {
    const out: FetchedMessage[] = [];
    for (const viewer of o.viewers ?? [org.owner, member]) {
      for (const variant of VARIANTS) {
        const inChannel = (await read<Messages>(viewer, '/messages', newestIn(o.channelId ?? channel.id, variant))).messages.find((m) => m.id === id);
        const byId = (await read<Messages>(viewer, '/messages', { message_ids: [id], ...variant })).messages;
        expect(byId).toEqual([inChannel]);
        out.push(inChannel!);
      }
    }
    return out;
  }

  const send = async (content: string, topic = 'kept', o: { from?: ChatClient; to?: string } = {}) =>
    (await (o.from ?? owner).call(sendMessage, { type: 'stream', to: o.to ?? channel.name, topic, content })).id;

  it('shows reactions as they are added and removed', async () => {
    const id = await send('react to me');
    const reactor = await as(member);
    expect((await seen(id)).map((m) => m.reactions)).toEqual(Array(4).fill([]));
    await reactor.call(addReaction, { message_id: id, emoji_name: 'octopus' });
    expect((await seen(id)).map((m) => m.reactions.map((r) => [r.emoji_name, r.user_id]))).toEqual(Array(4).fill([['octopus', member.id]]));
    await reactor.call(removeReaction, { message_id: id, emoji_name: 'octopus' });
    expect((await seen(id)).map((m) => m.reactions)).toEqual(Array(4).fill([]));
  });

  it('shows an edit of the content and of the topic', async () => {
    const id = await send('first words', 'old topic');
    await seen(id);
    await owner.call(updateMessage, { message_id: id, content: 'second words' });
    expect((await seen(id)).map((m) => m.content)).toEqual(Array(2).fill(['<p>second words</p>', 'second words']).flat());
    await owner.call(updateMessage, { message_id: id, topic: 'new topic' });
    const retitled = await seen(id);
    expect(retitled.map((m) => m.subject)).toEqual(Array(4).fill('new topic'));
    expect(retitled.map((m) => m.edit_history?.[0])).toEqual(Array(4).fill(expect.objectContaining({ prev_topic: 'old topic', topic: 'new topic' })));
  });

  it('shows a renamed channel in display_recipient', async () => {
    const renamed = await ownerChannel(org, owner, [member]);
    const id = await send('in a channel to rename', 't', { to: renamed.name });
    expect((await seen(id, { channelId: renamed.id })).map((m) => m.display_recipient)).toEqual(Array(4).fill(renamed.name));
    const name = unique('renamed');
    await owner.call(updateStream, { stream_id: renamed.id, new_name: name });
    expect((await seen(id, { channelId: renamed.id })).map((m) => m.display_recipient)).toEqual(Array(4).fill(name));
  });

  it('shows a renamed sender in sender_full_name', async () => {
    const sender = org.addUser({ name: 'Sam Sender' });
    await owner.call(subscribe, { subscriptions: [{ name: channel.name }], principals: [sender.id] });
    const id = await send('from Sam', 'kept', { from: await as(sender) });
    expect((await seen(id)).map((m) => m.sender_full_name)).toEqual(Array(4).fill('Sam Sender'));
    await owner.call(updateUser, { user_id: sender.id, full_name: 'Sam Renamed' });
    expect((await seen(id)).map((m) => m.sender_full_name)).toEqual(Array(4).fill('Sam Renamed'));
  });

  it('shows a renamed participant in the display_recipient of a direct message', async () => {
    const peer = org.addUser({ name: 'Pat Peer' });
    const id = (await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([peer.id]), content: 'just us' })).id;
    const recipients = async () => {
      const out: [number, string][][] = [];
      for (const [viewer, other] of [
        [org.owner, peer],
        [peer, org.owner],
      ] as const) {
        for (const variant of VARIANTS) {
          const narrow = [{ operator: 'dm', operand: [other.id] }];
          const inConversation = (await read<Messages>(viewer, '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow, ...variant })).messages;
          const byId = (await read<Messages>(viewer, '/messages', { message_ids: [id], ...variant })).messages;
          expect(byId).toEqual(inConversation.filter((m) => m.id === id));
          out.push((byId[0]!.display_recipient as { id: number; full_name: string }[]).map((u) => [u.id, u.full_name]));
        }
      }
      return out;
    };
    const named = (peerName: string) =>
      Array(4).fill([
        [org.owner.id, 'Olivia Owner'],
        [peer.id, peerName],
      ]);
    expect(await recipients()).toEqual(named('Pat Peer'));
    await owner.call(updateUser, { user_id: peer.id, full_name: 'Pat Renamed' });
    expect(await recipients()).toEqual(named('Pat Renamed'));
  });

  it('shows topic links once a linkifier matching the topic is added', async () => {
    const id = await send('see the ticket', 'ticket #4321');
    expect((await seen(id)).map((m) => m.topic_links)).toEqual(Array(4).fill([]));
    await owner.call(addLinkifier, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tickets.example.com/{id}' });
    expect((await seen(id)).map((m) => m.topic_links)).toEqual(Array(4).fill([{ text: '#4321', url: 'https://tickets.example.com/4321' }]));
  });

  it('shows edit history only while allow_edit_history is on', async () => {
    const id = await send('to be edited');
    await owner.call(updateMessage, { message_id: id, content: 'edited' });
    expect((await seen(id)).map((m) => m.edit_history?.length)).toEqual(Array(4).fill(1));
    setSetting(org.db, 'allow_edit_history', false);
    try {
      expect((await seen(id)).map((m) => 'edit_history' in m)).toEqual(Array(4).fill(false));
    } finally {
      setSetting(org.db, 'allow_edit_history', true);
    }
    expect((await seen(id)).map((m) => m.edit_history?.length)).toEqual(Array(4).fill(1));
  });

  it('shows a message moved to another channel there, and no more in the one it left', async () => {
    const to = await ownerChannel(org, owner, [member]);
    const id = await send('about to move', 'moving');
    await seen(id);
    await owner.call(updateMessage, { message_id: id, stream_id: to.id });
    const moved = await seen(id, { channelId: to.id });
    expect(moved.map((m) => [m.stream_id, m.display_recipient, m.edit_history?.[0]?.prev_stream])).toEqual(Array(4).fill([to.id, to.name, channel.id]));
    const left = await read<Messages>(member, '/messages', newestIn(channel.id));
    expect(left.messages.map((m) => m.id)).not.toContain(id);
  });

  it('finds the channel a narrow names as it is now: renamed or made private by another connection', async () => {
    const other = org.otherConnection();
    const outsider = org.addUser({ name: 'Otto Outsider' });
    const target = await ownerChannel(org, owner, [member]);
    const id = await send('in a channel that changes', 'kept', { to: target.name });
    const byName = (name: string) => ({ anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'channel', operand: name }] });
    const idsIn = (m: Messages) => m.messages.map((x) => x.id);
    // A name in other ASCII letter cases is the same channel, as SQLite's NOCASE compares.
    for (const viewer of [member, outsider]) {
      expect(idsIn(await read<Messages>(viewer, '/messages', byName(target.name)))).toContain(id);
      expect(idsIn(await read<Messages>(viewer, '/messages', byName(target.name.toUpperCase())))).toContain(id);
    }
    // Letters beyond ASCII are not folded by NOCASE: another case of them names no channel.
    const accented = unique('Équipe');
    newStream(org, accented, { subscribers: [org.owner, member] });
    expect(idsIn(await read<Messages>(member, '/messages', byName(accented)))).toEqual([]);
    for (const other of [accented.toLowerCase(), accented.replace('É', 'é')]) {
      const folded = await bothWays(member, '/messages', byName(other));
      expect(folded.http).toEqual(folded.local);
    }
    const name = unique('renamed-behind');
    other.prepare('UPDATE streams SET name = ? WHERE id = ?').run(name, target.id);
    expect(idsIn(await read<Messages>(member, '/messages', byName(name)))).toContain(id);
    const old = await bothWays(member, '/messages', byName(target.name));
    expect(old.http).toEqual(old.local);
    expect(old.http[0]).toBe(400);
    // Private with protected history: one who is not subscribed no longer reads its messages.
    expect(idsIn(await read<Messages>(outsider, '/messages', newestIn(target.id)))).toContain(id);
    other.prepare('UPDATE streams SET invite_only = 1, history_public_to_subscribers = 0 WHERE id = ?').run(target.id);
    expect(idsIn(await read<Messages>(member, '/messages', newestIn(target.id)))).toContain(id);
    const shut = await bothWays(outsider, '/messages', newestIn(target.id));
    expect(shut.http).toEqual(shut.local);
    expect(shut.http[1]).not.toContain(`"id":${id},`);
  });

  it('gives each caller their own flags: a star shows only in the answers of whoever starred', async () => {
    const id = await send('star me');
    expect((await seen(id)).map((m) => m.flags.includes('starred'))).toEqual([false, false, false, false]);
    await (await as(member)).call(updateMessageFlags, { op: 'add', flag: 'starred', messages: [id] });
    expect((await seen(id)).map((m) => m.flags.includes('starred'))).toEqual([false, false, true, true]);
  });

  it('gives each of more sets of flags than a rendering keeps forms for its own, read after read', async () => {
    // Eight readers with the eight sets of the editable flags, and one with no copy (read, historical): more sets
    // than the forms a message keeps (MAX_FLAG_SETS, 8). Each reads twice: the second answer may come from a form.
    const readers = Array.from({ length: 8 }, () => org.addUser());
    const room = await ownerChannel(org, owner, readers);
    const id = await send('flag me', 'forms', { to: room.name });
    for (const [i, reader] of readers.entries()) {
      const client = await as(reader);
      for (const [bit, flag] of ['read', 'starred', 'collapsed'].entries()) {
        if (i & (1 << bit)) await client.call(updateMessageFlags, { op: 'add', flag, messages: [id] });
      }
    }
    const flagsOf = async (viewer: TestUser) => (await read<Messages>(viewer, '/messages', newestIn(room.id))).messages.find((m) => m.id === id)!.flags;
    const expected = [...readers.map((_, i) => ['read', 'starred', 'collapsed'].filter((_, bit) => i & (1 << bit))), ['read', 'historical']];
    for (let round = 0; round < 2; round++) {
      const got: string[][] = [];
      for (const viewer of [...readers, member]) got.push(await flagsOf(viewer));
      expect(got).toEqual(expected);
    }
  });

  it("leaves a sender's avatar to a Gravatar-computing client only while everyone may see the sender's address, the caller's own messages included", async () => {
    const bot = org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
    const ids = [
      await send('mine', 'avatars', { from: await as(member) }),
      await send('theirs', 'avatars'),
      await send('a bot', 'avatars', { from: await as(bot) }),
    ];
    const avatars = async (viewer: TestUser) =>
      (await read<Messages>(viewer, '/messages', { message_ids: ids, client_gravatar: true })).messages.map((m) => m.avatar_url);
    expect(await avatars(member)).toEqual([null, null, null]);
    expect(await avatars(org.owner)).toEqual([null, null, null]);
    setSetting(org.db, 'email_address_visibility', 3);
    try {
      // zerver/lib/message_cache.py finalize_payload: client_gravatar is dropped for a sender whose
      // email_address_visibility is not "everyone", whoever asks (the sender too, an administrator too); a
      // bot's always is "everyone" (zerver/actions/create_user.py).
      expect(await avatars(member)).toEqual([gravatar, gravatar, null]);
      expect(await avatars(org.owner)).toEqual([gravatar, gravatar, null]);
    } finally {
      setSetting(org.db, 'email_address_visibility', 1);
    }
    expect(await avatars(member)).toEqual([null, null, null]);
  });
});

describe('answers made from kept renderings', () => {
  const { org, read, overHttp, inProcess, as } = servedOrg();
  afterAll(() => org.close());

  it('are byte for byte what JSON.stringify makes of the in-process answer, for several callers and parameters', async () => {
    const owner = await as(org.owner);
    const member = org.addUser({ name: 'Quote "Me" Ünïcode' });
    const guest = org.addUser({ role: 600 });
    org.addUser({ bot: { type: 1, ownerId: member.id } });
    const bio = (await owner.call(createCustomProfileField, { name: 'Bio', field_type: 2 })).id;
    await owner.call(updateUser, { user_id: member.id, profile_data: [{ id: bio, value: 'Likes *emphasis* & <angles>' }] });
    const channel = await ownerChannel(org, owner, [member, guest]);
    const elsewhere = await ownerChannel(org, owner, []);
    const ids: number[] = [];
    for (const content of ['plain', '**bold** and `code` \u2028 "quoted"', 'https://example.com/a?b=c&d=e']) {
      ids.push((await owner.call(sendMessage, { type: 'stream', to: channel.name, topic: 'bytes', content })).id);
    }
    await (await as(member)).call(addReaction, { message_id: ids[0]!, emoji_name: 'tada' });
    await (await as(member)).call(updateMessageFlags, { op: 'add', flag: 'starred', messages: [ids[1]!] });
    await owner.call(updateMessage, { message_id: ids[2]!, content: 'edited https://example.com/' });
    const reads: [string, Params][] = [
      ['/users', {}],
      ['/users', { client_gravatar: false, include_custom_profile_fields: true }],
      ['/users', { user_ids: [member.id, guest.id] }],
      ['/messages', newestIn(channel.id)],
      ['/messages', newestIn(channel.id, { client_gravatar: false, apply_markdown: false })],
      ['/messages', { message_ids: [...ids].reverse(), allow_empty_topic_name: true }],
    ];
    for (const viewer of [org.owner, member, guest]) {
      for (const [path, params] of reads) {
        await read(viewer, path, params);
        // A write nothing above is made of: the answer cache keeps nothing across it, the renderings are kept.
        await owner.call(sendMessage, { type: 'stream', to: elsewhere.name, topic: 'elsewhere', content: 'unrelated' });
        const again = await overHttp(viewer, path, params);
        expect(again).toBe(await inProcess(viewer, path, params));
      }
    }
  });

  it('are kept: a change the log is not told of stays unseen over HTTP, while in-process answers show it', async () => {
    const owner = await as(org.owner);
    const target = org.addUser({ name: 'Kept Name' });
    const channel = await ownerChannel(org, owner, []);
    const id = (await owner.call(sendMessage, { type: 'stream', to: channel.name, topic: 'kept', content: 'kept words' })).id;
    const users = { user_ids: [target.id] };
    const messages = { message_ids: [id] };
    await read(org.owner, '/users', users);
    await read(org.owner, '/messages', messages);
    const other = org.otherConnection();
    other.exec('DROP TRIGGER changes_users_user_update; DROP TRIGGER changes_messages_message_update');
    other.prepare('UPDATE users SET full_name = ? WHERE id = ?').run('Unlogged Name', target.id);
    other.prepare('UPDATE messages SET rendered_content = ? WHERE id = ?').run('<p>unlogged words</p>', id);
    const nameIn = (text: string) => (JSON.parse(text) as Users).members[0]!.full_name;
    const contentIn = (text: string) => (JSON.parse(text) as Messages).messages[0]!.content;
    // Were they not, every case above would pass without testing kept renderings at all.
    expect(nameIn(await overHttp(org.owner, '/users', users))).toBe('Kept Name');
    expect(contentIn(await overHttp(org.owner, '/messages', messages))).toBe('<p>kept words</p>');
    expect(nameIn(await inProcess(org.owner, '/users', users))).toBe('Unlogged Name');
    expect(contentIn(await inProcess(org.owner, '/messages', messages))).toBe('<p>unlogged words</p>');
  });

  it("give a system bot's message the avatar under the URL each request came by", async () => {
    const owner = await as(org.owner);
    const channel = await ownerChannel(org, owner, []);
    const port = new URL(await org.http()).port;
    const avatarVia = (host: string) =>
      new Promise<unknown>((resolve, reject) => {
        const query = new URLSearchParams({ anchor: 'oldest', num_before: '0', num_after: '1', narrow: JSON.stringify(channelNarrow(channel.id)) });
        const authorization = basicAuthHeader(org.owner.email, org.owner.apiKey);
        const req = request({ host: '127.0.0.1', port, path: `/api/v1/messages?${query}`, headers: { authorization, host } }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => {
            text += d.toString();
          });
          res.on('end', () => resolve((JSON.parse(text) as Messages).messages[0]?.avatar_url));
        });
        req.on('error', reject);
        req.end();
      });
    // Notification Bot's "channel created" message: its avatar is a file of the server it was asked of.
    expect(await avatarVia('first.example')).toMatch(/^http:\/\/first\.example\//);
    expect(await avatarVia('second.example')).toMatch(/^http:\/\/second\.example\//);
    expect(await avatarVia('first.example')).toMatch(/^http:\/\/first\.example\//);
  });

  it('keep a message sent over HTTP from its sending: the first read of it renders nothing again', async () => {
    const owner = await as(org.owner);
    const channel = await ownerChannel(org, owner, []);
    const site = await org.http();
    const res = await fetch(`${site}/api/v1/messages`, {
      method: 'POST',
      headers: {
        authorization: basicAuthHeader(org.owner.email, org.owner.apiKey),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ type: 'stream', to: channel.name, topic: 'sent', content: 'as sent' }),
    });
    const { id } = (await res.json()) as { id: number };
    await org.router.drain();
    const other = org.otherConnection();
    other.exec('DROP TRIGGER IF EXISTS changes_messages_message_update');
    other.prepare('UPDATE messages SET rendered_content = ? WHERE id = ?').run('<p>changed unlogged</p>', id);
    const contentIn = (text: string) => (JSON.parse(text) as Messages).messages[0]!.content;
    for (const params of [{ message_ids: [id] }, { message_ids: [id], client_gravatar: false }]) {
      expect(contentIn(await overHttp(org.owner, '/messages', params))).toBe('<p>as sent</p>');
      expect(contentIn(await inProcess(org.owner, '/messages', params))).toBe('<p>changed unlogged</p>');
    }
  });
});

describe('the change log behind kept renderings', () => {
  const { org, read, as } = servedOrg();
  afterAll(() => org.close());

  it("logs a change of every column a user's wire form is made of, and of any column of a channel", () => {
    const triggerOn = (name: string) => org.db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?").pluck().get(name) as string;
    const updateOf = (sql: string) => /AFTER UPDATE OF ([\w, ]+) ON/.exec(sql)![1]!.split(', ');
    expect(updateOf(triggerOn('changes_users_user_update')).sort()).toEqual([...USER_VIEW_COLUMNS].sort());
    expect(triggerOn('changes_streams_channel_update')).toMatch(/AFTER UPDATE ON streams/);
  });

  it('is never bypassed: no statement replaces a row of a table whose new rows it does not log', () => {
    // INSERT OR REPLACE deletes the row it replaces without a DELETE trigger, and these tables log no INSERT.
    const replacing = sourceFiles().filter((file) =>
      /(INSERT\s+OR\s+REPLACE|REPLACE)\s+INTO\s+"?(users|messages|streams)\b/i.test(readFileSync(join(SRC, file), 'utf8')),
    );
    expect(replacing).toEqual([]);
  });

  const nameOf = async (id: number) => (await read<Users>(org.owner, '/users', { user_ids: [id] })).members[0]!.full_name;
  const contentOf = async (id: number) => (await read<Messages>(org.owner, '/messages', { message_ids: [id] })).messages[0]!.content;

  it.each([
    ['more than it keeps', LOG_KEPT, 'first'],
    ['more than one read takes', CHANGE_LOG_LIMITS.read + 500, 'last'],
  ])('starts afresh after %s between two reads: the next answer shows the current state', async (_, others, renamed) => {
    const owner = await as(org.owner);
    const target = org.addUser({ name: 'Old Name' });
    const bystander = org.addUser();
    const channel = await ownerChannel(org, owner, []);
    const id = (await owner.call(sendMessage, { type: 'stream', to: channel.name, topic: 'log', content: 'old words' })).id;
    expect(await nameOf(target.id)).toBe('Old Name');
    expect(await contentOf(id)).toBe('<p>old words</p>');
    const other = org.otherConnection();
    const rename = () => {
      other.prepare('UPDATE users SET full_name = ? WHERE id = ?').run('New Name', target.id);
      other.prepare('UPDATE messages SET rendered_content = ? WHERE id = ?').run('<p>new words</p>', id);
    };
    const touch = other.prepare('UPDATE users SET timezone = ? WHERE id = ?');
    other.transaction(() => {
      if (renamed === 'first') rename();
      for (let i = 0; i < others; i++) touch.run(`Etc/GMT+${i % 12}`, bystander.id);
      if (renamed === 'last') rename();
    })();
    expect(other.prepare('SELECT count(*) FROM changes').pluck().get()).toBeLessThanOrEqual(LOG_KEPT);
    expect(await nameOf(target.id)).toBe('New Name');
    expect(await contentOf(id)).toBe('<p>new words</p>');
  });
});
