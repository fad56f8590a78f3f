#!/usr/bin/env node
// Remote bulk benchmark (npm run bench:bulk). Attachment deletes against a local stand-in for a stock Zulip
// server, three ways:
// - one at a time, the official Python client's way: one request after another, each 429 slept out for
//   exactly its retry-after;
// - chatctl as `attachments clean` runs them: the bounded pool (runPool, DEFAULT_CONCURRENCY unless swept)
//   over the keep-alive connections, with the client's Pacer and retry policy as the CLI configures them;
//   and what a bulk command reading the pacer's outlook (users create --from-file, invite) would decide
//   after the first answer: send every row, or stop early because the rest would wait past --max-wait;
// - the least time the server and its rate limits allow: every request started as soon as a worker is
//   free and every rule admits it (computed, not run).
//
// The server: each DELETE holds one of BENCH_WORKERS workers (default 4: what Zulip's installer gives a
// server with 3 to 6 GB of memory, `uwsgi_processes`; 0: unbounded, as if the latency were all network)
// for BENCH_LATENCY_MS (default 20); requests beyond the workers queue, as in uwsgi's backlog. With rules,
// the worker first admits the request by Zulip's per-user rules (200 a minute and 2,000 an hour, headers
// describing the hourly one) with the limiter of `chatctl serve --rate-limit`; a refusal is a 429 at once.
//
// 200 items fit the per-minute rule and run in real time. 2,000 items cannot take less than 9 minutes
// under the rules, so that world runs BENCH_TIME_SCALE (default 20) times faster: the rules' windows, the
// server's latency and the client's --max-wait are all divided by it (the client's own CPU time and its
// retry jitter are not). Then a sweep of the pool's concurrency (BENCH_SWEEP, default 1,2,4,8,16): 200
// items without rules at BENCH_WORKERS workers and unbounded (medians of BENCH_RUNS runs, default 3), and
// 2,000 items with the rules (one run each). Then rules an operator may set instead, which chatctl is not
// told of and learns from the answers (real time, one run each): 10 per 2 s and 100 per 30 s (headers
// showing the second), and one rule of 50 per 10 s; each against a budget of 1.3x the least time and 5 429s.
// Last, the verdict: chatctl's 2,000 items within 1.1x of the least time the rules allow, with no 429 and
// every row sent, and the operator's rules within their budget. About 5 minutes. Not a test: timings vary
// with the machine; compare the figures of one run.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const num = (name, fallback) => (process.env[name] === undefined ? fallback : Number(process.env[name]));
const LATENCY_MS = num('BENCH_LATENCY_MS', 20);
const WORKERS = num('BENCH_WORKERS', 4);
const SCALE = num('BENCH_TIME_SCALE', 20);
const RUNS = num('BENCH_RUNS', 3);
const SMALL = num('BENCH_SMALL', 200);
const LARGE = num('BENCH_LARGE', 2000);
const SWEEP = (process.env.BENCH_SWEEP ?? '1,2,4,8,16').split(',').filter(Boolean).map(Number);
/** BENCH_ONLY=operator runs the operator's rules alone (BENCH_RUNS times each), to iterate on the pacer's learning. */
const ONLY_OPERATOR = process.env.BENCH_ONLY === 'operator';
const root = fileURLToPath(new URL('..', import.meta.url));

const { ChatClient } = await import(join(root, 'dist/client/client.js'));
const { HttpTransport } = await import(join(root, 'dist/client/http.js'));
const { Pacer } = await import(join(root, 'dist/client/pacing.js'));
const { runPool, DEFAULT_CONCURRENCY } = await import(join(root, 'dist/client/pool.js'));
const { retryPolicy } = await import(join(root, 'dist/client/retry.js'));
const { removeAttachment } = await import(join(root, 'dist/api/operations/attachments.js'));
const { RateLimiter } = await import(join(root, 'dist/server/rate-limit.js'));
const { API_BY_USER } = await import(join(root, 'dist/api/rate-limits.js'));
const { DEFAULT_MAX_WAIT_SECONDS } = await import(join(root, 'dist/timeouts.js'));

const CREDENTIALS = { email: 'bench@example.com', apiKey: 'a'.repeat(32) };
const scaledRules = (scale, rules = API_BY_USER) => rules.map((r) => ({ calls: r.calls, seconds: r.seconds / scale }));
/** Rules an operator may set (Zulip's settings document any list of (seconds, calls)), unknown to chatctl. */
const OPERATOR_RULES = [
  {
    name: '10 per 2 s and 100 per 30 s',
    items: 60,
    rules: [
      { calls: 10, seconds: 2 },
      { calls: 100, seconds: 30 },
    ],
  },
  { name: '50 per 10 s', items: 150, rules: [{ calls: 50, seconds: 10 }] },
];

/**
 * The stand-in server, in a thread of its own so that its HTTP work does not share the client's event
 * loop: `workers` handlers (0: unbounded) of `handleMs` each, admitting by `rules` when given. Resolves to
 * its URL and `close`, which resolves to what it counted.
 */
async function startServer(spec) {
  const thread = new Worker(fileURLToPath(import.meta.url), { workerData: spec });
  const [{ port }] = await once(thread, 'message');
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      thread.postMessage('close');
      const [stats] = await once(thread, 'message');
      await thread.terminate();
      return stats;
    },
  };
}

/** The server thread's body. */
async function serve({ workers, handleMs, rules }) {
  const limiter = rules ? new RateLimiter() : undefined;
  const stats = { accepted: 0, refused: 0, connections: 0 };
  const queue = [];
  let busy = 0;
  const reply = (res, status, headers, body) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  const next = () => {
    while (queue.length && (workers === 0 || busy < workers)) {
      const res = queue.shift();
      const { headers, refusal } = limiter ? limiter.admit('bench', rules) : { headers: {} };
      if (refusal) {
        stats.refused++;
        reply(res, refusal.status, refusal.headers, refusal.body);
        continue;
      }
      busy++;
      setTimeout(() => {
        stats.accepted++;
        reply(res, 200, headers, { result: 'success', msg: '' });
        busy--;
        next();
      }, handleMs);
    }
  };
  const server = createServer((req, res) => {
    if (req.method !== 'DELETE' || !/^\/api\/v1\/attachments\/\d+$/.test(req.url ?? '')) {
      reply(res, 404, {}, { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
      return;
    }
    req.resume();
    req.on('end', () => {
      queue.push(res);
      next();
    });
  });
  server.on('connection', () => stats.connections++);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  parentPort.postMessage({ port: server.address().port });
  parentPort.once('message', () => {
    server.closeAllConnections();
    server.close();
    parentPort.postMessage(stats);
  });
}

/** The least time (ms) for `items` requests: each as soon as a worker is free and every rule admits it. */
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;

function leastMs({ items, workers, handleMs, rules }) {
  const admitted = [];
  const free = Array(workers || items).fill(0);
  let last = 0;
  for (let i = 0; i < items; i++) {
    let at = 0;
    for (const r of rules ?? []) if (i >= r.calls) at = Math.max(at, admitted[i - r.calls] + r.seconds * 1000);
    const w = free.indexOf(Math.min(...free));
    at = Math.max(at, free[w]);
    free[w] = at + handleMs;
    admitted.push(at);
    last = Math.max(last, at + handleMs);
  }
  return last;
}

/**
 * One job of `items` deletes. `way` is 'python' (one at a time) or 'chatctl' (the pool; `concurrency`
 * undefined for its default). Returns the time, the 429s met, the connections opened, and, for chatctl,
 * what a bulk command would have decided from the pacer's outlook after the first answer (runBulk reads it
 * then: a run that does not fit --max-wait sends what fits and skips the rest).
 */
async function job({ way, items, concurrency, workers, rules, scale }) {
  // `rules`: true for Zulip's, a list for an operator's; the pacer assumes Zulip's either way, as the CLI does.
  const serverRules = rules ? scaledRules(scale, Array.isArray(rules) ? rules : API_BY_USER) : undefined;
  const server = await startServer({ workers, handleMs: LATENCY_MS / scale, rules: serverRules });
  const maxWaitMs = (DEFAULT_MAX_WAIT_SECONDS * 1000) / scale;
  const options =
    way === 'python'
      ? { retry: retryPolicy({ maxRateLimitAttempts: Number.POSITIVE_INFINITY, maxWaitMs: Number.POSITIVE_INFINITY, random: () => 0 }) }
      : { retry: retryPolicy({ maxWaitMs }), pacer: new Pacer({ rules: scaledRules(scale), maxWaitMs }) };
  const client = new ChatClient(new HttpTransport(server.url), CREDENTIALS, {}, options);
  const ids = Array.from({ length: items }, (_, i) => i + 1);
  const remove = (id) => client.call(removeAttachment, { attachment_id: id });
  let started = 0;
  let stopAt;
  const began = process.hrtime.bigint();
  if (way === 'python') {
    for (const id of ids) await remove(id);
  } else {
    const worker = async (id, index) => {
      started = Math.max(started, index + 1);
      try {
        return await remove(id);
      } finally {
        const look = stopAt === undefined ? client.pacer.outlook(items - started) : undefined;
        if (look) stopAt = look.waitMs > maxWaitMs ? started + look.allowed : items;
      }
    };
    const results = await runPool(ids, worker, { concurrency, pacer: client.pacer });
    const failed = results.filter((r) => !r.ok);
    if (failed.length) throw new Error(`${failed.length} deletes failed: ${String(failed[0].error)}`);
  }
  const ms = Number(process.hrtime.bigint() - began) / 1e6;
  await client.close();
  const stats = await server.close();
  if (stats.accepted !== items) throw new Error(`${way}: ${stats.accepted} of ${items} deletes arrived`);
  return { ms, items, refused: stats.refused, connections: stats.connections, stopAt };
}

/** The median run of each spec, the specs' runs interleaved so that drift in the machine's load hits them alike. */
async function medians(runs, ...specs) {
  const all = specs.map(() => []);
  for (let i = 0; i < runs; i++) for (const [k, spec] of specs.entries()) all[k].push(await job(spec));
  return all.map((list) => list.sort((a, b) => a.ms - b.ms)[Math.floor(list.length / 2)]);
}

/** Jobs against the operator's rules, `runs` each in real time: whether every run kept within its budget. */
async function operatorRules(runs) {
  const each = runs === 1 ? 'one run each' : `${runs} runs each`;
  console.log(`\nAgainst an operator's rules, which chatctl learns from the answers (real time, ${each}; budget 1.3x, 5 429s):`);
  let ok = true;
  for (const { name, items, rules } of OPERATOR_RULES) {
    const least = leastMs({ items, workers: WORKERS, handleMs: LATENCY_MS, rules });
    for (let i = 0; i < runs; i++) {
      const r = await job({ way: 'chatctl', items, workers: WORKERS, rules, scale: 1 });
      const within = r.ms / least <= 1.3 && r.refused <= 5;
      ok &&= within;
      console.log(
        `  ${name.padEnd(28)} ${items} items ${secs(r.ms).padStart(9)}  ${(r.ms / least).toFixed(2)}x the least (${secs(least)}; budget 1.30x)  ${r.refused} 429${r.refused === 1 ? '' : 's'}${within ? '' : '  OVER'}`,
      );
    }
  }
  return ok;
}

/** The benchmark proper, in the main thread. */
async function main() {
  const refusals = (r) => `${r.refused} 429${r.refused === 1 ? '' : 's'}`;
  const workersName = (w) => (w ? `${w} workers` : 'unbounded');
  const sends = (r) =>
    r.stopAt === r.items ? 'a bulk command sends every row' : `a bulk command (users create --from-file) would stop after ${r.stopAt} rows`;
  const server = `${workersName(WORKERS)} of ${LATENCY_MS} ms`;

  console.log(`Remote bulk: attachment deletes; server ${server}; chatctl's pool of ${DEFAULT_CONCURRENCY} (its default)`);
  // Untimed: the first job pays for compiling the client and building the dispatcher.
  await job({ way: 'chatctl', items: 50, workers: 0, rules: false, scale: 1 });
  if (ONLY_OPERATOR) {
    const ok = await operatorRules(RUNS);
    console.log(`\nVerdict: an operator's rules ${ok ? 'within 1.3x and 5 429s each.' : 'MISSED (want <= 1.3x, <= 5 429s).'}`);
    return;
  }
  console.log(`Against Zulip's rules (200/min and 2,000/h, headers showing the hourly rule only):`);
  const large = {};
  for (const [items, scale, runs] of [
    [SMALL, 1, RUNS],
    [LARGE, SCALE, 1],
  ]) {
    const spec = { items, workers: WORKERS, rules: true, scale };
    const [python, chatctl] = await medians(runs, { ...spec, way: 'python' }, { ...spec, way: 'chatctl' });
    const least = leastMs({ items, workers: WORKERS, handleMs: LATENCY_MS / scale, rules: scaledRules(scale) });
    if (items === LARGE) Object.assign(large, { chatctl, least });
    const world =
      scale === 1 ? `real time, median of ${runs}` : `time scaled down ${scale}x (real: ${((least * scale) / 60_000).toFixed(1)} min least), one run`;
    console.log(`  ${items} items (${world})`);
    console.log(`    one at a time  ${secs(python.ms).padStart(9)}  ${(python.ms / least).toFixed(2)}x the least  ${refusals(python)}`);
    console.log(
      `    chatctl        ${secs(chatctl.ms).padStart(9)}  ${(chatctl.ms / least).toFixed(2)}x the least  ${refusals(chatctl)}, ${chatctl.connections} connections; ${sends(chatctl)}`,
    );
    console.log(`    the least      ${secs(least).padStart(9)}  (what the server's workers and the rules allow)`);
    console.log(`    chatctl is ${(python.ms / chatctl.ms).toFixed(1)}x faster than one at a time`);
  }

  console.log(`\nSweep of the pool's concurrency (time, and speed-up over concurrency 1):`);
  const row = (label, cells) => console.log(`  ${label.padEnd(28)}${cells.map((c) => c.padStart(15)).join('')}`);
  row('concurrency', SWEEP.map(String));
  for (const workers of [WORKERS, 0].filter((w, i, all) => all.indexOf(w) === i)) {
    const runs = await medians(RUNS, ...SWEEP.map((concurrency) => ({ way: 'chatctl', items: SMALL, concurrency, workers, rules: false, scale: 1 })));
    const times = runs.map((r) => r.ms);
    row(
      `${SMALL}, no rules, ${workersName(workers)}`,
      times.map((ms) => `${secs(ms)} ${(times[0] / ms).toFixed(1)}x`),
    );
  }
  {
    const cells = [];
    for (const concurrency of SWEEP) {
      const r =
        concurrency === DEFAULT_CONCURRENCY
          ? large.chatctl
          : await job({ way: 'chatctl', items: LARGE, concurrency, workers: WORKERS, rules: true, scale: SCALE });
      cells.push(`${(r.ms / large.least).toFixed(2)}x ${refusals(r)}${r.stopAt < LARGE ? ' cut' : ''}`);
    }
    row(`${LARGE}, rules, ${workersName(WORKERS)}`, cells);
    console.log("  (with rules: the time over the least the rules allow, the 429s met, and 'cut' where a bulk command would stop early)");
  }
  const operatorOk = await operatorRules(1);
  const ratio = large.chatctl.ms / large.least;
  const ok = ratio <= 1.1 && large.chatctl.refused === 0 && large.chatctl.stopAt === LARGE;
  console.log(
    `\nVerdict: chatctl's ${LARGE} items took ${ratio.toFixed(2)}x the least time the rules allow, with ${refusals(large.chatctl)}, and ${sends(large.chatctl)}: ` +
      (ok ? 'never slower than the rate limits require (<= 1.1x, no 429).' : 'MISSED (want <= 1.1x, no 429, every row sent).') +
      ` An operator's rules: ${operatorOk ? 'within 1.3x and 5 429s each.' : 'MISSED (want <= 1.3x, <= 5 429s).'}`,
  );
}

if (isMainThread) await main();
else await serve(workerData);
