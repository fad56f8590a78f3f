/**
 * The one client: typed calls from the catalogue, over any transport. It encodes parameters the way a
 * Zulip server expects (query string for GET, form body otherwise; strings as they are, everything else
 * JSON), authenticates with HTTP Basic, and turns error envelopes into ApiError.
 *
 * Around each request: the pacer (rate-limit headers), the retry policy (429 waited out, connection errors
 * and 502/503/504 retried when the request is safe to repeat; see retry.ts), and a trace line per attempt
 * for --verbose that never carries credentials. Operations the server is too old for are refused before
 * they are sent, when the client has a gating feature source (a remote server).
 */
import { ApiError } from '../api/errors.js';
import { fillPath, type CallParamsOf, type Operation, type ResponseOf } from '../api/operation.js';
import { encodeWire, isPlainObject } from '../api/schema.js';
import type { SuccessEnvelope } from '../api/types.js';
import { basicAuthHeader, type UploadedFile, type WireRequest, type WireResponse } from '../api/wire.js';
import { FEATURES, FeatureCache, FeatureLevelError, type FeatureName, type FeatureSource, type ServerFacts } from './features.js';
import type { Pacer } from './pacing.js';
import { describeRequest } from './redact.js';
import {
  backoffDelayMs,
  classifyFailure,
  failureName,
  NO_RETRIES,
  rateLimitDelayMs,
  RETRYABLE_STATUSES,
  retryAfterSeconds,
  type RetryPolicy,
} from './retry.js';
import type { Transport } from './transport.js';

export interface Credentials {
  email: string;
  apiKey: string;
}

export interface ClientHooks {
  /** Warnings for the user (ignored parameters ...), never data. */
  warn?: (message: string) => void;
  /** Things the person should know are happening: waits for a rate limit, retries. */
  notice?: (message: string) => void;
  /** One line per attempt and response, for --verbose; never carries credentials. */
  trace?: (line: string) => void;
}

export interface ClientOptions {
  /** Absent: one attempt, no waiting. */
  retry?: RetryPolicy;
  /** Paces requests by the server's rate-limit headers. */
  pacer?: Pacer;
  /** Where the feature level comes from; absent: read from the server when first asked, not gated. */
  features?: FeatureSource;
}

/** A reply that is not the JSON envelope of a Zulip server: an HTML error page from a proxy, say. */
export class BadResponseError extends Error {
  constructor(
    readonly status: number,
    readonly excerpt: string,
  ) {
    super(`unexpected ${status} response from the server${excerpt ? `: ${excerpt}` : ''}`);
    this.name = 'BadResponseError';
  }
}

/**
 * A 429 or 5xx that is not the envelope (a gateway's or a proxy's page): still a temporary failure, so an
 * ApiError with that status (exit 75), without a server error code.
 */
export class UnavailableError extends ApiError {
  constructor(status: number, excerpt: string) {
    super(`unexpected ${status} response from the server${excerpt ? `: ${excerpt}` : ''}`, null, status);
    this.name = 'UnavailableError';
  }
}

export type Success<O> = ResponseOf<O> & SuccessEnvelope;

const SAFE_METHODS = new Set(['GET', 'HEAD']);

export class ChatClient {
  readonly pacer: Pacer | undefined;
  private readonly retry: RetryPolicy;
  private readonly features: FeatureSource;

  constructor(
    readonly transport: Transport,
    readonly credentials: Credentials | null,
    private readonly hooks: ClientHooks = {},
    options: ClientOptions = {},
  ) {
    this.retry = options.retry ?? NO_RETRIES;
    this.pacer = options.pacer;
    this.features = options.features ?? new FeatureCache();
  }

  /** Builds the wire request of an operation call (also what --dry-run shows). */
  encode<O extends Operation>(op: O, params: CallParamsOf<O>, files?: UploadedFile[]): WireRequest {
    const values = (params ?? {}) as Record<string, unknown>;
    const encoded: [string, string][] = [];
    for (const [name, value] of Object.entries(values)) {
      const def = op.params[name];
      if (!def) throw new Error(`${op.name} has no parameter ${name}`);
      if (def.in === 'path' || value === undefined) continue;
      encoded.push([name, encodeWire(def.schema, value)]);
    }
    const inQuery = op.method === 'GET';
    const headers: Record<string, string> = {};
    if (op.access !== 'none' && this.credentials) {
      headers['authorization'] = basicAuthHeader(this.credentials.email, this.credentials.apiKey);
    }
    return {
      method: op.method,
      path: fillPath(op.path, values),
      query: inQuery ? encoded : [],
      body: inQuery ? [] : encoded,
      files,
      headers,
    };
  }

  async call<O extends Operation>(
    op: O,
    params: CallParamsOf<O>,
    opts: { files?: UploadedFile[]; signal?: AbortSignal } = {},
  ): Promise<Success<O>> {
    if (op.minFeatureLevel !== undefined && this.features.gate) await this.requireFeature(op.minFeatureLevel, op.name);
    const req = this.encode(op, params, opts.files);
    const res = await this.exchange(req, op.method === 'GET' || op.idempotent === true, opts.signal);
    return unwrap(res) as Success<O>;
  }

  /**
   * Sends a prepared request; the raw response comes back whatever its status (`chatctl api`). Only GET
   * and HEAD are treated as safe to repeat: nothing is known of what other requests do.
   */
  send(req: WireRequest, signal?: AbortSignal): Promise<WireResponse> {
    return this.exchange(req, SAFE_METHODS.has(req.method.toUpperCase()), signal);
  }

  /** The server's feature level (cached per profile by the CLI). */
  async featureLevel(): Promise<number> {
    return (await this.features.facts(this)).featureLevel;
  }

  /** The server's level and version, as last read. */
  serverFacts(): Promise<ServerFacts> {
    return this.features.facts(this);
  }

  /** Whether the server has `feature` (see FEATURES). */
  async supports(feature: FeatureName): Promise<boolean> {
    return (await this.featureLevel()) >= FEATURES[feature];
  }

  /**
   * Throws FeatureLevelError unless the server is at `level` or above. A cached level that is too low is
   * read again first: the server may have been upgraded since.
   */
  async requireFeature(level: number, what: string): Promise<void> {
    let facts = await this.features.facts(this);
    if (facts.featureLevel >= level) return;
    if (!facts.read) facts = await this.features.facts(this, true);
    if (facts.featureLevel < level) throw new FeatureLevelError(what, level, facts.featureLevel);
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /** One request with its retries. */
  private async exchange(req: WireRequest, safe: boolean, signal?: AbortSignal): Promise<WireResponse> {
    const policy = this.retry;
    const what = `${req.method} ${req.path}`;
    let waited = 0;
    let failures = 0;
    let limited = 0;
    for (let attempt = 1; ; attempt++) {
      await this.pacer?.take(signal);
      this.hooks.trace?.(`> ${describeRequest(req)}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
      const started = performance.now();
      const elapsed = () => `${Math.round(performance.now() - started)} ms`;
      let res: WireResponse;
      try {
        res = await this.transport.send(req, signal);
      } catch (e) {
        this.pacer?.release();
        this.hooks.trace?.(`< ${failureName(e)} ${what} ${elapsed()}`);
        const kind = classifyFailure(e);
        const delay = backoffDelayMs(failures + 1, policy);
        if (kind === 'fatal' || (kind === 'transient' && !safe) || ++failures >= policy.maxAttempts || waited + delay > policy.maxWaitMs) throw e;
        this.hooks.notice?.(`${what} failed (${failureName(e)}); retrying in ${seconds(delay)} (attempt ${attempt + 1} of ${policy.maxAttempts})`);
        waited += delay;
        await policy.sleep(delay, signal);
        continue;
      }
      // A 429 teaches the pacer when the server takes requests again, and that a rule may be tighter than it thought.
      if (res.status === 429) this.pacer?.refused(retryAfterSeconds(res.headers, res.body, Date.now()));
      else this.pacer?.observe(res.headers);
      this.hooks.trace?.(`< ${res.status} ${what} ${elapsed()}`);

      if (res.status === 429) {
        // Refused before anything was done: any request may go again once the server allows it.
        const after = retryAfterSeconds(res.headers, res.body, Date.now());
        const delay = after === undefined ? backoffDelayMs(limited + 1, policy) : rateLimitDelayMs(after, policy);
        if (++limited >= policy.maxRateLimitAttempts || waited + delay > policy.maxWaitMs) {
          if (policy.maxRateLimitAttempts > 1 && after !== undefined && after * 1000 > policy.maxWaitMs - waited) {
            this.hooks.notice?.(`rate limited: the server asks to wait ${after.toFixed(1)} s, more than the ${seconds(policy.maxWaitMs - waited)} left of --max-wait`);
          }
          return res;
        }
        this.hooks.notice?.(`rate limited by the server; waiting ${seconds(delay)} before retrying ${what}`);
        waited += delay;
        await policy.sleep(delay, signal);
        continue;
      }

      if (RETRYABLE_STATUSES.has(res.status) && safe) {
        const after = retryAfterSeconds(res.headers, res.body, Date.now());
        const delay = after === undefined ? backoffDelayMs(failures + 1, policy) : rateLimitDelayMs(after, policy);
        if (++failures >= policy.maxAttempts || waited + delay > policy.maxWaitMs) return res;
        this.hooks.notice?.(`${what} answered ${res.status}; retrying in ${seconds(delay)} (attempt ${attempt + 1} of ${policy.maxAttempts})`);
        waited += delay;
        await policy.sleep(delay, signal);
        continue;
      }

      const body = res.body;
      if (isPlainObject(body) && Array.isArray(body.ignored_parameters_unsupported) && body.ignored_parameters_unsupported.length) {
        this.hooks.warn?.(`the server ignored parameters it does not support: ${body.ignored_parameters_unsupported.join(', ')}`);
      }
      return res;
    }
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The success body, or the error the response stands for. */
export function unwrap(res: WireResponse): Record<string, unknown> {
  const body = res.body;
  if (!isPlainObject(body) || (body.result !== 'success' && body.result !== 'error')) {
    const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
    if (res.status === 429 || res.status >= 500) throw new UnavailableError(res.status, excerpt(text));
    throw new BadResponseError(res.status, excerpt(text));
  }
  if (body.result === 'success' && res.status < 400) return body;
  const { result: _result, msg, code, ...extra } = body;
  throw new ApiError(
    typeof msg === 'string' ? msg : `HTTP ${res.status}`,
    typeof code === 'string' ? code : null,
    res.status,
    extra,
    res.headers,
  );
}

/** The first line of text in a reply, tags stripped: enough to recognise a proxy's error page. */
function excerpt(text: string): string {
  const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1];
  const plain = (title ?? text.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  return plain.length > 120 ? `${plain.slice(0, 117)}...` : plain;
}
