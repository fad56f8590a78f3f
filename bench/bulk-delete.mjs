#!/usr/bin/env node
// Bulk benchmark (npm run bench:bulk): 200 attachment deletes against a local server that answers each
// DELETE /api/v1/attachments/{id} after 20 ms, one request at a time and through the bounded pool, both
// over the keep-alive connection pool. Prints the median of a few runs of each, the speed-up, and how
// many connections each run opened. Then a job of 1,000 deletes (BENCH_JOB) against a server enforcing a
// current Zulip server's two rules (200 a minute, 2,000 an hour, headers showing the hourly one) with time
// scaled down 20 times (BENCH_TIME_SCALE): how long it took against the least time the rules allow, and
// how many 429s it met. Not a test: timings vary with the machine.
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
const { RateLimiter } = await import(join(root, 'dist/server/rate-limit.js'));
const { API_BY_USER } = await import(join(root, 'dist/api/rate-limits.js'));

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
  const client = new ChatClient(
    new HttpTransport(site),
    { email: 'bench@example.com', apiKey: 'a'.repeat(32) },
    {},
    { retry: retryPolicy(), pacer: new Pacer() },
  );
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

// The two-rule job. Rules and the pacer's documented rules are the real ones with time divided by SCALE.
const SCALE = Number(process.env.BENCH_TIME_SCALE ?? 20);
const JOB = Number(process.env.BENCH_JOB ?? 1000);
const rules = API_BY_USER.map((r) => ({ calls: r.calls, seconds: r.seconds / SCALE }));
const limiter = new RateLimiter();
let accepted = 0;
let refused = 0;
const limited = createServer((req, res) => {
  req.resume();
  const { headers, refusal } = limiter.admit('bench', rules);
  const reply = refusal ?? { status: 200, headers: { 'content-type': 'application/json', ...headers }, body: { result: 'success', msg: '' } };
  if (refusal) refused++;
  else accepted++;
  res.writeHead(reply.status, reply.headers).end(JSON.stringify(reply.body));
});
await new Promise((resolve) => limited.listen(0, '127.0.0.1', resolve));
const client = new ChatClient(
  new HttpTransport(`http://127.0.0.1:${limited.address().port}`),
  { email: 'bench@example.com', apiKey: 'a'.repeat(32) },
  {},
  {
    retry: retryPolicy(),
    pacer: new Pacer({ rules }),
  },
);
const started = process.hrtime.bigint();
const results = await runPool(
  Array.from({ length: JOB }, (_, i) => i + 1),
  (id) => client.call(removeAttachment, { attachment_id: id }),
  { pacer: client.pacer },
);
const took = Number(process.hrtime.bigint() - started) / 1e9;
await client.close();
limited.close();
// The least time the rules allow: each request as early as every rule lets it, requests taking no time.
const at = [];
for (let i = 0; i < JOB; i++) at.push(Math.max(0, ...rules.map((r) => (i >= r.calls ? at[i - r.calls] + r.seconds : 0))));
const allowed = at[JOB - 1];
console.log(`${JOB} deletes against 200/min and 2,000/h, time scaled down ${SCALE} times (hourly headers only)`);
console.log(`  took ${took.toFixed(2)} s; the rules allow ${allowed.toFixed(2)} s: ratio ${(took / allowed).toFixed(2)}`);
console.log(`  ${results.filter((r) => !r.ok).length} failed rows, ${refused} answers 429, ${accepted} accepted`);
