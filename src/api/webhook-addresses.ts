/**
 * An address outgoing webhooks may reach whatever its network (`serve --allow-webhook-address`), as a Zulip
 * server's `[http_proxy] allow_addresses` spells it: IP or IP:PORT, an IPv6 address bracketed when it has a
 * port. Read by the CLI, to refuse a bad one before serving, and by the server's destination policy.
 */
import { isIP } from 'node:net';

/** The address and port `text` names, or null when it names none. */
export function parseAllowedAddress(text: string): { ip: string; port?: number } | null {
  if (isIP(text)) return { ip: text };
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text);
  const ip = m?.[1] ?? m?.[2] ?? '';
  const port = Number(m?.[3]);
  return isIP(ip) && port >= 1 && port <= 65535 ? { ip, port } : null;
}
