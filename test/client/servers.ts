/**
 * Small real servers on 127.0.0.1 for transport tests: they count connections and requests, and close
 * everything they opened (sockets included) when the test is done.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface TestServer {
  url: string;
  port: number;
  server: Server;
  /** Connections accepted so far. */
  connections: number;
  /** Connections still open. */
  readonly open: number;
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  /** Resolves once every connection has closed (bounded by `ms`). */
  idle(ms?: number): Promise<boolean>;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string, n: number) => void;

async function start(server: Server, scheme: 'http' | 'https', handler: Handler): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const t: TestServer = {
    url: '',
    port: 0,
    server,
    connections: 0,
    get open() {
      return sockets.size;
    },
    requests: [],
    async idle(ms = 5000) {
      const until = Date.now() + ms;
      while (sockets.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      return sockets.size === 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  server.on(scheme === 'https' ? 'secureConnection' : 'connection', (socket: Socket) => {
    t.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      t.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body, t.requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.port = (server.address() as AddressInfo).port;
  t.url = `${scheme}://127.0.0.1:${t.port}`;
  return t;
}

export const startServer = (handler: Handler): Promise<TestServer> => start(createHttpServer(), 'http', handler);

export const startHttpsServer = (options: ServerOptions, handler: Handler): Promise<TestServer> => start(createHttpsServer(options), 'https', handler);

/** Writes a JSON reply. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export const SUCCESS = { result: 'success', msg: '' } as const;

/** A port nothing listens on (just closed). */
export async function closedPort(): Promise<number> {
  const s = createHttpServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
