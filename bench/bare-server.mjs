#!/usr/bin/env node
// The reference of bench/serve-rps.mjs and bench/serve-everyday.mjs: a bare node:http server answering every
// request with the status, headers and body in BENCH_BARE_RESPONSE (JSON), or, with BENCH_BARE_RESPONSES (JSON
// of "METHOD /path" → answer, the path without its query), the answer for the request's method and path;
// written the way `serve` writes its answers (writeHead, then end) once the request's body has been read, so
// the bytes on the wire are the same but for the Date header's value. Prints its URL.
// BENCH_BARE_WORK_US: microseconds of busy work before each answer (0), for a server that does something.
import { createServer } from 'node:http';

const one = process.env.BENCH_BARE_RESPONSE ? JSON.parse(process.env.BENCH_BARE_RESPONSE) : undefined;
const byRoute = new Map(Object.entries(JSON.parse(process.env.BENCH_BARE_RESPONSES ?? '{}')));
const workMs = Number(process.env.BENCH_BARE_WORK_US ?? 0) / 1000;
const server = createServer((req, res) => {
  const answer = () => {
    const started = performance.now();
    while (performance.now() - started < workMs);
    const query = req.url.indexOf('?');
    const found = one ?? byRoute.get(`${req.method} ${query < 0 ? req.url : req.url.slice(0, query)}`);
    if (!found) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(found.status, found.headers);
    res.end(found.body);
  };
  const carriesBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!carriesBody) return answer();
  req.resume();
  req.once('end', answer);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
