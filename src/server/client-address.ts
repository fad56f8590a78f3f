/**
 * The address a request comes from, for what `serve` keeps per address (failed logins, unauthenticated rate
 * limits, connections): the connecting socket's, unless that is a proxy the operator trusts (`serve
 * --trusted-proxy ADDR`). Then it is the right-most address of X-Forwarded-For that is not itself a trusted
 * proxy, as a Zulip server's nginx finds it for the proxies named in its `[loadbalancer] ips`
 * (docs/production/reverse-proxies.md; realip's set_real_ip_from with real_ip_recursive on). Addresses a
 * client wrote further left are never taken: anyone can write that header. Without trusted proxies it is
 * never read.
 */
import { isIP } from 'node:net';
import { parseAllowedAddress } from '../api/webhook-addresses.js';

/** The eight groups of an IPv6 address, `::` filled in, each without leading zeros. */
export function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]!.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0');
  return [...left, ...fill, ...right].map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
}

/** One spelling of an address: an IPv4-mapped IPv6 address as IPv4, IPv6 with its groups written out. */
export function canonicalAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  return address.includes(':') ? expandIpv6(address).join(':') : address;
}

/** The proxies `serve` was told to trust, in canonical spelling. */
export type TrustedProxies = ReadonlySet<string>;

export const trustedProxies = (addresses: readonly string[]): TrustedProxies => new Set(addresses.map(canonicalAddress));

export const isTrustedProxy = (trusted: TrustedProxies, address: string | undefined): boolean =>
  trusted.size > 0 && address !== undefined && trusted.has(canonicalAddress(address));

/** An X-Forwarded-For entry's address (a proxy may add a port), or undefined for what is none. */
function hopAddress(entry: string): string | undefined {
  if (isIP(entry)) return entry;
  return parseAllowedAddress(entry)?.ip;
}

/** The client a request on a socket from `socket` stands for (see above). */
export function clientAddress(socket: string | undefined, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string | undefined {
  if (!isTrustedProxy(trusted, socket)) return socket;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '')).split(',').map((h) => h.trim());
  let client = socket;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hopAddress(hops[i]!);
    // What is no address ends the walk: nothing left of it can be told apart from what a client wrote.
    if (hop === undefined) break;
    client = hop;
    if (!isTrustedProxy(trusted, hop)) break;
  }
  return client;
}
