import { once } from 'node:events';
import { defineLegacyCommand, opt } from '../legacy-command.js';
import { embeddedTarget } from '../embedded-target.js';
import { usageError } from '../errors.js';

export const commands = [
  defineLegacyCommand({
    path: ['serve'],
    summary: 'serve the embedded organization over HTTP, so any Zulip client can use it',
    description:
      'Serves the embedded implementation at http://HOST:PORT/api/v1 (loopback by default), one log line per request ' +
      'on stderr. Stops cleanly on Ctrl-C or SIGTERM. The same data dir can be used by chatctl commands meanwhile. ' +
      'With --rate-limit it enforces the API rate limits of a current Zulip server (200 requests a minute and 2,000 an hour ' +
      'per user, 100 a minute per address without authentication) with the same X-RateLimit-* headers and 429 replies, ' +
      'counted in this process\'s memory. It serves the data dir of the target (--data-dir, --profile, CHATCTL_DATA_DIR, ' +
      'the default profile); a target that is a server is refused, and a data dir without an organization too. ' +
      'Outgoing webhooks may call services on this machine only when it listens on a loopback address, and never ' +
      'private or link-local addresses, unless --allow-private-webhooks.',
    examples: ['chatctl serve', 'chatctl serve --port 8080 --data-dir ~/chat', 'chatctl serve --rate-limit', 'curl -u owner@localhost:$KEY http://127.0.0.1:9991/api/v1/users'],
    options: [
      { flags: '--host <host>', description: 'the address to listen on', default: '127.0.0.1' },
      { flags: '--port <port>', description: 'the port to listen on (0: any free port)', default: '9991' },
      { flags: '--rate-limit', description: "enforce a Zulip server's default API rate limits" },
      { flags: '--allow-private-webhooks', description: 'let outgoing webhooks call loopback, private and link-local addresses' },
    ],
    async run(opts, ctx) {
      const port = Number(opt.str(opts, 'port'));
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`--port takes a port number, not "${opt.str(opts, 'port')}"`);
      const host = opt.str(opts, 'host')!;
      const target = embeddedTarget(ctx, 'serve');
      const dataDir = target.dataDir;
      const { openStore, noteOn } = await import('../data-dir.js');
      const organization = await openStore(dataDir, { create: false, source: target.source, warn: noteOn(ctx) });
      try {
        const serving = await organization.serve({
          host,
          port,
          rateLimit: opt.bool(opts, 'rateLimit'),
          allowPrivateWebhooks: opt.bool(opts, 'allowPrivateWebhooks'),
          log: (line) => ctx.io.stderr.write(`${line}\n`),
        });
        ctx.info(`chatctl: serving ${dataDir} at ${serving.url}/api/v1${opt.bool(opts, 'rateLimit') ? ' with rate limits' : ''} (Ctrl-C to stop)`);
        if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
        ctx.info('chatctl: stopping');
        await serving.stop();
      } finally {
        await organization.close();
      }
    },
  }),
];
