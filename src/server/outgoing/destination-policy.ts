/**
 * Which networks an outgoing webhook may reach (destinations.ts checks them at delivery). Apart from the
 * checks, so that the router can name its default without loading DNS, sockets and the address lists.
 */
export interface WebhookDestinations {
  /** This machine: 127.0.0.0/8, ::1, and the unspecified addresses, which connect here too. */
  loopback: boolean;
  /** Private, shared (CGNAT), link-local (cloud metadata lives there) and multicast networks. */
  internal: boolean;
}

/** The in-process transport runs on a person's own machine, whose own services are theirs to call. */
export const IN_PROCESS_DESTINATIONS: WebhookDestinations = { loopback: true, internal: false };
