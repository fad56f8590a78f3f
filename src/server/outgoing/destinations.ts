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
import { parseAllowedAddress } from '../../api/webhook-addresses.js';
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

// IANA's special-purpose registries (RFC 6890 and its updates), as Smokescreen refuses what is not global unicast.
const INTERNAL = subnets([
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
  // IPv4-compatible (deprecated) forms, and the translation and tunnelling prefixes that embed an IPv4 address.
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
]);

const family = (ip: string): 'ipv4' | 'ipv6' => (isIP(ip) === 6 ? 'ipv6' : 'ipv4');

/** Whether `ip` (and `port`) is one of the policy's allowed addresses. */
function listed(policy: WebhookDestinations, ip: string, port: number): boolean {
  return (policy.addresses ?? []).some((text) => {
    const allowed = parseAllowedAddress(text);
    if (!allowed || (allowed.port !== undefined && allowed.port !== port)) return false;
    // A BlockList of one, so that an IPv4 address and its IPv4-mapped IPv6 form are the same address.
    const one = new BlockList();
    one.addAddress(allowed.ip, family(allowed.ip));
    return one.check(ip, family(ip));
  });
}

/** Whether `policy` lets a webhook connect to the IP address `ip` on `port`. */
export function destinationAllowed(policy: WebhookDestinations, ip: string, port: number): boolean {
  if (LOOPBACK.check(ip, family(ip))) return policy.loopback || listed(policy, ip, port);
  if (INTERNAL.check(ip, family(ip))) return policy.internal || listed(policy, ip, port);
  return true;
}

/**
 * The policy of `chatctl serve`: the public Internet only, as a Zulip server behind Smokescreen, wherever it
 * listens (a member's bot could otherwise reach every service of this machine), unless the operator allows
 * private webhooks or names the addresses allowed.
 */
export function destinationsForServe(allowPrivate: boolean, addresses: readonly string[] = []): WebhookDestinations {
  return allowPrivate ? { loopback: true, internal: true } : { loopback: false, internal: false, addresses };
}

/** A connection refused by the policy before it was made. */
export class DestinationRefused extends Error {
  constructor(readonly address: string) {
    super(`${address} is a private or disallowed address`);
    this.name = 'DestinationRefused';
  }
}

/** A `lookup` for sockets to `port` that resolves as usual and refuses when any address is not allowed. */
export function vettedLookup(policy: WebhookDestinations, port: number): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((a) => !destinationAllowed(policy, a.address, port));
      if (refused) return callback(new DestinationRefused(refused.address), '', 0);
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
