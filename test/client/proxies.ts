/**
 * Local proxies for transport tests: a CONNECT proxy (tunnels, for HTTPS origins) and an HTTP forward
 * proxy (absolute-URI requests, for plain-HTTP origins). Both only reach 127.0.0.1 and log what they saw.
 */
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface TestProxy {
  url: string;
  /** `CONNECT host:port`, or `GET http://...` lines, in arrival order. */
  seen: string[];
  close(): Promise<void>;
}

async function listen(server: Server, seen: string[]): Promise<TestProxy> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A CONNECT proxy; `refuse` answers every CONNECT with that status instead of tunnelling. */
export function startConnectProxy(opts: { refuse?: number } = {}): Promise<TestProxy> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(405).end();
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    if (opts.refuse || host !== '127.0.0.1') {
      client.end(`HTTP/1.1 ${opts.refuse ?? 403} Refused\r\n\r\n`);
      return;
    }
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const done = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', done);
    client.on('error', done);
  });
  return listen(server, seen);
}

/** A forward proxy for plain HTTP: takes `GET http://127.0.0.1:port/path` and passes it on. */
export function startForwardProxy(): Promise<TestProxy> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '/', 'http://invalid');
    if (target.hostname !== '127.0.0.1') {
      res.writeHead(403).end();
      return;
    }
    const upstream = request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: { ...req.headers, host: target.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return listen(server, seen);
}
