#!/usr/bin/env node
// The load generator of bench/serve-rps.mjs, run as a process of its own so that it shares no event loop
// with the server it measures: CONNECTIONS keep-alive connections (an undici Pool), each sending the next
// `GET` as soon as the previous answer is read, for WARMUP_MS untimed and then DURATION_MS timed. Prints
// one JSON line: requests answered in the timed part, its length, latency percentiles, statuses, and how
// much of one core this process used (near 100% means the generator, not the server, set the pace).
//
// Usage: node load-generator.mjs URL PATH AUTHORIZATION CONNECTIONS WARMUP_MS DURATION_MS
import { Pool } from 'undici';

const [url, path, authorization, connections, warmupMs, durationMs] = process.argv.slice(2);
const CONNECTIONS = Number(connections);
const pool = new Pool(url, { connections: CONNECTIONS, pipelining: 1 });
const headers = { authorization };

let timing = false;
let stopping = false;
const latencies = [];
const statuses = {};

async function loop() {
  while (!stopping) {
    const started = process.hrtime.bigint();
    const res = await pool.request({ method: 'GET', path, headers });
    await res.body.dump();
    if (!timing) continue;
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
  }
}

const loops = Array.from({ length: CONNECTIONS }, loop);
await new Promise((r) => setTimeout(r, Number(warmupMs)));
timing = true;
const cpuBefore = process.cpuUsage();
const started = process.hrtime.bigint();
await new Promise((r) => setTimeout(r, Number(durationMs)));
timing = false;
const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
const cpu = process.cpuUsage(cpuBefore);
stopping = true;
await Promise.all(loops);
await pool.close();

latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * q) - 1)];
process.stdout.write(
  `${JSON.stringify({
    requests: latencies.length,
    elapsedMs,
    p50: at(0.5),
    p99: at(0.99),
    statuses,
    generatorCpu: (cpu.user + cpu.system) / 1000 / elapsedMs,
  })}\n`,
);
