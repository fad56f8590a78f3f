/**
 * Where an outgoing webhook may go: a policy, as a Zulip server's Smokescreen proxy is one. A bot's URL is
 * chosen by whoever owns the bot, so without it any member could make the server call services that only
 * it can reach (a database's admin port, a cloud metadata service) and read their answers in the failure
 * notices. Checked at delivery time on the addresses actually connected to: the host name is resolved and
 * every address it gives must be allowed, and the connection uses those same addresses, so a name that
 * resolves differently on a second lookup gains nothing.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { WebhookDestinations } from './destination-policy.js';

const subnets = (list: [string, number][]): BlockList => {
  const b = new BlockList();
  for (const [net, prefix] of list) b.addSubnet(net, prefix, net.includes(':') ? 'ipv6' : 'ipv4');
  return b;
};

const LOOPBACK = subnets([
  ['127.0.0.0', 8],
  ['0.0.0.0', 8],
  ['::1', 128],
  ['::', 128],
]);

const INTERNAL = subnets([
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
]);

const family = (ip: string): 'ipv4' | 'ipv6' => (isIP(ip) === 6 ? 'ipv6' : 'ipv4');

/** Whether `policy` lets a webhook connect to the IP address `ip`. */
export function destinationAllowed(policy: WebhookDestinations, ip: string): boolean {
  if (LOOPBACK.check(ip, family(ip))) return policy.loopback;
  if (INTERNAL.check(ip, family(ip))) return policy.internal;
  return true;
}

/** The policy of `chatctl serve --host HOST`: loopback targets only when it listens on loopback itself. */
export function destinationsForServe(host: string, allowPrivate: boolean): WebhookDestinations {
  if (allowPrivate) return { loopback: true, internal: true };
  const bare = host.replace(/^\[|\]$/g, '');
  const onLoopback = bare === 'localhost' || (isIP(bare) !== 0 && bare !== '0.0.0.0' && bare !== '::' && LOOPBACK.check(bare, family(bare)));
  return { loopback: onLoopback, internal: false };
}

/** A connection refused by the policy before it was made. */
export class DestinationRefused extends Error {
  constructor(readonly address: string) {
    super(`${address} is a private or disallowed address`);
    this.name = 'DestinationRefused';
  }
}

/** A `lookup` for sockets that resolves as usual and refuses when any address is not allowed. */
export function vettedLookup(policy: WebhookDestinations): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((a) => !destinationAllowed(policy, a.address));
      if (refused) return callback(new DestinationRefused(refused.address), '', 0);
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
