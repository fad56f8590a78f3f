import { once } from 'node:events';
import { isIP } from 'node:net';
import { parseAllowedAddress } from '../../api/webhook-addresses.js';
import { defineCommand } from '../command/command.js';
import { embeddedTarget } from '../target/embedded-target.js';
import { usageError } from '../core/errors.js';
import { flag } from '../core/flags.js';

export const commands = [
  defineCommand({
    path: ['serve'],
    summary: 'serve the embedded organization over HTTP, so any Zulip client can use it',
    description:
      'Serves the embedded implementation at http://HOST:PORT/api/v1 (loopback by default), one log line per request ' +
      'on stderr. Stops cleanly on Ctrl-C or SIGTERM. The same data dir can be used by chatctl commands meanwhile. ' +
      'With --rate-limit it enforces the API rate limits of a current Zulip server (200 requests a minute and 2,000 an hour ' +
      'per user, 100 a minute per address without authentication) with the same X-RateLimit-* headers and 429 replies, ' +
      "counted in this process's memory. It serves the data dir of the target (--data-dir, --profile, CHATCTL_DATA_DIR, " +
      'the default profile); a target that is a server is refused, and a data dir without an organization too. ' +
      'Outgoing webhooks reach only the public Internet, as a Zulip server behind its Smokescreen proxy: never this ' +
      'machine (any spelling of loopback), private, link-local, shared, benchmarking, multicast or reserved addresses, ' +
      'checked on the address connected to after DNS. --allow-webhook-address IP[:PORT] lets them reach one address ' +
      '(a chatctl webhook listen, say); --allow-private-webhooks lets them reach all.\n\n' +
      'What is limited per address (failed logins, requests without authentication, connections) is limited ' +
      'per client address. Behind a reverse proxy, name it with ' +
      '--trusted-proxy ADDR (repeatable), as a Zulip server names its own in [loadbalancer] ips: for requests ' +
      'from it the client is the right-most X-Forwarded-For address that is not itself a trusted proxy, and the ' +
      "proxy's connections are held to the total cap alone. Without it the header is never read (anyone can " +
      'write it), and every client behind a proxy shares its address.',
    examples: [
      'chatctl serve',
      'chatctl serve --port 8080 --data-dir ~/chat',
      'chatctl serve --rate-limit',
      'chatctl serve --allow-webhook-address 127.0.0.1:8080',
      'chatctl serve --host 0.0.0.0 --trusted-proxy 10.0.0.5   # behind nginx on 10.0.0.5',
      'curl -u owner@localhost:$KEY http://127.0.0.1:9991/api/v1/users',
    ],
    options: {
      host: flag.string('--host <host>', 'the address to listen on', { default: '127.0.0.1' }),
      port: flag.port('--port <port>', 'the port to listen on (0: any free port)', { default: 9991 }),
      rateLimit: flag.bool('--rate-limit', "enforce a Zulip server's default API rate limits"),
      allowPrivateWebhooks: flag.bool('--allow-private-webhooks', 'let outgoing webhooks call loopback, private and link-local addresses'),
      allowWebhookAddress: flag.list('--allow-webhook-address <address>', 'let outgoing webhooks call this IP or IP:PORT (repeatable)', (value, name) => {
        if (!parseAllowedAddress(value)) throw usageError(`${name} takes an IP address or IP:PORT ([IPv6]:PORT), not "${value}"`);
        return value;
      }),
      trustedProxy: flag.list(
        '--trusted-proxy <address>',
        'a proxy in front of serve (an IP address, repeatable): its X-Forwarded-For names the client, for the limits kept per address',
        (value, name) => {
          if (!isIP(value)) throw usageError(`${name} takes an IP address, not "${value}"`);
          return value;
        },
      ),
    },
    async run(opts, ctx) {
      const { host, port, rateLimit } = opts;
      const target = embeddedTarget(ctx, 'serve');
      const dataDir = target.dataDir;
      const { openStore, noteOn } = await import('../target/data-dir.js');
      const organization = await openStore(dataDir, { create: false, source: target.source, warn: noteOn(ctx) });
      try {
        const serving = await organization.serve({
          host,
          port,
          rateLimit: rateLimit,
          allowPrivateWebhooks: opts.allowPrivateWebhooks,
          allowWebhookAddresses: opts.allowWebhookAddress,
          trustedProxies: opts.trustedProxy,
          write: (text) => ctx.io.stderr.write(text),
        });
        ctx.info(`chatctl: serving ${dataDir} at ${serving.url}/api/v1${rateLimit ? ' with rate limits' : ''} (Ctrl-C to stop)`);
        if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
        ctx.info('chatctl: stopping');
        await serving.stop();
      } finally {
        await organization.close();
      }
    },
  }),
];
