/**
 * `chatctl serve`: the router on HTTP at /api/v1. Bodies are parsed as a Zulip server does (url-encoded or
 * multipart form data; parameters from the query string too, for every method); the multipart parser is
 * the one in Node's own fetch implementation. With `limit` (`--rate-limit`), each request is first counted
 * against the rate limits, and refused with 429 or answered with the X-RateLimit-* headers (rate-limit.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { UploadedFile, WireRequest } from '../api/wire.js';
import type { Admission } from './rate-limit.js';
import type { Router } from './router.js';

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const API_PREFIX = '/api/v1';

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function parseForm(contentType: string, raw: Buffer): Promise<{ body: [string, string][]; files: UploadedFile[] }> {
  if (raw.length === 0) return { body: [], files: [] };
  if (contentType.startsWith('multipart/form-data')) {
    const form = await new Request('http://localhost/', { method: 'POST', headers: { 'content-type': contentType }, body: new Uint8Array(raw) }).formData();
    const body: [string, string][] = [];
    const files: UploadedFile[] = [];
    for (const [key, value] of form.entries()) {
      if (typeof value === 'string') body.push([key, value]);
      else files.push({ field: key, filename: value.name, contentType: value.type || 'application/octet-stream', data: new Uint8Array(await value.arrayBuffer()) });
    }
    return { body, files };
  }
  // url-encoded, and bodies sent without a content type (some clients' PATCH/DELETE)
  return { body: [...new URLSearchParams(raw.toString('utf8'))], files: [] };
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  const text = body === null ? '' : JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export interface ApiServerOptions {
  /** Counts a request against the rate limits (absent: none apply). */
  limit?: (req: WireRequest, address: string) => Admission | undefined;
}

export function createApiServer(router: Router, log: (line: string) => void, opts: ApiServerOptions = {}): Server {
  return createServer((req, res) => {
    const started = process.hrtime.bigint();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const done = (status: number) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // The path only: query strings can carry secrets.
      log(`${req.socket.remoteAddress ?? '-'} "${req.method} ${url.pathname}" ${status} ${ms.toFixed(1)}ms`);
    };
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    void (async () => {
      if (!url.pathname.startsWith(`${API_PREFIX}/`)) {
        send(res, 404, { 'content-type': 'application/json' }, { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
        return done(404);
      }
      let parsed: { body: [string, string][]; files: UploadedFile[] };
      try {
        parsed = await parseForm(req.headers['content-type'] ?? '', await readBody(req));
      } catch {
        send(res, 400, { 'content-type': 'application/json' }, { result: 'error', msg: 'Malformed payload', code: 'BAD_REQUEST' });
        return done(400);
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const wire: WireRequest = {
        method: req.method ?? 'GET',
        path: url.pathname.slice(API_PREFIX.length),
        query: [...url.searchParams],
        body: parsed.body,
        files: parsed.files,
        headers,
        remoteAddress: req.socket.remoteAddress,
      };
      const admission = opts.limit?.(wire, req.socket.remoteAddress ?? '');
      if (admission?.refusal) {
        send(res, admission.refusal.status, admission.refusal.headers, req.method === 'HEAD' ? null : admission.refusal.body);
        return done(admission.refusal.status);
      }
      const out = await router.handle(wire, abort.signal);
      if (abort.signal.aborted) return done(499);
      send(res, out.status, { ...out.headers, ...admission?.headers }, req.method === 'HEAD' ? null : out.body);
      done(out.status);
    })().catch((e: unknown) => {
      log(`internal error: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) send(res, 500, { 'content-type': 'application/json' }, { result: 'error', msg: 'Internal server error', code: 'BAD_REQUEST' });
      done(500);
    });
  });
}
