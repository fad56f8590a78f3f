/**
 * Which networks an outgoing webhook may reach (destinations.ts checks them at delivery). Apart from the
 * checks, so that the router can name its default without loading DNS, sockets and the address lists.
 */
export interface WebhookDestinations {
  /** This machine: 127.0.0.0/8, ::1, and the unspecified addresses, which connect here too. */
  loopback: boolean;
  /**
   * Private, shared (CGNAT), link-local (cloud metadata lives there), benchmarking, documentation, multicast
   * and reserved networks, and the IPv6 forms that carry an IPv4 address of any of them (6to4, NAT64, Teredo).
   */
  internal: boolean;
  /**
   * Addresses allowed whatever their network, each `IP` or `IP:PORT` (`[IPv6]:PORT`), as a Zulip server's
   * `[http_proxy] allow_addresses` lets Smokescreen through to them: `serve --allow-webhook-address`.
   */
  addresses?: readonly string[];
}

/** The in-process transport runs on a person's own machine, whose own services are theirs to call. */
export const IN_PROCESS_DESTINATIONS: WebhookDestinations = { loopback: true, internal: false };
