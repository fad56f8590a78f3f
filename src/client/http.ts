/**
 * The HTTP transport: any Zulip-compatible server at `{site}/api/v1`. Requests go through the global
 * `fetch`, looked up at every call (the one path nock intercepts on Node 20, and undici underneath); the
 * connection behaviour (keep-alive pool, timeouts, TLS, proxies) is set on undici's global dispatcher,
 * acquired on the first request and released when the transport closes. One attempt per `send`: retries
 * and rate limits are the client's business.
 */
import type { WireRequest, WireResponse } from '../api/wire.js';
import { CliError } from '../cli/errors.js';
import { USER_AGENT } from '../version.js';
import { acquireDispatcher, type DispatcherConfig, type ProxySettings } from './dispatcher.js';
import { errorCodes } from './retry.js';
import { isCertificateError, TlsError, type TlsOptions } from './tls.js';
import type { Transport } from './transport.js';

export interface HttpOptions {
  /** Connect timeout, ms (default 10 s). */
  connectTimeout?: number;
  /** Time to the response headers and between body chunks, ms (default 120 s: long polls need > 90 s). */
  responseTimeout?: number;
  /** Idle keep-alive, ms (default 4 s, below the usual 5 s of Node servers and proxies). */
  keepAliveTimeout?: number;
  /** Connections per origin (default 16). */
  connections?: number;
  tls?: TlsOptions;
  proxy?: ProxySettings;
}

export function dispatcherConfig(opts: HttpOptions): DispatcherConfig {
  return {
    connectTimeout: opts.connectTimeout ?? 10_000,
    responseTimeout: opts.responseTimeout ?? 120_000,
    keepAliveTimeout: opts.keepAliveTimeout ?? 4_000,
    connections: opts.connections ?? 16,
    tls: opts.tls ?? {},
    proxy: opts.proxy ?? {},
  };
}

export class HttpTransport implements Transport {
  readonly kind = 'http' as const;
  readonly base: string;
  private release: Promise<() => Promise<void>> | undefined;

  constructor(
    readonly target: string,
    private readonly opts: HttpOptions = {},
  ) {
    this.base = `${target.replace(/\/+$/, '')}/api/v1`;
  }

  async send(req: WireRequest, signal?: AbortSignal): Promise<WireResponse> {
    this.release ??= acquireDispatcher(dispatcherConfig(this.opts));
    await this.release;
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
    // fetch would follow a 301/302 of a POST as a GET without its body (and a GET of most endpoints
    // succeeds), so only requests that change nothing are followed.
    const follow = ['GET', 'HEAD'].includes(req.method);
    try {
      const res = await globalThis.fetch(url, { method: req.method, headers, body, signal, redirect: follow ? 'follow' : 'manual' });
      const location = res.headers.get('location');
      if (!follow && res.status >= 300 && res.status < 400 && location !== null) {
        await res.body?.cancel();
        throw new RedirectError(this.target, `${req.method} ${req.path}`, res.status, new URL(location, url).href);
      }
      const text = await res.text();
      const out: Record<string, string> = {};
      res.headers.forEach((v, k) => (out[k] = v));
      return { status: res.status, headers: out, body: parseBody(text) };
    } catch (e) {
      const codes = errorCodes(e);
      if (isCertificateError(codes)) throw new TlsError(this.target, codes[codes.length - 1]!);
      throw e;
    }
  }

  async close(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    if (release) await (await release)();
  }
}

/** A request that changes something, answered with a redirect: not followed, since fetch would send it as a GET. */
export class RedirectError extends CliError {
  constructor(site: string, what: string, status: number, location: string) {
    super(
      `${site} answered ${what} with a redirect (${status}) to ${location}; nothing was sent there`,
      'failure',
      'if the server moved, use its new address: --server URL (or chatctl login --server URL)',
    );
    this.name = 'RedirectError';
  }
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
