#!/usr/bin/env node
// The reference of bench/serve-rps.mjs: a bare node:http server answering every request with the status,
// headers and body in BENCH_BARE_RESPONSE (JSON), written the way `serve` writes its answers (writeHead,
// then end), so the bytes on the wire are the same but for the Date header's value. Prints its URL.
// BENCH_BARE_WORK_US: microseconds of busy work before each answer (0), for a server that does something.
import { createServer } from 'node:http';

const { status, headers, body } = JSON.parse(process.env.BENCH_BARE_RESPONSE);
const workMs = Number(process.env.BENCH_BARE_WORK_US ?? 0) / 1000;
const server = createServer((_req, res) => {
  const started = performance.now();
  while (performance.now() - started < workMs);
  res.writeHead(status, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
