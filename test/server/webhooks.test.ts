import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallParamsOf } from '../../src/api/operation.js';
import { createUserGroup } from '../../src/api/operations/groups.js';
import { sendMessage } from '../../src/api/operations/messages.js';
import { getOutgoingWebhookPayload, getZulipOutgoingWebhookPayload, type OutgoingWebhookPayload } from '../../src/api/operations/webhooks.js';
import { SERVER_VERSION } from '../../src/server/model/realm.js';
import { closedPort } from '../client/servers.js';
import { createChannel } from '../helpers/channels.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Answer = (res: ServerResponse) => void;

/** A bot's web service on 127.0.0.1: records every request and answers with the next queued answer. */
class BotService {
  readonly received: Received[] = [];
  private readonly answers: Answer[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        this.received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
        const answer = this.answers.shift() ?? json(200, { response_not_required: true });
        answer(res);
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/bot`;
  }

  answer(a: Answer): void {
    this.answers.push(a);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

const json =
  (status: number, body: unknown): Answer =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
const text =
  (status: number, body: string): Answer =>
  (res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  };

interface StoredMessage {
  id: number;
  sender_id: number;
  type: string;
  stream_id: number | null;
  topic: string;
  content: string;
  client: string;
  recipient_id: number;
}

describe.each(TRANSPORTS)('outgoing webhooks over %s', (kind) => {
  let org: TestOrg;
  let service: BotService;
  let bot: TestUser;
  let ann: TestUser;
  let general: number;

  const messagesAfter = (id: number) => org.db.prepare('SELECT * FROM messages WHERE id > ? ORDER BY id').all(id) as StoredMessage[];
  const lastId = () => (org.db.prepare('SELECT coalesce(max(id), 0) AS id FROM messages').get() as { id: number }).id;
  const send = async (user: TestUser, params: CallParamsOf<typeof sendMessage>) => (await clientFor(org, kind, user)).call(sendMessage, params);

  beforeAll(async () => {
    org = createTestOrg();
    service = new BotService();
    await service.start();
    bot = org.addUser({ name: 'Echo Bot', email: 'echo-bot@example.com', bot: { type: 3, ownerId: org.owner.id, url: service.url } });
    ann = org.addUser({ name: 'Ann' });
    general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
  });
  beforeEach(() => {
    service.received.length = 0;
  });
  afterAll(async () => {
    await org.close();
    await service.stop();
  });

  it('POSTs the payload when a human mentions the bot in a channel, and posts its reply in the same topic', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    service.answer((res) => void held.then(() => json(200, { content: 'pong' })(res)));
    const before = lastId();
    const sent = await send(ann, { type: 'stream', to: String(general), topic: 'pings', content: '@**Echo Bot** ping' });
    // The sender had their answer while the bot's service was still holding its reply.
    expect(sent.result).toBe('success');
    release();
    await org.router.drain();

    expect(service.received).toHaveLength(1);
    const call = service.received[0]!;
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/bot');
    expect(call.headers['user-agent']).toBe(`ZulipOutgoingWebhook/${SERVER_VERSION}`);
    expect(call.headers['content-type']).toBe('application/json');
    const payload = JSON.parse(call.body) as OutgoingWebhookPayload;
    expect(openapiErrors('post', '/zulip-outgoing-webhook', 200, payload)).toEqual([]);
    const token = (org.db.prepare('SELECT service_token FROM users WHERE id = ?').get(bot.id) as { service_token: string }).service_token;
    expect(payload).toMatchObject({ bot_email: 'echo-bot@example.com', bot_full_name: 'Echo Bot', data: '@**Echo Bot** ping', trigger: 'mention', token });
    expect(payload.message).toMatchObject({
      id: sent.id,
      type: 'stream',
      stream_id: general,
      display_recipient: 'general',
      subject: 'pings',
      content: '@**Echo Bot** ping',
      content_type: 'text/x-markdown',
      sender_id: ann.id,
      sender_full_name: 'Ann',
    });
    expect(payload.message.rendered_content).toContain(`data-user-id="${bot.id}"`);
    expect(payload.message.avatar_url).toMatch(/^https?:\/\//);
    expect(payload.message).not.toHaveProperty('flags');

    const [trigger, replyMessage] = messagesAfter(before);
    expect(trigger!.id).toBe(sent.id);
    expect(replyMessage).toMatchObject({
      sender_id: bot.id,
      type: 'stream',
      stream_id: general,
      topic: 'pings',
      content: 'pong',
      client: 'OutgoingWebhookResponse',
    });
    expect(messagesAfter(before)).toHaveLength(2);
  });

  it('POSTs for a direct message to the bot, and replies to the same conversation', async () => {
    service.answer(json(200, { content: 'hello back' }));
    const before = lastId();
    const sent = await send(ann, { type: 'direct', to: JSON.stringify([bot.id]), content: 'hi bot' });
    await org.router.drain();
    const payload = JSON.parse(service.received[0]!.body) as OutgoingWebhookPayload;
    expect(payload).toMatchObject({ trigger: 'direct_message', data: 'hi bot', message: { id: sent.id, type: 'private', subject: '' } });
    expect((payload.message.display_recipient as { id: number }[]).map((r) => r.id).sort((a, b) => a - b)).toEqual([bot.id, ann.id].sort((a, b) => a - b));
    expect(openapiErrors('post', '/zulip-outgoing-webhook', 200, payload)).toEqual([]);
    const [, replyMessage] = messagesAfter(before);
    expect(replyMessage).toMatchObject({ sender_id: bot.id, type: 'private', content: 'hello back', recipient_id: messagesAfter(before)[0]!.recipient_id });
  });

  it('POSTs when a channel message mentions the bot whether or not it is subscribed, with an empty topic as ""', async () => {
    const elsewhere = await createChannel(org, await clientFor(org, kind, ann), unique('unsubscribed', '-'));
    const subscribed = org.db.prepare('SELECT 1 FROM subscriptions WHERE user_id = ? AND stream_id = ?').get(bot.id, elsewhere.id);
    expect(subscribed).toBeUndefined();
    const generic = org.addUser({ bot: { type: 1, ownerId: org.owner.id }, name: 'Other Generic Bot' });
    await send(generic, { type: 'stream', to: String(elsewhere.id), topic: 'from a bot', content: '@**Echo Bot** from a bot' });
    await send(ann, { type: 'stream', to: String(elsewhere.id), topic: 'silent', content: '@_**Echo Bot** only named' });
    const sent = await send(ann, { type: 'stream', to: String(elsewhere.id), topic: '', content: '@**Echo Bot** are you there?' });
    await org.router.drain();
    expect(service.received).toHaveLength(1);
    const payload = JSON.parse(service.received[0]!.body) as OutgoingWebhookPayload;
    expect(payload).toMatchObject({
      trigger: 'mention',
      message: { id: sent.id, type: 'stream', stream_id: elsewhere.id, display_recipient: elsewhere.name, subject: '' },
    });
    expect(openapiErrors('post', '/zulip-outgoing-webhook', 200, payload)).toEqual([]);
    // What the bot is shown as its newest trigger is that message too, though it holds no copy of it.
    const { result: _r, msg: _m, ...shown } = await (await clientFor(org, kind, bot)).call(getOutgoingWebhookPayload, {});
    expect(shown).toEqual(payload);
  });

  it('POSTs when a group it is in is mentioned in a channel it is subscribed to, and not where it is not', async () => {
    const owner = await clientFor(org, kind, org.owner);
    const listener = org.addUser({ name: 'Listener Bot', bot: { type: 3, ownerId: org.owner.id, url: service.url } });
    const { group_id } = await owner.call(createUserGroup, { name: unique('bots', '-'), description: 'Bots', members: [bot.id, listener.id] });
    const group = (org.db.prepare('SELECT name FROM user_groups WHERE id = ?').get(group_id) as { name: string }).name;
    // Echo Bot is subscribed to this channel; Listener Bot is not, so a group mention does not reach it.
    const channel = await createChannel(org, owner, unique('with-bot', '-'), { principals: [org.owner.id, ann.id, bot.id] });
    const sent = await send(ann, { type: 'stream', to: String(channel.id), topic: 'group', content: `@*${group}* please look` });
    await org.router.drain();
    expect(service.received).toHaveLength(1);
    const payload = JSON.parse(service.received[0]!.body) as OutgoingWebhookPayload;
    expect(payload).toMatchObject({ trigger: 'mention', bot_email: bot.email, message: { id: sent.id, stream_id: channel.id } });
    // Named one by one, both are called, the unsubscribed one too.
    service.received.length = 0;
    const both = await send(ann, { type: 'stream', to: String(channel.id), topic: 'group', content: '@**Echo Bot** and @**Listener Bot**' });
    await org.router.drain();
    const called = service.received.map((r) => JSON.parse(r.body) as OutgoingWebhookPayload);
    expect(called.map((p) => [p.bot_email, p.message.id]).sort()).toEqual(
      [
        [bot.email, both.id],
        [listener.email, both.id],
      ].sort(),
    );
  });

  it('is not triggered without a mention, by a mention in code, or by a bot sender', async () => {
    const generic = org.addUser({ bot: { type: 1, ownerId: org.owner.id }, name: 'Generic Bot' });
    await send(ann, { type: 'stream', to: String(general), topic: 'quiet', content: 'nothing for Echo Bot here' });
    await send(ann, { type: 'stream', to: String(general), topic: 'quiet', content: '`@**Echo Bot**` is how you would call it' });
    await send(generic, { type: 'stream', to: String(general), topic: 'quiet', content: '@**Echo Bot** from a bot' });
    await send(generic, { type: 'direct', to: JSON.stringify([bot.id]), content: 'from a bot' });
    await org.router.drain();
    expect(service.received).toEqual([]);
  });

  it('is not triggered for a deactivated bot', async () => {
    const sleeping = org.addUser({ name: 'Sleeping Bot', bot: { type: 3, ownerId: org.owner.id, url: service.url } });
    org.db.prepare('UPDATE users SET is_active = 0 WHERE id = ?').run(sleeping.id);
    await send(ann, { type: 'stream', to: String(general), topic: 'quiet', content: '@**Sleeping Bot** wake up' });
    await org.router.drain();
    expect(service.received).toEqual([]);
  });

  it('posts nothing when no response is required, or the reply is empty or blank', async () => {
    service.answer(json(200, { response_not_required: true }));
    service.answer(json(200, ''));
    service.answer(json(200, { content: '   ' }));
    service.answer(json(200, {}));
    const before = lastId();
    for (let i = 0; i < 4; i++) await send(ann, { type: 'stream', to: String(general), topic: 'silence', content: `@**Echo Bot** ${i}` });
    await org.router.drain();
    expect(service.received).toHaveLength(4);
    expect(messagesAfter(before).map((m) => m.sender_id)).toEqual([ann.id, ann.id, ann.id, ann.id]);
  });

  it('says the service failed when it answers 500, and tells the owner', async () => {
    service.answer(text(500, 'Internal trouble'));
    const before = lastId();
    const sent = await send(ann, { type: 'stream', to: String(general), topic: 'errors', content: '@**Echo Bot** break' });
    expect(sent.result).toBe('success');
    await org.router.drain();
    const [, failure, notice] = messagesAfter(before);
    expect(failure).toMatchObject({ sender_id: bot.id, stream_id: general, topic: 'errors', content: 'Failure! Third party responded with 500' });
    expect(notice).toMatchObject({ sender_id: bot.id, type: 'private' });
    expect(notice!.content).toContain('to your bot @_**Echo Bot** triggered an outgoing webhook.');
    expect(notice!.content).toContain('The webhook got a response with status code *500*.');
    // The service's answer is never passed on (src/server/outgoing/deliver.ts notifyOwner): status and reason only.
    expect(notice!.content).not.toContain('Internal trouble');
    expect(notice!.content).not.toContain('payload');
    expect(notice!.content).toContain(`/near/${sent.id})`);
    const members = (org.db.prepare('SELECT members FROM recipients WHERE id = ?').get(notice!.recipient_id) as { members: string }).members;
    expect(
      members
        .split(',')
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([org.owner.id, bot.id].sort((a, b) => a - b));
    expect(org.logs.some((l) => l.includes('answered 500'))).toBe(true);
  });

  it.each([
    ['a body that is not JSON', text(200, 'ok!'), 'Invalid JSON in response'],
    ['JSON that is not an object', json(200, [1, 2]), 'Invalid response format'],
  ])('says the reply was unusable for %s', async (_name, answer, problem) => {
    service.answer(answer);
    const before = lastId();
    await send(ann, { type: 'stream', to: String(general), topic: 'bad replies', content: '@**Echo Bot** say something' });
    await org.router.drain();
    const [, failure, notice] = messagesAfter(before);
    expect(failure).toMatchObject({ sender_id: bot.id, topic: 'bad replies', content: `Failure! ${problem}` });
    expect(notice!.content).toContain(`but that request resulted in the following error:\n> ${problem}`);
    expect(notice!.content).not.toContain('ok!');
  });

  it('never breaks the sender’s request when the service is unreachable; the bot says it is unavailable', async () => {
    const down = org.addUser({ name: 'Down Bot', bot: { type: 3, ownerId: org.owner.id, url: `http://127.0.0.1:${await closedPort()}/` } });
    const before = lastId();
    const logged = org.logs.length;
    const sent = await send(ann, { type: 'stream', to: String(general), topic: 'down', content: '@**Down Bot** are you there?' });
    expect(sent.result).toBe('success');
    await org.router.drain();
    const [, failure, notice] = messagesAfter(before);
    expect(failure).toMatchObject({ sender_id: down.id, topic: 'down', content: 'Failure! Bot is unavailable' });
    expect(notice!.content).toContain('A connection error occurred. Is my bot server down?');
    // The first attempt and three retries, each logged.
    expect(org.logs.slice(logged).filter((l) => l.includes(`bot ${down.id}`) && l.includes('connection failed'))).toHaveLength(4);
  });

  it('calls a URL with credentials using Basic authentication, as a server’s HTTP client does', async () => {
    const withAuth = `${service.url.replace('http://', 'http://alice:pa55%3Aword@')}?token=t0ps3cret`;
    const authBot = org.addUser({ name: 'Auth Bot', bot: { type: 3, ownerId: org.owner.id, url: withAuth } });
    const before = lastId();
    await send(ann, { type: 'stream', to: String(general), topic: 'auth', content: '@**Auth Bot** hello' });
    await org.router.drain();
    expect(service.received).toHaveLength(1);
    expect(service.received[0]!.path).toBe('/bot?token=t0ps3cret');
    expect(service.received[0]!.headers.authorization).toBe(`Basic ${Buffer.from('alice:pa55:word').toString('base64')}`);
    expect(messagesAfter(before).filter((m) => m.sender_id === authBot.id)).toEqual([]);
  });

  it('logs where a failed call went without the credentials or query string of the bot’s URL', async () => {
    const port = await closedPort();
    const down = org.addUser({
      name: 'Secret Bot',
      bot: { type: 3, ownerId: org.owner.id, url: `http://alice:pa55word@127.0.0.1:${port}/hook?token=t0ps3cret#frag` },
    });
    const logged = org.logs.length;
    await send(ann, { type: 'stream', to: String(general), topic: 'secrets', content: '@**Secret Bot** hello' });
    await org.router.drain();
    const lines = org.logs.slice(logged).filter((l) => l.includes(`bot ${down.id}`));
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => l.includes(`to http://127.0.0.1:${port}/hook (message`) && l.includes('connection failed'))).toBe(true);
    expect(lines.filter((l) => /pa55word|t0ps3cret|alice/.test(l))).toEqual([]);
  });

  it('sends a Slack-compatible bot a form, and posts its text reply', async () => {
    const slack = org.addUser({ name: 'Slack Bot', bot: { type: 3, ownerId: org.owner.id, url: service.url } });
    org.db.prepare('UPDATE users SET service_interface = 2 WHERE id = ?').run(slack.id);
    service.answer(json(200, { text: 'from slack' }));
    const before = lastId();
    const sent = await send(ann, { type: 'stream', to: String(general), topic: 'slack', content: '@**Slack Bot** hi' });
    await org.router.drain();
    const call = service.received[0]!;
    expect(call.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = Object.fromEntries(new URLSearchParams(call.body));
    const timestamp = (org.db.prepare('SELECT date_sent FROM messages WHERE id = ?').get(sent.id) as { date_sent: number }).date_sent;
    expect(form).toEqual({
      token: (org.db.prepare('SELECT service_token FROM users WHERE id = ?').get(slack.id) as { service_token: string }).service_token,
      team_id: 'T2',
      team_domain: '127.0.0.1',
      channel_id: `C${general}`,
      channel_name: 'general',
      thread_ts: String(timestamp),
      timestamp: String(timestamp),
      user_id: `U${ann.id}`,
      user_name: 'Ann',
      text: '@**Slack Bot** hi',
      trigger_word: 'mention',
      service_id: String(slack.id),
    });
    expect(messagesAfter(before)[1]).toMatchObject({ sender_id: slack.id, topic: 'slack', content: 'from slack' });

    // Slack's format has no direct messages: nothing is sent, the bot says why.
    const beforeDm = lastId();
    await send(ann, { type: 'direct', to: JSON.stringify([slack.id]), content: 'psst' });
    await org.router.drain();
    expect(service.received).toHaveLength(1);
    expect(messagesAfter(beforeDm)[1]).toMatchObject({ sender_id: slack.id, content: "Failure! Slack outgoing webhooks don't support direct messages." });
  });

  describe('POST /svc-outgoing-webhook', () => {
    it('shows a bot that was never triggered a sample payload from its owner', async () => {
      const fresh = org.addUser({ name: 'Fresh Bot', bot: { type: 3, ownerId: org.owner.id, url: service.url } });
      const res = await (await clientFor(org, kind, fresh)).call(getOutgoingWebhookPayload, {});
      const { result: _r, msg: _m, ...payload } = res;
      expect(openapiErrors('post', '/zulip-outgoing-webhook', 200, payload)).toEqual([]);
      expect(payload).toMatchObject({
        bot_full_name: 'Fresh Bot',
        trigger: 'direct_message',
        data: 'Hello, @**Fresh Bot**!',
        message: { type: 'private', sender_id: org.owner.id, id: 0 },
      });
      expect(payload.message.rendered_content).toContain(`data-user-id="${fresh.id}"`);
    });

    it('shows the payload of the newest triggering message, as it was POSTed', async () => {
      await send(ann, { type: 'stream', to: String(general), topic: 'latest', content: '@**Echo Bot** latest one' });
      await send(ann, { type: 'stream', to: String(general), topic: 'latest', content: 'not for the bot' });
      await org.router.drain();
      const posted = JSON.parse(service.received.at(-1)!.body) as OutgoingWebhookPayload;
      for (const op of [getOutgoingWebhookPayload, getZulipOutgoingWebhookPayload]) {
        const { result: _r, msg: _m, ...payload } = await (await clientFor(org, kind, bot)).call(op, {});
        expect(payload).toEqual(posted);
        expect(openapiErrors('post', '/zulip-outgoing-webhook', 200, payload)).toEqual([]);
      }
    });

    it('is only for outgoing-webhook bots', async () => {
      const res = await rawRequest(org, kind, { method: 'POST', path: '/svc-outgoing-webhook' }, ann);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'This endpoint is only available to outgoing webhook bots.', code: 'BAD_REQUEST' });
    });
  });
});
