/**
 * Both transports over one organization: the in-process embedded one and real HTTP on 127.0.0.1. Suites
 * run their cases once per transport with `describe.each(TRANSPORTS)`.
 */
import type { WireRequest, WireResponse } from '../../src/api/wire.js';
import { ChatClient, type Credentials } from '../../src/client/client.js';
import { EmbeddedTransport } from '../../src/client/embedded.js';
import { HttpTransport } from '../../src/client/http.js';
import type { Transport } from '../../src/client/transport.js';
import type { TestOrg, TestUser } from './org.js';

export const TRANSPORTS = ['embedded', 'http'] as const;
export type TransportKind = (typeof TRANSPORTS)[number];

/** A transport whose close() leaves the organization open (the test org owns it). */
class Borrowed implements Transport {
  readonly batch?: Transport['batch'];
  constructor(private readonly inner: Transport) {
    const batch = inner.batch?.bind(inner);
    if (batch) this.batch = batch;
  }
  get target() {
    return this.inner.target;
  }
  get kind() {
    return this.inner.kind;
  }
  send(req: WireRequest, signal?: AbortSignal): Promise<WireResponse> {
    return this.inner.send(req, signal);
  }
  async close(): Promise<void> {}
}

export async function transportFor(org: TestOrg, kind: TransportKind): Promise<Transport> {
  return new Borrowed(kind === 'embedded' ? new EmbeddedTransport(org.router, org.dataDir) : new HttpTransport(await org.http()));
}

/** A client of `org` over `kind`, authenticated as `user` (null: anonymous). */
export async function clientFor(org: TestOrg, kind: TransportKind, user: TestUser | Credentials | null = org.owner): Promise<ChatClient> {
  const creds = user === null ? null : 'apiKey' in user ? { email: user.email, apiKey: user.apiKey } : user;
  return new ChatClient(await transportFor(org, kind), creds);
}

/** Sends a raw request (for wire-level tests) over `kind`. */
export async function rawRequest(
  org: TestOrg,
  kind: TransportKind,
  req: Partial<WireRequest> & { method: string; path: string },
  user: TestUser | null = org.owner,
): Promise<WireResponse> {
  const client = await clientFor(org, kind, user);
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  if (user && !('authorization' in headers)) headers.authorization = `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;
  return client.send({ query: [], body: [], ...req, headers });
}

/** The status and body of a response, to compare an error answer whole. */
export const statusAndBody = (res: WireResponse) => ({ status: res.status, body: res.body });

/**
 * `inner` with every request going through `send` (which may hand it on to `inner.send`): a server's answer
 * changed, or its requests counted, for one test. There is no batch: requests go one by one through `send`.
 */
export const intercepting = (inner: Transport, send: Transport['send']): Transport => ({
  target: inner.target,
  kind: inner.kind,
  close: () => inner.close(),
  send,
});
