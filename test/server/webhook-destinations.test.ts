/**
 * Where outgoing webhooks may go (src/server/outgoing/destinations.ts), with real receivers on 127.0.0.1 (no
 * other address is ever connected to: the others are refused on the address alone): serve reaches none of
 * this machine's services, by any spelling of its address or by name, and tells the bot's owner as a Zulip
 * server behind Smokescreen does, unless the operator allows an address or all; redirects are never followed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/api/operations/messages.js';
import { IN_PROCESS_DESTINATIONS } from '../../src/server/outgoing/destination-policy.js';
import { parseAllowedAddress } from '../../src/api/webhook-addresses.js';
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
    ['::', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'internal'],
    ['172.20.0.1', 'internal'],
    ['192.168.1.1', 'internal'],
    ['100.64.0.1', 'internal'],
    ['169.254.169.254', 'internal'],
    ['::ffff:169.254.169.254', 'internal'],
    ['198.18.0.1', 'internal'],
    ['198.19.255.254', 'internal'],
    ['192.0.2.1', 'internal'],
    ['203.0.113.9', 'internal'],
    ['224.0.0.251', 'internal'],
    ['255.255.255.255', 'internal'],
    ['::7f00:1', 'internal'],
    ['64:ff9b::7f00:1', 'internal'],
    ['2002:7f00:1::', 'internal'],
    ['2001:db8::1', 'internal'],
    ['fe80::1', 'internal'],
    ['fd00::1', 'internal'],
    ['ff02::1', 'internal'],
    ['93.184.215.14', 'public'],
    ['198.20.0.1', 'public'],
    ['2606:4700::1111', 'public'],
  ])('classes %s as %s', (ip, kind) => {
    const allowed = [
      destinationAllowed({ loopback: false, internal: false }, ip, 80),
      destinationAllowed({ loopback: true, internal: false }, ip, 80),
      destinationAllowed({ loopback: false, internal: true }, ip, 80),
    ];
    expect(allowed).toEqual(kind === 'public' ? [true, true, true] : kind === 'loopback' ? [false, true, false] : [false, false, true]);
  });

  it('lets serve reach only the public Internet wherever it listens, unless private webhooks or an address are allowed', () => {
    expect(destinationsForServe(false)).toEqual({ loopback: false, internal: false, addresses: [] });
    expect(destinationsForServe(true)).toEqual({ loopback: true, internal: true });
    expect(IN_PROCESS_DESTINATIONS).toEqual({ loopback: true, internal: false });
  });

  it('lets an allowed address through, on its port when it names one, in either spelling of an IPv4 address', () => {
    const policy = destinationsForServe(false, ['127.0.0.1:8080', '10.0.0.5', '[::1]:9000']);
    expect(destinationAllowed(policy, '127.0.0.1', 8080)).toBe(true);
    expect(destinationAllowed(policy, '::ffff:127.0.0.1', 8080)).toBe(true);
    expect(destinationAllowed(policy, '127.0.0.1', 8081)).toBe(false);
    expect(destinationAllowed(policy, '127.0.0.2', 8080)).toBe(false);
    expect(destinationAllowed(policy, '10.0.0.5', 5432)).toBe(true);
    expect(destinationAllowed(policy, '10.0.0.6', 5432)).toBe(false);
    expect(destinationAllowed(policy, '::1', 9000)).toBe(true);
    expect(destinationAllowed(policy, '::1', 8080)).toBe(false);
  });

  it('reads allowed addresses as IP or IP:PORT, and nothing else', () => {
    expect(parseAllowedAddress('127.0.0.1')).toEqual({ ip: '127.0.0.1' });
    expect(parseAllowedAddress('127.0.0.1:8080')).toEqual({ ip: '127.0.0.1', port: 8080 });
    expect(parseAllowedAddress('::1')).toEqual({ ip: '::1' });
    expect(parseAllowedAddress('[::1]:8080')).toEqual({ ip: '::1', port: 8080 });
    for (const bad of ['localhost', 'localhost:8080', '127.0.0.1:0', '127.0.0.1:70000', '10.0.0.0/8', '']) expect(parseAllowedAddress(bad)).toBeNull();
  });
});

describe.each(TRANSPORTS)('outgoing webhooks of serve to refused destinations, over %s', (kind) => {
  let org: TestOrg;
  let ann: TestUser;
  let general: number;
  let service: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    // What serve gives its router by default.
    org = createTestOrg({ webhookDestinations: destinationsForServe(false) });
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

  // Every spelling of this machine the URL parser or the resolver turns into a loopback address; and a
  // benchmarking address, refused on the address alone, before any connection is tried.
  it.each([
    ['an address', () => `http://127.0.0.1:${service.port}/hook`],
    ['a short form', () => `http://127.1:${service.port}/hook`],
    ['a hexadecimal form', () => `http://0x7f.1:${service.port}/hook`],
    ['an octal form', () => `http://0177.0.0.1:${service.port}/hook`],
    ['a decimal form', () => `http://2130706433:${service.port}/hook`],
    ['the unspecified address', () => `http://0.0.0.0:${service.port}/hook`],
    ['IPv6 loopback', () => `http://[::1]:${service.port}/hook`],
    ['an IPv4-mapped IPv6 address', () => `http://[::ffff:127.0.0.1]:${service.port}/hook`],
    ['a name that resolves to one', () => `http://localhost:${service.port}/hook`],
    ['a benchmarking address', () => `http://198.18.0.1:${service.port}/hook`],
  ])('refuses %s: nothing is sent, the owner is told, the sender sees no answer', async (name, url) => {
    const bot = org.addUser({ name: `Inside Bot ${name}`, bot: { type: 3, ownerId: org.owner.id, url: url() } });
    const before = lastId();
    await (await clientFor(org, kind, ann)).call(sendMessage, { type: 'stream', to: String(general), topic: 'ssrf', content: `@**Inside Bot ${name}** hi` });
    await org.router.drain();
    expect(service.hits()).toBe(0);
    const [, failure, notice] = sentAfter(before);
    expect(failure).toMatchObject({ sender_id: bot.id, type: 'stream', content: 'Failure! Third party responded with 407' });
    expect(notice).toMatchObject({ sender_id: bot.id, type: 'private' });
    expect(notice!.content).toContain(
      `to your bot @_**Inside Bot ${name}** triggered an outgoing webhook.\nThe URL configured for the webhook is for a private or disallowed network.`,
    );
    expect(sentAfter(before).some((m) => m.content.includes('internal secret'))).toBe(false);
    // Refused, not tried: a connection attempt would have been logged as failed and retried.
    expect(org.logs.filter((l) => l.includes(`bot ${bot.id} `))).toEqual([expect.stringContaining('refused')]);
  });
});

describe('outgoing webhooks of serve to allowed addresses', () => {
  it('reaches an allowed address (a webhook listen) and no other port of the machine; --allow-private-webhooks reaches all', async () => {
    const allowed = await receiver((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"content":"heard"}'));
    const other = await receiver((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"content":"secret"}'));
    const narrow = createTestOrg({ webhookDestinations: destinationsForServe(false, [`127.0.0.1:${allowed.port}`]) });
    const wide = createTestOrg({ webhookDestinations: destinationsForServe(true) });
    try {
      const mention = async (org: TestOrg, port: number) => {
        const ann = org.addUser({ name: 'Ann' });
        const bot = org.addUser({ name: `Port Bot ${port}`, bot: { type: 3, ownerId: org.owner.id, url: `http://127.0.0.1:${port}/` } });
        await (await clientFor(org, 'http', ann)).call(sendMessage, { type: 'direct', to: JSON.stringify([bot.id]), content: 'hello' });
        await org.router.drain();
        return (org.db.prepare('SELECT content FROM messages WHERE sender_id = ? ORDER BY id').all(bot.id) as { content: string }[]).map((m) => m.content);
      };
      expect(await mention(narrow, allowed.port)).toEqual(['heard']);
      expect((await mention(narrow, other.port))[0]).toBe('Failure! Third party responded with 407');
      expect(other.hits()).toBe(0);
      expect(await mention(wide, other.port)).toEqual(['secret']);
    } finally {
      await narrow.close();
      await wide.close();
      await stop(allowed.server);
      await stop(other.server);
    }
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
