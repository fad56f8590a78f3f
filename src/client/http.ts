/**
 * The HTTP transport: any Zulip-compatible server at `{site}/api/v1`. Requests go through the global
 * `fetch`, looked up at every call (the one path nock intercepts on Node 20, and undici underneath); the
 * connection behaviour (keep-alive pool, timeouts, TLS, proxies) is set on undici's global dispatcher,
 * acquired on the first request and released when the transport closes. One attempt per `send`: retries
 * and rate limits are the client's business.
 */
import type { WireRequest, WireResponse } from '../api/wire.js';
import { ChatctlError } from '../errors.js';
import { CONNECT_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, RESPONSE_TIMEOUT_MS } from '../timeouts.js';
import { USER_AGENT } from '../version.js';
import { acquireDispatcher, type DispatcherConfig, type ProxySettings } from './dispatcher.js';
import { errorCodes } from '../errno.js';
import { readStreamed } from './streamed-body.js';
import { isCertificateError, TlsError, type TlsOptions } from './tls.js';
import type { Transport } from './transport.js';

export interface HttpOptions {
  /** Connect timeout, ms (default CONNECT_TIMEOUT_MS). */
  connectTimeout?: number;
  /** Time to the response headers and between body chunks, ms (default RESPONSE_TIMEOUT_MS, longer than a long poll). */
  responseTimeout?: number;
  /** Idle keep-alive, ms (default KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeout?: number;
  /** Connections per origin (default 16). */
  connections?: number;
  tls?: TlsOptions;
  proxy?: ProxySettings;
}

export function dispatcherConfig(opts: HttpOptions): DispatcherConfig {
  return {
    connectTimeout: opts.connectTimeout ?? CONNECT_TIMEOUT_MS,
    responseTimeout: opts.responseTimeout ?? RESPONSE_TIMEOUT_MS,
    keepAliveTimeout: opts.keepAliveTimeout ?? KEEP_ALIVE_TIMEOUT_MS,
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
    try {
      let res = await globalThis.fetch(url, { method: req.method, headers, body, signal, redirect: 'manual' });
      // Redirects are followed here, not by fetch: fetch would turn a 301/302 of a POST into a GET without
      // its body, and drops the credentials on the way to another origin, so the server would answer
      // "log in again" where the truth is "the organization moved".
      for (let hops = 0, at = url; isRedirect(res.status); hops++) {
        const location = res.headers.get('location');
        if (location === null) break;
        await res.body?.cancel();
        const next = new URL(location, at);
        const what = `${req.method} ${req.path}`;
        if (next.origin !== url.origin || !FOLLOWED.has(req.method) || hops === MAX_HOPS) {
          throw new RedirectError(this.target, what, res.status, next.href, next.origin !== url.origin ? siteOf(next) : undefined);
        }
        at = next;
        res = await globalThis.fetch(next, { method: req.method, headers, signal, redirect: 'manual' });
      }
      const out = Object.fromEntries(res.headers);
      if (req.stream && res.status === 200 && res.body) {
        return { status: res.status, headers: out, body: await readStreamed(res.body, req.stream, parseBody) };
      }
      return { status: res.status, headers: out, body: parseBody(await res.text()) };
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

/** Requests that change nothing, and so may follow a redirect within the same origin. */
const FOLLOWED = new Set(['GET', 'HEAD']);
const MAX_HOPS = 5;
const isRedirect = (status: number): boolean => [301, 302, 303, 307, 308].includes(status);

/** The site a redirect points at: the part before `/api/v1`, or the origin. */
function siteOf(u: URL): string {
  const at = u.pathname.indexOf('/api/v1');
  return at >= 0 ? `${u.origin}${u.pathname.slice(0, at)}` : u.origin;
}

/**
 * A redirect chatctl does not follow: one of a request that changes something (fetch would send it as a
 * GET), one to another origin (credentials are never sent where the user did not point chatctl), or a
 * chain too long. Nothing was sent to the new address.
 */
export class RedirectError extends ChatctlError {
  constructor(site: string, what: string, status: number, location: string, movedTo?: string) {
    super(
      `${site} answered ${what} with a redirect (${status}) to ${location}; nothing was sent there`,
      'failure',
      movedTo
        ? `if the organization moved to ${movedTo}, use that address: --server ${movedTo} (or chatctl login --server ${movedTo})`
        : 'if the server moved, use its new address: --server URL (or chatctl login --server URL)',
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
