import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBot, deactivateBot, getBots } from '../../src/api/operations/bots.js';
import { deactivateUser, getUser } from '../../src/api/operations/users.js';
import { getSetting, setSetting } from '../../src/server/model/realm.js';
import { setPermission } from '../../src/server/model/user-permissions.js';
import { bad, flatFailure } from '../helpers/api.js';
import { eventErrors, openQueue, takeEvents } from '../helpers/events.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { setGroupSetting } from '../helpers/realm-settings.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

interface BotRow {
  email: string;
  is_bot: number;
  bot_type: number;
  bot_owner_id: number;
  service_base_url: string | null;
  service_interface: number | null;
  service_token: string | null;
}

describe.each(TRANSPORTS)('bots over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  let member: TestUser;
  let n = 0;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200 });
    member = org.addUser();
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  const unique = () => `${kind}${++n}`;
  const row = (id: number) => org.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as BotRow;

  it("lists the caller's own active bots, oldest first, with their keys: administrators only theirs too", async () => {
    // zerver/views/users.py get_bots_backend: bot_owner = the caller, is_active, by date_joined.
    const owner = org.addUser();
    const client = await as(owner);
    const name = unique();
    const first = await client.call(createBot, { full_name: `First ${name}`, short_name: `first${name}` });
    org.clock.advance(60);
    const second = await client.call(createBot, { full_name: `Second ${name}`, short_name: `second${name}`, bot_type: 2 });
    const gone = await client.call(createBot, { full_name: `Gone ${name}`, short_name: `gone${name}` });
    await client.call(deactivateBot, { bot_id: gone.user_id });
    await (await as(admin)).call(createBot, { full_name: `Admins ${name}`, short_name: `admins${name}` });
    const res = await client.call(getBots, {});
    expect(res.bots).toEqual([
      {
        username: row(first.user_id).email,
        full_name: `First ${name}`,
        api_key: first.api_key,
        avatar_url: first.avatar_url,
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
      },
      {
        username: row(second.user_id).email,
        full_name: `Second ${name}`,
        api_key: second.api_key,
        avatar_url: second.avatar_url,
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
      },
    ]);
    const adminsBots = (await (await as(admin)).call(getBots, {})).bots.map((b) => b.full_name);
    expect(adminsBots).toContain(`Admins ${name}`);
    expect(adminsBots).not.toContain(`First ${name}`);
    expect((await (await as(org.addUser())).call(getBots, {})).bots).toEqual([]);
  });

  it("addresses a bot under the organization's domain, never the host a request or serve came in by", async () => {
    // zerver/views/users.py add_bot_backend: realm.get_bot_domain(). serve rewrites the stored URL to where it
    // listens (here as if on 0.0.0.0); the domain fixed when the organization was created stays.
    const [url, domain] = [getSetting(org.db, 'url'), getSetting(org.db, 'bot_domain')];
    setSetting(org.db, 'url', 'http://0.0.0.0:8080');
    setSetting(org.db, 'bot_domain', 'chat.acme.test');
    try {
      const name = unique();
      const res = await (await as(member)).call(createBot, { full_name: `Domain ${name}`, short_name: `domain${name}` });
      expect(row(res.user_id).email).toBe(`domain${name}-bot@chat.acme.test`);
    } finally {
      setSetting(org.db, 'url', url);
      setSetting(org.db, 'bot_domain', domain);
    }
  });

  it('creates a generic bot owned by the caller, with the documented response and both events', async () => {
    const adminQueue = openQueue(org, admin);
    const otherQueue = openQueue(org, org.addUser());
    const name = unique();
    const res = await (await as(member)).call(createBot, { full_name: `Helper ${name}`, short_name: `helper${name}` });
    expect(Object.keys(res).sort()).toEqual(
      ['api_key', 'avatar_url', 'default_all_public_streams', 'default_events_register_stream', 'default_sending_stream', 'msg', 'result', 'user_id'].sort(),
    );
    expect(res).toMatchObject({ default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false });
    expect(res.api_key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(res.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\//);
    expect(row(res.user_id)).toMatchObject({ email: `helper${name}-bot@127.0.0.1`, is_bot: 1, bot_type: 1, bot_owner_id: member.id, service_token: null });
    const view = await (await as(member)).call(getUser, { user_id: res.user_id });
    expect(view.user).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: member.id, full_name: `Helper ${name}` });
    // Everyone learns of the new user; only administrators and the owner get the bot's credentials.
    expect(takeEvents(org, otherQueue).map((e) => [e.type, e.op])).toEqual([['realm_user', 'add']]);
    const events = takeEvents(org, adminQueue);
    expect(events.map((e) => [e.type, e.op])).toEqual([
      ['realm_user', 'add'],
      ['realm_bot', 'add'],
    ]);
    expect(events[1]!.bot).toMatchObject({ user_id: res.user_id, api_key: res.api_key, owner_id: member.id, services: [], is_active: true });
    for (const e of events) expect(eventErrors(e)).toEqual([]);
  });

  describe('deactivating', () => {
    const active = (id: number) => org.db.prepare('SELECT is_active FROM users WHERE id = ?').pluck().get(id);

    it('goes through DELETE /bots/{id}: DELETE /users/{id} says No such user for a bot, as a server does', async () => {
      const bot = org.addUser({ bot: { type: 1, ownerId: member.id } });
      expect(await flatFailure((await as(admin)).call(deactivateUser, { user_id: bot.id }))).toEqual(bad('No such user'));
      expect(active(bot.id)).toBe(1);
      const q = openQueue(org, admin);
      expect(await (await as(admin)).call(deactivateBot, { bot_id: bot.id })).toEqual({ result: 'success', msg: '' });
      expect(active(bot.id)).toBe(0);
      const events = takeEvents(org, q);
      expect(events.map((e) => [e.type, e.op])).toEqual([
        ['realm_user', 'update'],
        ['realm_bot', 'update'],
      ]);
      for (const e of events) expect(eventErrors(e)).toEqual([]);
      // Deactivating it again changes nothing and succeeds.
      expect((await (await as(admin)).call(deactivateBot, { bot_id: bot.id })).result).toBe('success');
    });

    it("lets a bot's owner deactivate it, not another member; a human or unknown ID is No such bot", async () => {
      const bot = org.addUser({ bot: { type: 1, ownerId: member.id } });
      expect(await flatFailure((await as(org.addUser())).call(deactivateBot, { bot_id: bot.id }))).toEqual(bad('Insufficient permission'));
      await (await as(member)).call(deactivateBot, { bot_id: bot.id });
      expect(active(bot.id)).toBe(0);
      expect(await flatFailure((await as(admin)).call(deactivateBot, { bot_id: member.id }))).toEqual(bad('No such bot'));
      expect(await flatFailure((await as(admin)).call(deactivateBot, { bot_id: 999999 }))).toEqual(bad('No such bot'));
      expect(active(member.id)).toBe(1);
    });

    it('leaves a bot holding can_create_users to owners', async () => {
      const bot = org.addUser({ bot: { type: 1, ownerId: admin.id } });
      setPermission(org.db, bot.id, 'can_create_users', true);
      expect(await flatFailure((await as(admin)).call(deactivateBot, { bot_id: bot.id }))).toEqual({
        ...bad('Must be an organization owner'),
        code: 'UNAUTHORIZED_PRINCIPAL',
      });
      await (await as(org.owner)).call(deactivateBot, { bot_id: bot.id });
      expect(active(bot.id)).toBe(0);
    });
  });

  it('creates an outgoing-webhook bot with its URL, interface and a 32-character token', async () => {
    const name = unique();
    const res = await (await as(member)).call(createBot, {
      full_name: `Hook ${name}`,
      short_name: `hook${name}`,
      bot_type: 3,
      payload_url: 'https://bots.example.com/hook',
      interface_type: 2,
    });
    const bot = row(res.user_id);
    expect(bot).toMatchObject({ bot_type: 3, service_base_url: 'https://bots.example.com/hook', service_interface: 2 });
    expect(bot.service_token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(bot.service_token).not.toBe(res.api_key);
  });

  it('takes payload_url JSON-encoded, as a server does', async () => {
    const name = unique();
    const raw = await rawRequest(
      org,
      kind,
      {
        method: 'POST',
        path: '/bots',
        body: [
          ['full_name', `Raw ${name}`],
          ['short_name', `raw${name}`],
          ['bot_type', '3'],
          ['payload_url', 'https://bots.example.com/raw'],
        ],
      },
      member,
    );
    expect(raw.body).toEqual({ result: 'error', msg: 'payload_url is not valid JSON', code: 'BAD_REQUEST' });
  });

  it('creates an embedded bot only for a known embedded bot name', async () => {
    const name = unique();
    const client = await as(admin);
    const res = await client.call(createBot, { full_name: `Converter ${name}`, short_name: `conv${name}`, bot_type: 4, service_name: 'converter' });
    expect(row(res.user_id).bot_type).toBe(4);
    expect(await flatFailure(client.call(createBot, { full_name: `Odd ${name}`, short_name: `odd${name}`, bot_type: 4 }))).toEqual(
      bad('Invalid embedded bot name.'),
    );
  });

  it.each([
    ['a blank short name', { short_name: '   ' }, 'Bad name or username'],
    ['a short name no address can hold', { short_name: 'two words' }, 'Bad name or username'],
    ['a one-letter name', { full_name: 'B' }, 'Name too short!'],
    ['an unknown bot type', { bot_type: 7 }, 'Invalid bot type'],
    ['an unknown interface', { bot_type: 3, payload_url: 'https://x.example.com/', interface_type: 3 }, 'Invalid interface type'],
    ['a payload URL that is not one', { bot_type: 3, payload_url: 'not a url' }, 'payload_url is not a URL'],
    // Outgoing webhooks are HTTP POSTs: a scheme Django's URL validator takes but no webhook can use is refused.
    ['an ftp payload URL', { bot_type: 3, payload_url: 'ftp://bots.example.com/hook' }, 'payload_url is not a URL'],
    ['an ftps payload URL', { bot_type: 3, payload_url: 'ftps://bots.example.com/hook' }, 'payload_url is not a URL'],
  ])('refuses %s', async (_what, change, msg) => {
    const name = unique();
    const params = { full_name: `Bot ${name}`, short_name: `bot${name}`, ...change };
    expect(await flatFailure((await as(member)).call(createBot, params))).toEqual(bad(msg));
  });

  it('requires a payload URL for an outgoing webhook', async () => {
    const name = unique();
    const err = await flatFailure((await as(member)).call(createBot, { full_name: `Nowhere ${name}`, short_name: `nowhere${name}`, bot_type: 3 }));
    expect(err).toEqual({ msg: "Missing 'payload_url' argument", code: 'REQUEST_VARIABLE_MISSING', status: 400 });
  });

  it('refuses a taken address and a name an active account has', async () => {
    const name = unique();
    const client = await as(member);
    await client.call(createBot, { full_name: `Taken ${name}`, short_name: `taken${name}` });
    expect(await flatFailure(client.call(createBot, { full_name: `Other ${name}`, short_name: `taken${name}` }))).toEqual(bad('Username already in use'));
    expect(await flatFailure(client.call(createBot, { full_name: `Taken ${name}`, short_name: `fresh${name}` }))).toEqual(bad('Name is already in use!'));
  });

  it('follows the bot permissions of the organization', async () => {
    setGroupSetting(org.db, 'can_create_bots_group', 'role:administrators');
    try {
      const client = await as(member);
      const name = unique();
      expect(await flatFailure(client.call(createBot, { full_name: `Gen ${name}`, short_name: `gen${name}` }))).toEqual({
        msg: 'Must be an organization administrator',
        code: 'UNAUTHORIZED_PRINCIPAL',
        status: 400,
      });
      // Incoming webhooks can only post: the write-only permission (members by default) suffices.
      const res = await client.call(createBot, { full_name: `Incoming ${name}`, short_name: `in${name}`, bot_type: 2 });
      expect(row(res.user_id).bot_type).toBe(2);
      await (await as(admin)).call(createBot, { full_name: `Admin Gen ${name}`, short_name: `admingen${name}` });
    } finally {
      setGroupSetting(org.db, 'can_create_bots_group', null);
    }
  });
});
