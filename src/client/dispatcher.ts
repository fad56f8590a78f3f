/**
 * undici's global dispatcher, configured once for the process: keep-alive pool, connect/headers/body
 * timeouts, TLS, and proxies through `EnvHttpProxyAgent` when HTTPS_PROXY/HTTP_PROXY are set (NO_PROXY
 * honoured). Node's global fetch runs on undici and uses the global dispatcher, which is why the
 * configuration goes there and never into per-request `dispatcher:` options (global fetch without a
 * per-request dispatcher is the one shape nock 14 on Node 20 still intercepts; undici's own fetch and request
 * go past it).
 *
 * Transports acquire the dispatcher and release it when they close; the last release closes it (idle
 * keep-alive sockets would otherwise hold the process up to their timeout) and puts back the dispatcher
 * that was there before. Acquiring with a different configuration replaces the installed one.
 */
import type { Dispatcher } from 'undici';
import type { TlsOptions } from './tls.js';

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

export interface DispatcherConfig {
  /** ms to open a connection (TCP and TLS). */
  connectTimeout: number;
  /** ms to the response headers, and between body chunks (a long poll needs more than 90 s). */
  responseTimeout: number;
  /** ms an idle connection is kept for the next request. */
  keepAliveTimeout: number;
  /** Connections per origin. */
  connections: number;
  tls: TlsOptions;
  proxy: ProxySettings;
}

/** Proxy variables as curl reads them: lower case first. */
export function proxyFromEnv(env: Readonly<Record<string, string | undefined>>): ProxySettings {
  const pick = (name: string) => env[name.toLowerCase()] || env[name] || undefined;
  return { httpProxy: pick('HTTP_PROXY'), httpsProxy: pick('HTTPS_PROXY'), noProxy: pick('NO_PROXY') };
}

interface Installed {
  key: string;
  dispatcher: Dispatcher;
  previous: Dispatcher;
  users: number;
}

let installed: Installed | undefined;
/** Acquisitions and releases run one at a time, so two first requests do not build two dispatchers. */
let queue: Promise<unknown> = Promise.resolve();

function serially<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => undefined);
  return run;
}

async function build(config: DispatcherConfig): Promise<Dispatcher> {
  const undici = await import('undici');
  const common = {
    connect: { timeout: config.connectTimeout, ...config.tls },
    headersTimeout: config.responseTimeout,
    bodyTimeout: config.responseTimeout,
    keepAliveTimeout: config.keepAliveTimeout,
    connections: config.connections,
  };
  const { httpProxy, httpsProxy, noProxy } = config.proxy;
  if (!httpProxy && !httpsProxy) return new undici.Agent(common);
  return new undici.EnvHttpProxyAgent({
    ...common,
    // Given explicitly ('' = none) so the process environment is not read behind the caller's back.
    httpProxy: httpProxy ?? '',
    httpsProxy: httpsProxy ?? '',
    noProxy: noProxy ?? '',
    // The origin's TLS through a CONNECT tunnel; the proxy itself may sit behind the same private CA.
    requestTls: { timeout: config.connectTimeout, ...config.tls },
    proxyTls: { ca: config.tls.ca, rejectUnauthorized: config.tls.rejectUnauthorized },
    // Plain-HTTP origins are forwarded (absolute URI); HTTPS ones are always tunnelled: curl's behaviour.
    proxyTunnel: false,
  });
}

/** Installs the dispatcher for `config` (once per configuration); returns its release. */
export function acquireDispatcher(config: DispatcherConfig): Promise<() => Promise<void>> {
  return serially(() => acquire(config));
}

async function acquire(config: DispatcherConfig): Promise<() => Promise<void>> {
  const key = JSON.stringify(config);
  if (installed?.key !== key) {
    const undici = await import('undici');
    const dispatcher = await build(config);
    const replaced = installed;
    installed = { key, dispatcher, previous: replaced?.previous ?? undici.getGlobalDispatcher(), users: 0 };
    undici.setGlobalDispatcher(dispatcher);
    // Requests already on the replaced dispatcher finish; it takes no new ones.
    if (replaced) void replaced.dispatcher.close().catch(() => undefined);
  }
  const mine = installed!;
  mine.users++;
  let released = false;
  return () =>
    serially(async () => {
      if (released) return;
      released = true;
      if (--mine.users > 0 || installed !== mine) return;
      installed = undefined;
      const undici = await import('undici');
      undici.setGlobalDispatcher(mine.previous);
      await mine.dispatcher.close().catch(() => undefined);
    });
}
