#!/usr/bin/env node
// Bulk benchmark (npm run bench:bulk): 200 attachment deletes against a local server that answers each
// DELETE /api/v1/attachments/{id} after 20 ms, one request at a time and through the bounded pool, both
// over the keep-alive connection pool. Prints the median of a few runs of each, the speed-up, and how
// many connections each run opened. Not a test: timings vary with the machine.
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 200);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CONCURRENCY = process.env.BENCH_CONCURRENCY ? Number(process.env.BENCH_CONCURRENCY) : undefined;
const root = fileURLToPath(new URL('..', import.meta.url));

const { ChatClient } = await import(join(root, 'dist/client/client.js'));
const { HttpTransport } = await import(join(root, 'dist/client/http.js'));
const { Pacer } = await import(join(root, 'dist/client/pacing.js'));
const { runPool, DEFAULT_CONCURRENCY } = await import(join(root, 'dist/client/pool.js'));
const { retryPolicy } = await import(join(root, 'dist/client/retry.js'));
const { removeAttachment } = await import(join(root, 'dist/api/operations/attachments.js'));

let sockets = 0;
let deletes = 0;
const server = createServer((req, res) => {
  if (req.method !== 'DELETE' || !/^\/api\/v1\/attachments\/\d+$/.test(req.url ?? '')) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"result":"error","msg":"Not Found","code":"BAD_REQUEST"}');
    return;
  }
  req.resume();
  setTimeout(() => {
    deletes++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"result":"success","msg":""}');
  }, LATENCY_MS);
});
server.on('connection', () => sockets++);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const site = `http://127.0.0.1:${server.address().port}`;
const ids = Array.from({ length: ITEMS }, (_, i) => i + 1);

async function timed(label, body) {
  const client = new ChatClient(new HttpTransport(site), { email: 'bench@example.com', apiKey: 'a'.repeat(32) }, {}, { retry: retryPolicy(), pacer: new Pacer() });
  sockets = 0;
  deletes = 0;
  const started = process.hrtime.bigint();
  await body(client);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  await client.close();
  if (deletes !== ITEMS) throw new Error(`${label}: ${deletes} of ${ITEMS} deletes arrived`);
  return { ms, sockets };
}

const sequential = (client) => ids.reduce((p, id) => p.then(() => client.call(removeAttachment, { attachment_id: id })), Promise.resolve());
const pooled = async (client) => {
  const results = await runPool(ids, (id) => client.call(removeAttachment, { attachment_id: id }), { concurrency: CONCURRENCY, pacer: client.pacer });
  const failed = results.filter((r) => !r.ok);
  if (failed.length) throw new Error(`${failed.length} deletes failed: ${String(failed[0].error)}`);
};

function median(runs) {
  const sorted = [...runs].sort((a, b) => a.ms - b.ms);
  return sorted[Math.floor(sorted.length / 2)];
}

const one = [];
const many = [];
for (let i = 0; i < RUNS; i++) {
  one.push(await timed('one at a time', sequential));
  many.push(await timed('pool', pooled));
}
server.close();

const a = median(one);
const b = median(many);
const concurrency = CONCURRENCY ?? DEFAULT_CONCURRENCY;
console.log(`${ITEMS} deletes, ${LATENCY_MS} ms server latency, median of ${RUNS} runs`);
console.log(`  one at a time:          ${a.ms.toFixed(0).padStart(6)} ms  (${a.sockets} connection${a.sockets === 1 ? '' : 's'})`);
console.log(`  pool, concurrency ${String(concurrency).padEnd(4)} ${b.ms.toFixed(0).padStart(6)} ms  (${b.sockets} connections)`);
console.log(`  speed-up:               ${(a.ms / b.ms).toFixed(1)}x`);
