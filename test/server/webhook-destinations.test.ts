/**
 * Where outgoing webhooks may go (src/server/outgoing/destinations.ts), with real receivers on 127.0.0.1:
 * a server that may not call this machine's services reaches none of them, by address or by name, and
 * tells the bot's owner as a Zulip server behind Smokescreen does; redirects are never followed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/api/operations/messages.js';
import { IN_PROCESS_DESTINATIONS } from '../../src/server/outgoing/destination-policy.js';
import { destinationAllowed, destinationsForServe } from '../../src/server/outgoing/destinations.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

/** A receiver that counts its requests and answers each with `answer`. */
async function receiver(answer: (res: import('node:http').ServerResponse) => void): Promise<{ server: Server; port: number; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, hits: () => hits };
}

const stop = (s: Server) => new Promise<void>((r) => s.close(() => r()));

interface StoredMessage {
  sender_id: number;
  type: string;
  content: string;
}

describe('the destination policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'internal'],
    ['172.20.0.1', 'internal'],
    ['192.168.1.1', 'internal'],
    ['169.254.169.254', 'internal'],
    ['::ffff:169.254.169.254', 'internal'],
    ['fe80::1', 'internal'],
    ['fd00::1', 'internal'],
    ['93.184.215.14', 'public'],
    ['2606:4700::1111', 'public'],
  ])('classes %s as %s', (ip, kind) => {
    const allowed = [
      destinationAllowed({ loopback: false, internal: false }, ip),
      destinationAllowed({ loopback: true, internal: false }, ip),
      destinationAllowed({ loopback: false, internal: true }, ip),
    ];
    expect(allowed).toEqual(kind === 'public' ? [true, true, true] : kind === 'loopback' ? [false, true, false] : [false, false, true]);
  });

  it('lets serve on a loopback address call loopback targets, anywhere else none, unless private webhooks are allowed', () => {
    expect(destinationsForServe('127.0.0.1', false)).toEqual({ loopback: true, internal: false });
    expect(destinationsForServe('localhost', false)).toEqual({ loopback: true, internal: false });
    expect(destinationsForServe('::1', false)).toEqual({ loopback: true, internal: false });
    expect(destinationsForServe('0.0.0.0', false)).toEqual({ loopback: false, internal: false });
    expect(destinationsForServe('192.168.1.5', false)).toEqual({ loopback: false, internal: false });
    expect(destinationsForServe('0.0.0.0', true)).toEqual({ loopback: true, internal: true });
    expect(IN_PROCESS_DESTINATIONS).toEqual({ loopback: true, internal: false });
  });
});

describe.each(TRANSPORTS)('outgoing webhooks to refused destinations, over %s', (kind) => {
  let org: TestOrg;
  let ann: TestUser;
  let general: number;
  let service: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    org = createTestOrg({ webhookDestinations: { loopback: false, internal: false } });
    ann = org.addUser({ name: 'Ann' });
    general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
    service = await receiver((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"content":"internal secret"}'));
  });
  afterAll(async () => {
    await org.close();
    await stop(service.server);
  });
  const lastId = () => (org.db.prepare('SELECT coalesce(max(id), 0) AS id FROM messages').get() as { id: number }).id;
  const sentAfter = (id: number) => org.db.prepare('SELECT sender_id, type, content FROM messages WHERE id > ? ORDER BY id').all(id) as StoredMessage[];

  it.each([
    ['an address', () => `http://127.0.0.1:${service.port}/hook`],
    ['a name that resolves to one', () => `http://localhost:${service.port}/hook`],
    ['an IPv4-mapped IPv6 address', () => `http://[::ffff:127.0.0.1]:${service.port}/hook`],
  ])('refuses a loopback service by %s: nothing is sent, the owner is told, the sender sees no answer', async (_name, url) => {
    const bot = org.addUser({ name: `Inside Bot ${_name}`, bot: { type: 3, ownerId: org.owner.id, url: url() } });
    const before = lastId();
    await (await clientFor(org, kind, ann)).call(sendMessage, { type: 'stream', to: String(general), topic: 'ssrf', content: `@**Inside Bot ${_name}** hi` });
    await org.router.drain();
    expect(service.hits()).toBe(0);
    const [, failure, notice] = sentAfter(before);
    expect(failure).toMatchObject({ sender_id: bot.id, type: 'stream', content: 'Failure! Third party responded with 407' });
    expect(notice).toMatchObject({ sender_id: bot.id, type: 'private' });
    expect(notice!.content).toContain(
      `to your bot @_**Inside Bot ${_name}** triggered an outgoing webhook.\nThe URL configured for the webhook is for a private or disallowed network.`,
    );
    expect(sentAfter(before).some((m) => m.content.includes('internal secret'))).toBe(false);
    expect(org.logs.some((l) => l.includes(`bot ${bot.id}`) && l.includes('refused'))).toBe(true);
  });
});

describe('outgoing webhooks and redirects', () => {
  it('does not follow a redirect: the 3xx is the answer, and its target is never called', async () => {
    const org = createTestOrg();
    const target = await receiver((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"content":"followed"}'));
    const redirecting = await receiver((res) => res.writeHead(307, { location: `http://127.0.0.1:${target.port}/elsewhere` }).end());
    try {
      const ann = org.addUser({ name: 'Ann' });
      const bot = org.addUser({ name: 'Hop Bot', bot: { type: 3, ownerId: org.owner.id, url: `http://127.0.0.1:${redirecting.port}/` } });
      const before = (org.db.prepare('SELECT coalesce(max(id), 0) AS id FROM messages').get() as { id: number }).id;
      await (await clientFor(org, 'embedded', ann)).call(sendMessage, { type: 'direct', to: JSON.stringify([bot.id]), content: 'hop' });
      await org.router.drain();
      expect([redirecting.hits(), target.hits()]).toEqual([1, 0]);
      const messages = org.db.prepare('SELECT sender_id, content FROM messages WHERE id > ? ORDER BY id').all(before) as StoredMessage[];
      expect(messages[1]).toMatchObject({ sender_id: bot.id, content: 'Failure! Third party responded with 307' });
      expect(messages[2]!.content).toContain('The webhook got a response with status code *307*.');
    } finally {
      await org.close();
      await stop(target.server);
      await stop(redirecting.server);
    }
  });
});
