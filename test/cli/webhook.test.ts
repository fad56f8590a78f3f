import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/api/operations/messages.js';
import { main } from '../../src/cli/entry/main.js';
import { interpretReply } from '../../src/cli/webhook/deliver.js';
import { type CliResult, cliTarget, expectUsageError, jsonLines, parse, runCli, Sink, tempHome } from '../helpers/cli.js';
import { createTestOrg, TestClock, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

type Payload = Record<string, unknown> & { message: Record<string, unknown> };

interface Listening {
  url: string;
  /** Settles when the command returns. */
  done: Promise<CliResult>;
  stop(): void;
  stderr(): string;
}

/** Runs `webhook listen` on a free port in this process, until it stops by itself or stop() (Ctrl-C). */
async function startListen(args: string[], o: { tty?: boolean; env?: Record<string, string> } = {}): Promise<Listening> {
  const stdout = new Sink();
  const stderr = new Sink();
  const stdin = new PassThrough();
  stdin.end();
  const controller = new AbortController();
  const env = { ...(o.env ?? tempHome().env), NO_COLOR: '1' };
  const done = main(['webhook', 'listen', '--port', '0', ...args], {
    io: { stdin, stdout, stderr, stdinIsTTY: Boolean(o.tty), stdoutIsTTY: Boolean(o.tty), stderrIsTTY: Boolean(o.tty), columns: 120 },
    env,
    signal: controller.signal,
  }).then((code) => ({ code, stdout: stdout.text, stderr: stderr.text }));
  let finished = false;
  void done.then(() => (finished = true));
  for (;;) {
    const url = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr.text)?.[1];
    if (url) return { url, done, stop: () => controller.abort(), stderr: () => stderr.text };
    if (finished) throw new Error(`webhook listen did not start: ${stderr.text}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** An integration that answers every POST with `status` and `body`. */
async function fakeIntegration(status: number, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'text/plain' }).end(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

describe('webhook: parsing', () => {
  it('maps argv to options', async () => {
    const t = await parse([
      'webhook',
      'trigger',
      '--url',
      'http://x.test/',
      '--bot',
      'b@x.test',
      '--trigger',
      'direct_message',
      '--message-id',
      '5',
      '--token',
      'T',
      '--dry-run',
    ]);
    expect(t.opts).toMatchObject({ url: 'http://x.test/', bot: 'b@x.test', trigger: 'direct_message', messageId: 5, token: 'T', dryRun: true });
    const l = await parse(['webhook', 'listen', '--reply', 'hi', '--count', '2', '--token', 'T']);
    expect(l.opts).toMatchObject({ port: 8080, host: '127.0.0.1', reply: 'hi', count: 2, token: 'T' });
    const p = await parse(['webhook', 'payload', '12', '--bot', '7']);
    expect(p.opts).toMatchObject({ messageId: 12, bot: '7' });
  });

  it.each([
    [['webhook', 'trigger'], '--url is required'],
    [['webhook', 'trigger', '--url', 'ftp://x.test/'], '--url takes an http or https URL, not "ftp://x.test/"'],
    [['webhook', 'trigger', '--url', 'not a url'], '--url takes an http or https URL'],
    [['webhook', 'trigger', '--url', 'http://x.test/', '--trigger', 'reaction'], "argument 'reaction' is invalid. Allowed choices are mention, direct_message"],
    [['webhook', 'trigger', '--url', 'http://x.test/', '--message-id', 'last'], 'message IDs are numbers, not "last"'],
    [['webhook', 'payload', '12'], '--bot is required'],
    [['webhook', 'payload', 'x', '--bot', '7'], 'message IDs are numbers, not "x"'],
    [['webhook', 'listen', '--port', 'http'], '--port takes a port number, not "http"'],
    [['webhook', 'listen', '--count', '0'], '--count takes a number of payloads (1 or more), not "0"'],
    [['webhook', 'trigger', '--url', 'http://x.test/', '--fields', 'reply'], 'unknown field "reply"'],
    // The address a serve lets its bots reach (src/api/webhook-addresses.ts): an IP, never a name or a network.
    [['serve', '--allow-webhook-address', 'localhost:8080'], '--allow-webhook-address takes an IP address or IP:PORT ([IPv6]:PORT), not "localhost:8080"'],
    [['serve', '--allow-webhook-address', '10.0.0.0/8'], '--allow-webhook-address takes an IP address or IP:PORT'],
    [['serve', '--trusted-proxy', 'proxy.local'], '--trusted-proxy takes an IP address, not "proxy.local"'],
    [['serve', '--trusted-proxy', '10.0.0.0/8'], '--trusted-proxy takes an IP address, not "10.0.0.0/8"'],
  ])('%j is a usage error', expectUsageError);

  it('reads serve --trusted-proxy, repeated', async () => {
    const s = await parse(['serve', '--trusted-proxy', '10.0.0.5', '--trusted-proxy', '::1']);
    expect(s.opts).toMatchObject({ trustedProxy: ['10.0.0.5', '::1'] });
  });

  it('reads serve --allow-webhook-address, repeated', async () => {
    const s = await parse(['serve', '--allow-webhook-address', '127.0.0.1:8080', '--allow-webhook-address', '[::1]:9000']);
    expect(s.opts).toMatchObject({ allowWebhookAddress: ['127.0.0.1:8080', '[::1]:9000'] });
  });
});

describe('webhook trigger and listen, without a server', () => {
  it('trigger sends a sample payload that listen prints as one JSON line, and shows the reply', async () => {
    const listen = await startListen(['--count', '1']);
    const r = await runCli(['webhook', 'trigger', '--url', listen.url]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('200\t{"response_not_required":true}\tnothing is posted (response_not_required)\n');
    const heard = await listen.done;
    expect(heard.code).toBe(0);
    const [payload] = jsonLines(heard.stdout) as Payload[];
    expect(payload).toMatchObject({
      bot_email: 'outgoing-bot@example.com',
      bot_full_name: 'Outgoing Bot',
      trigger: 'mention',
      token: null,
      data: '@**Outgoing Bot** Hello from chatctl webhook trigger!',
    });
    expect(payload!.message).toMatchObject({
      type: 'stream',
      display_recipient: 'general',
      subject: 'chatctl test',
      content: payload!.data,
      content_type: 'text/x-markdown',
    });
    expect(payload!.message.rendered_content).toContain('<span class="user-mention" data-user-id="0">@Outgoing Bot</span>');
    expect(heard.stderr).toMatch(
      /^chatctl: listening for outgoing-webhook payloads at http:\/\/127\.0\.0\.1:(\d+)\/ \(Ctrl-C to stop\)\nchatctl: a chatctl serve reaches it with --allow-webhook-address 127\.0\.0\.1:\1\nchatctl: received 1 payload\n$/,
    );
  });

  it('listen refuses a wrong token with 401 and a warning, accepts the right one, and replies with --reply', async () => {
    const listen = await startListen(['--token', 'sekrit-token', '--reply', 'Got it!', '--count', '1']);
    const wrong = await runCli(['webhook', 'trigger', '--url', listen.url, '--token', 'guess', '--trigger', 'direct_message', '--json']);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toEqual({
      status: 401,
      body: { result: 'error', msg: 'Invalid token' },
      effect: 'Failure! Third party responded with 401',
    });
    expect(JSON.parse(wrong.stderr)).toMatchObject({ error: { message: 'the server would report: Failure! Third party responded with 401', exit_code: 1 } });
    const right = await runCli(['webhook', 'trigger', '--url', listen.url, '--token', 'sekrit-token', '--trigger', 'direct_message', '--json']);
    expect(right.code).toBe(0);
    expect(JSON.parse(right.stdout)).toEqual({ status: 200, body: { content: 'Got it!' }, effect: 'the bot posts: Got it!' });
    const heard = await listen.done;
    const payloads = jsonLines(heard.stdout) as Payload[];
    expect(payloads).toHaveLength(1);
    expect(payloads[0]).toMatchObject({ token: 'sekrit-token', trigger: 'direct_message', message: { type: 'private', subject: '' } });
    expect(heard.stderr).toMatch(/chatctl: warning: refused a payload with a wrong token from 127\.0\.0\.1/);
    expect(heard.stderr + heard.stdout).not.toContain('guess');
  });

  it('listen prints indented JSON on a terminal, refuses what is not a payload, and stops on Ctrl-C', async () => {
    const listen = await startListen([], { tty: true });
    expect((await fetch(listen.url)).status).toBe(405);
    const notJson = await fetch(listen.url, { method: 'POST', body: 'hello' });
    expect(notJson.status).toBe(400);
    const ok = await fetch(listen.url, { method: 'POST', body: JSON.stringify({ data: 'hi', token: 'x' }) });
    expect(await ok.json()).toEqual({ response_not_required: true });
    listen.stop();
    const heard = await listen.done;
    expect(heard.code).toBe(0);
    expect(heard.stdout).toBe('{\n  "data": "hi",\n  "token": "x"\n}\n');
    expect(heard.stderr).toContain('chatctl: warning: refused a request whose body is not a JSON object');
    expect(heard.stderr).toContain('chatctl: received 1 payload\n');
  });

  it('trigger --dry-run prints the request, token masked, and sends nothing', async () => {
    const listen = await startListen([]);
    const r = await runCli(['webhook', 'trigger', '--url', listen.url, '--token', 'sekrit-token', '--dry-run']);
    listen.stop();
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout) as { method: string; url: string; body: Payload };
    expect(printed).toMatchObject({ method: 'POST', url: listen.url, body: { token: '********', trigger: 'mention', bot_email: 'outgoing-bot@example.com' } });
    expect(r.stdout + r.stderr).not.toContain('sekrit-token');
    expect((await listen.done).stdout).toBe('');
  });

  it('reads replies as the server would: invalid JSON and server errors are failures (exit 1)', async () => {
    const text = await fakeIntegration(200, 'OK');
    const bad = await runCli(['webhook', 'trigger', '--url', text.url]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('200\tOK\tFailure! Invalid JSON in response\n');
    text.server.close();
    const broken = await fakeIntegration(500, '{"error":"boom"}');
    const five = await runCli(['webhook', 'trigger', '--url', broken.url, '--json']);
    expect(five.code).toBe(1);
    expect(JSON.parse(five.stdout)).toEqual({ status: 500, body: { error: 'boom' }, effect: 'Failure! Third party responded with 500' });
    broken.server.close();
    expect(interpretReply(200, '""').effect).toBe('nothing is posted');
    expect(interpretReply(200, 'null')).toMatchObject({ effect: 'Failure! Invalid response format', failed: true });
    expect(interpretReply(200, '{"response_string":"legacy"}').effect).toBe('the bot posts: legacy');
    expect(interpretReply(200, '{"content":"   "}').effect).toBe('nothing is posted (no content)');
  });

  it('exits 75 when the integration cannot be reached', async () => {
    const gone = await fakeIntegration(200, '{}');
    await new Promise<void>((r) => gone.server.close(() => r()));
    const r = await runCli(['webhook', 'trigger', '--url', gone.url]);
    expect(r.code).toBe(75);
    expect(r.stderr).toContain(`chatctl: cannot deliver to ${gone.url}: the connection was refused (nothing listens at that address and port)`);
  });

  it('listen says so when the port is taken', async () => {
    const busy = await fakeIntegration(200, '{}');
    const port = new URL(busy.url).port;
    const r = await runCli(['webhook', 'listen', '--port', port]);
    busy.server.close();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`chatctl: cannot listen on 127.0.0.1:${port}: the port is in use`);
  });
});

describe.each(TRANSPORTS)('webhook commands against an organization over %s', (kind) => {
  let org: TestOrg;
  let member: TestUser;
  beforeAll(() => {
    org = createTestOrg({ clock: new TestClock(Math.floor(Date.now() / 1000)) });
    member = org.addUser({ name: 'Mia Member' });
  });
  afterAll(() => org.close());

  const send = async (content: string, to: 'general' | TestUser[] = 'general') => {
    const client = await clientFor(org, kind, member);
    const res =
      to === 'general'
        ? await client.call(sendMessage, { type: 'stream', to: 'general', topic: 'bots', content })
        : await client.call(sendMessage, { type: 'direct', to: JSON.stringify(to.map((u) => u.id)), content });
    return res.id;
  };
  const tokenOf = (bot: TestUser) => org.db.prepare('SELECT service_token FROM users WHERE id = ?').pluck().get(bot.id) as string;

  it('the server delivers to listen what webhook payload shows, and posts the reply', async () => {
    const listen = await startListen(['--count', '1', '--reply', 'pong']);
    const bot = org.addUser({ name: 'Echo Bot', bot: { type: 3, ownerId: org.owner.id, url: listen.url } });
    const id = await send('@**Echo Bot** ping');
    const heard = await listen.done;
    expect(heard.code).toBe(0);
    const [delivered] = jsonLines(heard.stdout) as Payload[];
    expect(delivered).toMatchObject({ bot_email: bot.email, trigger: 'mention', data: '@**Echo Bot** ping', token: tokenOf(bot), message: { id } });

    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'webhook', 'payload', String(id), '--bot', bot.email], { env: t.env });
    expect(r.code).toBe(0);
    const shown = JSON.parse(r.stdout) as Payload;
    // The owner sees the token where the server shows it (register realm_bots); a server without realm_bots
    // (the embedded one, for now) leaves it null, with a note saying so.
    if (shown.token === null)
      expect(r.stderr).toContain(`chatctl: warning: token is null: the token of ${bot.email} is not available (the server did not return realm_bots`);
    else expect(shown.token).toBe(tokenOf(bot));
    expect({ ...shown, token: delivered!.token }).toEqual(delivered);

    await org.router.drain();
    const replies = org.db.prepare('SELECT content FROM messages WHERE sender_id = ?').pluck().all(bot.id);
    expect(replies).toEqual(['pong']);
  });

  it('shows an empty topic as "", as the server sends it', async () => {
    const listen = await startListen(['--count', '1']);
    const bot = org.addUser({ name: 'Topic Bot', bot: { type: 3, ownerId: org.owner.id, url: listen.url } });
    const { id } = await (await clientFor(org, kind, member)).call(sendMessage, { type: 'stream', to: 'general', topic: '', content: '@**Topic Bot** hi' });
    const [delivered] = jsonLines((await listen.done).stdout) as Payload[];
    expect(delivered!.message).toMatchObject({ id, subject: '' });
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'webhook', 'payload', String(id), '--bot', bot.email], { env: t.env });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Payload).message).toEqual(delivered!.message);
  });

  it('payload by bot ID for a direct message, trigger direct_message; a member sees no token', async () => {
    const bot = org.addUser({ name: 'Helper Bot', bot: { type: 3, ownerId: org.owner.id, url: 'http://127.0.0.1:9/' } });
    const id = await send('help me', [bot]);
    const t = await cliTarget(org, kind, member);
    const r = await runCli([...t.args, 'webhook', 'payload', String(id), '--bot', String(bot.id)], { env: t.env });
    expect(r.code).toBe(0);
    const shown = JSON.parse(r.stdout) as Payload;
    expect(shown).toMatchObject({ bot_email: bot.email, bot_full_name: 'Helper Bot', trigger: 'direct_message', token: null, data: 'help me' });
    expect(shown.message).toMatchObject({ id, type: 'private', content: 'help me', rendered_content: '<p>help me</p>', content_type: 'text/x-markdown' });
    expect(shown.message).not.toHaveProperty('flags');
    expect(r.stderr).toMatch(
      new RegExp(
        `chatctl: warning: token is null: the token of ${bot.email} is not available \\((it is shown only to the bot's owner and administrators|the server did not return realm_bots from POST /register)\\)`,
      ),
    );
  });

  it('warns when the message would not trigger the bot, and refuses what is not a bot', async () => {
    const bot = org.addUser({ name: 'Quiet Bot', bot: { type: 3, ownerId: org.owner.id, url: 'http://127.0.0.1:9/' } });
    const id = await send('no mention here, only @_**Quiet Bot** silently');
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'webhook', 'payload', String(id), '--bot', bot.email], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`message ${id} does not trigger ${bot.email}: it is neither a direct message to the bot nor mentions it`);
    expect(JSON.parse(r.stdout)).toMatchObject({ trigger: 'mention' });
    const human = await runCli([...t.args, 'webhook', 'payload', String(id), '--bot', member.email], { env: t.env });
    expect(human.code).toBe(2);
    expect(human.stderr).toContain(`${member.email} is not a bot`);
    const missing = await runCli([...t.args, 'webhook', 'payload', '999999', '--bot', bot.email], { env: t.env });
    expect(missing.code).toBe(6);
    const nobody = await runCli([...t.args, 'webhook', 'payload', String(id), '--bot', 'ghost@example.com'], { env: t.env });
    expect(nobody.code).toBe(6);
  });

  it("trigger sends a real message as the bot's payload, and a sample from you otherwise", async () => {
    const bot = org.addUser({ name: 'Relay Bot', bot: { type: 3, ownerId: org.owner.id, url: 'http://127.0.0.1:9/' } });
    const id = await send('@**Relay Bot** relay this');
    const listen = await startListen(['--count', '2']);
    const t = await cliTarget(org, kind);
    const real = await runCli([...t.args, 'webhook', 'trigger', '--url', listen.url, '--bot', bot.email, '--message-id', String(id), '--token', 'tok'], {
      env: t.env,
    });
    expect(real.code).toBe(0);
    const sample = await runCli(
      [...t.args, 'webhook', 'trigger', '--url', listen.url, '--bot', String(bot.id), '--trigger', 'direct_message', '--token', 'tok'],
      { env: t.env },
    );
    expect(sample.code).toBe(0);
    const [fromMessage, fromSample] = jsonLines((await listen.done).stdout) as Payload[];
    expect(fromMessage).toMatchObject({
      bot_email: bot.email,
      bot_full_name: 'Relay Bot',
      trigger: 'mention',
      token: 'tok',
      data: '@**Relay Bot** relay this',
      message: { id, sender_id: member.id },
    });
    expect(fromSample).toMatchObject({
      bot_email: bot.email,
      trigger: 'direct_message',
      message: { type: 'private', sender_id: org.owner.id, sender_email: org.owner.email },
    });
    expect((fromSample!.message.display_recipient as { id: number }[]).map((r) => r.id).sort()).toEqual([org.owner.id, bot.id].sort());
  });
});

describe('webhook trigger --dry-run against a server', () => {
  let org: TestOrg;
  beforeAll(() => (org = createTestOrg()));
  afterAll(() => org.close());

  it("sends nothing that changes the server: the bot's token is not read (that takes POST /register)", async () => {
    const bot = org.addUser({ name: 'Dry Bot', bot: { type: 3, ownerId: org.owner.id, url: 'http://127.0.0.1:9/' } });
    const t = await cliTarget(org, 'http');
    const seen: string[] = [];
    const answer = org.router.answer.bind(org.router);
    org.router.answer = (req, signal, o) => {
      seen.push(`${req.method} ${req.path}`);
      return answer(req, signal, o);
    };
    try {
      const r = await runCli([...t.args, 'webhook', 'trigger', '--url', 'http://127.0.0.1:9/', '--bot', bot.email, '--dry-run'], { env: t.env });
      expect(r.code).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter((s) => !s.startsWith('GET '))).toEqual([]);
      expect(JSON.parse(r.stdout)).toMatchObject({ method: 'POST', body: { bot_email: bot.email, token: '********' } });
    } finally {
      org.router.answer = answer;
    }
  });
});
