/**
 * A stand-in integration for outgoing webhooks: an HTTP server that takes the payloads a Zulip-compatible
 * server POSTs, checks their token, hands each to the caller, and answers as an integration would.
 */
import { timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isPlainObject } from '../../api/schema.js';
import { systemReason } from '../../errno.js';
import { ChatctlError } from '../core/errors.js';

/** Payloads are a message and a few fields; anything far larger is not one. */
const MAX_BODY_BYTES = 5 * 1024 * 1024;

export interface ListenOptions {
  host: string;
  port: number;
  /** The token payloads must carry; unchecked when absent. */
  token?: string;
  /** Posted back to the conversation by the bot; otherwise the reply asks for no response. */
  reply?: string;
  /** Stop after this many accepted payloads. */
  count?: number;
  signal: AbortSignal;
  onListening(url: string): void;
  onPayload(payload: Record<string, unknown>): void;
  /** A request that was refused (wrong token, not JSON ...), for a warning. */
  onReject(reason: string): void;
}

const sameToken = (given: unknown, expected: string): boolean => {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

async function readBody(req: IncomingMessage): Promise<string | null> {
  // A request read with no encoding set yields Buffers.
  const body: AsyncIterable<Buffer> = req;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Serves until the signal aborts or `count` payloads were accepted; returns how many were. */
export async function listenForPayloads(o: ListenOptions): Promise<number> {
  let accepted = 0;
  // Once stopping, every answer closes its connection, so no keep-alive socket holds the server open.
  let closing = false;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const from = (req: IncomingMessage) => `from ${req.socket.remoteAddress ?? 'an unknown address'}`;
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', ...(closing ? { connection: 'close' } : {}) });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const text = await readBody(req);
      if (text === null) {
        o.onReject(`refused a request larger than ${MAX_BODY_BYTES} bytes ${from(req)}`);
        answer(res, 413, { result: 'error', msg: 'Payload too large' });
        return;
      }
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        payload = undefined;
      }
      if (!isPlainObject(payload)) {
        o.onReject(`refused a request whose body is not a JSON object ${from(req)}`);
        answer(res, 400, { result: 'error', msg: 'Expected a JSON object' });
        return;
      }
      const body = payload;
      if (o.token !== undefined && !sameToken(body.token, o.token)) {
        o.onReject(`refused a payload with ${typeof body.token === 'string' ? 'a wrong' : 'no'} token ${from(req)}`);
        answer(res, 401, { result: 'error', msg: 'Invalid token' });
        return;
      }
      if (closing) {
        answer(res, 503, { result: 'error', msg: 'Shutting down' });
        return;
      }
      accepted++;
      o.onPayload(body);
      if (o.count !== undefined && accepted >= o.count) {
        closing = true;
        finish();
      }
      answer(res, 200, o.reply !== undefined ? { content: o.reply } : { response_not_required: true });
    })().catch((e: unknown) => {
      o.onReject(`failed to handle a request: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) answer(res, 500, { result: 'error', msg: 'Internal error' });
    });
  });

  server.listen(o.port, o.host);
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([e]) => Promise.reject(e))]);
  } catch (e) {
    const inUse = e instanceof Error && 'code' in e && e.code === 'EADDRINUSE';
    throw new ChatctlError(
      `cannot listen on ${o.host}:${o.port}: ${inUse ? 'the port is in use' : systemReason(e)}`,
      'failure',
      inUse ? 'pick another with --port (0: any free port)' : undefined,
    );
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  o.onListening(`http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}/`);

  const onAbort = () => finish();
  o.signal.addEventListener('abort', onAbort, { once: true });
  if (o.signal.aborted) finish();
  await finished;
  o.signal.removeEventListener('abort', onAbort);
  closing = true;
  // Answers being written finish (and close their connections); idle keep-alive connections go now.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
  return accepted;
}
