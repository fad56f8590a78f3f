/**
 * The HTTP transport: any Zulip-compatible server at `{site}/api/v1`. Requests go through the global
 * `fetch`, looked up at every call (the one path nock intercepts on Node 20, and undici underneath); the
 * connection behaviour is set once on undici's global dispatcher.
 */
import type { WireRequest, WireResponse } from '../api/wire.js';
import { USER_AGENT } from '../version.js';
import type { Transport } from './transport.js';

export interface HttpOptions {
  /** Connect timeout, ms. */
  connectTimeout?: number;
  /** Time to the response headers and between body chunks, ms (long polls need more than 90 s). */
  responseTimeout?: number;
}

let dispatcherConfigured = false;

/** Sets undici's global dispatcher once: keep-alive pool, timeouts, proxies from the environment. */
async function configureDispatcher(opts: HttpOptions): Promise<void> {
  if (dispatcherConfigured) return;
  dispatcherConfigured = true;
  const undici = await import('undici');
  const common = {
    connect: { timeout: opts.connectTimeout ?? 10_000 },
    headersTimeout: opts.responseTimeout ?? 120_000,
    bodyTimeout: opts.responseTimeout ?? 120_000,
    keepAliveTimeout: 4_000,
    connections: 16,
  };
  const env = process.env;
  const proxied = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((k) => env[k]);
  undici.setGlobalDispatcher(proxied ? new undici.EnvHttpProxyAgent(common) : new undici.Agent(common));
}

export class HttpTransport implements Transport {
  readonly kind = 'http' as const;
  readonly base: string;

  constructor(
    readonly target: string,
    private readonly opts: HttpOptions = {},
  ) {
    this.base = `${target.replace(/\/+$/, '')}/api/v1`;
  }

  async send(req: WireRequest, signal?: AbortSignal): Promise<WireResponse> {
    await configureDispatcher(this.opts);
    const url = new URL(this.base + req.path);
    for (const [k, v] of req.query) url.searchParams.append(k, v);
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json', ...req.headers };
    let body: URLSearchParams | FormData | undefined;
    if (req.files?.length) {
      const form = new FormData();
      for (const [k, v] of req.body) form.append(k, v);
      for (const f of req.files) form.append(f.field, new Blob([new Uint8Array(f.data)], { type: f.contentType }), f.filename);
      body = form;
    } else if (req.body.length || !['GET', 'HEAD'].includes(req.method)) {
      body = new URLSearchParams(req.body);
    }
    const res = await globalThis.fetch(url, { method: req.method, headers, body, signal, redirect: 'follow' });
    const text = await res.text();
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => (out[k] = v));
    return { status: res.status, headers: out, body: parseBody(text) };
  }

  async close(): Promise<void> {}
}

/** JSON when it parses; otherwise the text itself (an HTML page from a proxy, say), for the error message. */
function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
