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
import { levelOfParam, type Fetch } from '../api/older.js';
import { fillPath, type CallParamsOf, type Operation, type ResponseOf } from '../api/operation.js';
import { isPlainObject } from '../api/schema.js';
import { StreamedList, type ElementOf, type ListKey } from '../api/streamed-list.js';
import type { SuccessEnvelope } from '../api/types.js';
import { basicAuthHeader, type UploadedFile, type WireRequest, type WireResponse } from '../api/wire.js';
import { FeatureCache, FeatureLevelError, type FeatureSource, type KnownFacts, type ServerFacts } from './features.js';
import { dependsOnLevel, labelOf, shapeFor, type ParamLabels, type Shape, type ShapedCall } from './shape.js';
import type { Pacer } from './pacing.js';
import { describeRequest } from './redact.js';
import { backoffDelayMs, classifyFailure, NO_RETRIES, rateLimitDelayMs, RETRYABLE_STATUSES, retryAfterSeconds, type RetryPolicy } from './retry.js';
import type { Transport } from './transport.js';
import { failureName, systemReason } from '../errno.js';

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

export interface CallOptions {
  files?: UploadedFile[];
  signal?: AbortSignal;
  labels?: ParamLabels;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** How one call of several went: its answer, or what it failed with. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

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

  /**
   * The requests a call would send to this server, in the form its feature level takes (what --dry-run
   * shows); refused with FeatureLevelError when the server cannot do what is asked.
   */
  async prepare<O extends Operation>(op: O, params: CallParamsOf<O>, opts: { labels?: ParamLabels; files?: UploadedFile[] } = {}): Promise<WireRequest[]> {
    const { shape } = await this.shape(op, params ?? {}, opts.labels);
    return shape.calls.map((c) => this.wire(c, opts.files));
  }

  async call<O extends Operation>(op: O, params: CallParamsOf<O>, opts: CallOptions = {}): Promise<Success<O>> {
    return (await this.answer(op, params ?? {}, opts)) as Success<O>;
  }

  /** Whether the transport carries several calls as one batch (`callEach`), answered in one write transaction. */
  get batches(): boolean {
    return this.transport.batch !== undefined;
  }

  /**
   * Calls of `op`, one per element of `paramsList`, each settled on its own, in order. A transport that
   * carries batches (the embedded organization) takes them at once, as one batch; otherwise, or when a call
   * takes another shape than one request, they are sent one by one as `call` sends them (paced, retried).
   */
  async callEach<O extends Operation>(op: O, paramsList: readonly CallParamsOf<O>[], opts: CallOptions = {}): Promise<Settled<Success<O>>[]> {
    const transport = this.transport;
    const shapes = transport.batch ? await Promise.all(paramsList.map((p) => this.shape(op, p ?? {}, opts.labels))) : [];
    if (!transport.batch || shapes.some(({ shape }) => shape.calls.length !== 1 || shape.form !== undefined)) {
      const out: Settled<Success<O>>[] = [];
      for (const params of paramsList) out.push(await settle(this.call(op, params, opts)));
      return out;
    }
    const calls = shapes.map(({ shape }) => shape.calls[0]!);
    const reqs = calls.map((c) => this.wire(c, opts.files));
    this.hooks.trace?.(`> ${reqs.length} requests at once, the first: ${describeRequest(reqs[0]!)}`);
    const responses = await transport.batch(reqs, opts.signal);
    return Promise.all(
      responses.map(async (res, i) =>
        settle(
          (async () => {
            const body = unwrap(res);
            await this.checkIgnored(calls[i]!, body, shapes[i]!.facts, opts.labels);
            return body as Success<O>;
          })(),
        ),
      ),
    );
  }

  /**
   * A call whose answer holds a long list (`key`), whose elements are handed over a chunk at a time as they
   * arrive rather than held whole: pages of the embedded organization's store, or what each read of an HTTP
   * answer completes. What the server cannot do is refused before anything is sent, and errors of the answer
   * are thrown here, as by `call`; a connection lost midway, or a server failing midway, is thrown by the
   * iteration. Parameters the server ignored are reported once the list has been read to its end.
   */
  async stream<O extends Operation, K extends ListKey<ResponseOf<O>>>(
    op: O,
    params: CallParamsOf<O>,
    key: K,
    opts: Omit<CallOptions, 'files'> = {},
  ): Promise<StreamedList<ElementOf<ResponseOf<O>[K]>>> {
    const list = (await this.answer(op, params ?? {}, { ...opts, stream: key }))[key];
    if (list instanceof StreamedList) return list as StreamedList<ElementOf<ResponseOf<O>[K]>>;
    if (Array.isArray(list)) return StreamedList.of(list as ElementOf<ResponseOf<O>[K]>[]);
    throw new BadResponseError(200, `the answer has no list "${key}"`);
  }

  /** A call's answer; with `stream`, that list of it may be a StreamedList, when a single request answers the call. */
  private async answer(op: Operation, values: Readonly<Record<string, unknown>>, opts: CallOptions & { stream?: string }): Promise<Record<string, unknown>> {
    let { shape, facts } = await this.shape(op, values, opts.labels);
    let first: Record<string, unknown> | undefined;
    for (let i = 0; i < shape.calls.length; i++) {
      const c = shape.calls[i]!;
      // An older form that remakes the whole answer (`response`) or takes several requests reads it whole.
      const stream = shape.calls.length === 1 && !shape.form?.response ? opts.stream : undefined;
      const res = await this.exchange(
        { ...this.wire(c, opts.files), ...(stream && { stream }) },
        c.op.method === 'GET' || c.op.idempotent === true,
        opts.signal,
      );
      if (res.status === 404 && i === 0 && shape.form && facts && !facts.read) {
        // An older form the cached level chose is gone: the server was upgraded since the level was read.
        const fresh = await this.features.facts(this, true);
        if (fresh.featureLevel !== facts.featureLevel) {
          ({ shape, facts } = await this.shape(op, values, opts.labels));
          i = -1;
          continue;
        }
      }
      const body = unwrap(res);
      const streamed = Object.entries(body).find((e): e is [string, StreamedList] => e[1] instanceof StreamedList);
      // The keys after a streamed list (ignored_parameters_unsupported) are known only once it has been read.
      if (streamed) body[streamed[0]] = streamed[1].whenDone(() => this.checkIgnored(c, body, facts, opts.labels));
      else await this.checkIgnored(c, body, facts, opts.labels);
      first ??= body;
    }
    const form = shape.form;
    const kept = form?.keep ? keepElements(first!, form.keep.key, form.keep.elements(values)) : first!;
    if (!form?.response) return kept;
    const fetch: Fetch = async (o, p) => this.call(o, p, { signal: opts.signal });
    return { ...kept, ...(await form.response(kept, values, fetch)) };
  }

  /**
   * Sends a prepared request; the raw response comes back whatever its status (`chatctl api`). Only GET
   * and HEAD are treated as safe to repeat: nothing is known of what other requests do.
   */
  async send(req: WireRequest, signal?: AbortSignal): Promise<WireResponse> {
    const res = await this.exchange(req, SAFE_METHODS.has(req.method.toUpperCase()), signal);
    const ignored = isPlainObject(res.body) ? res.body.ignored_parameters_unsupported : undefined;
    if (Array.isArray(ignored) && ignored.length) this.warnIgnored(ignored);
    return res;
  }

  /** The server's feature level (cached per profile by the CLI). */
  async featureLevel(): Promise<number> {
    return (await this.features.facts(this)).featureLevel;
  }

  /** The server's level and version, as last read. */
  serverFacts(): Promise<ServerFacts> {
    return this.features.facts(this);
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /** The shape of a call for this server: as declared now when the client is not gated by the server's level. */
  private async shape(op: Operation, params: Readonly<Record<string, unknown>>, labels?: ParamLabels): Promise<{ shape: Shape; facts?: KnownFacts }> {
    if (!this.features.gate || !dependsOnLevel(op, params)) return { shape: shapeFor(op, params, undefined, labels) };
    let facts = await this.features.facts(this);
    try {
      return { shape: shapeFor(op, params, facts.featureLevel, labels), facts };
    } catch (e) {
      // A cached level that is too low is read again: the server may have been upgraded since.
      if (!(e instanceof FeatureLevelError) || facts.read) throw e;
      facts = await this.features.facts(this, true);
      return { shape: shapeFor(op, params, facts.featureLevel, labels), facts };
    }
  }

  private wire(c: ShapedCall, files?: UploadedFile[]): WireRequest {
    const inQuery = c.op.method === 'GET';
    const headers: Record<string, string> = {};
    if (c.op.access !== 'none' && this.credentials) {
      headers.authorization = basicAuthHeader(this.credentials.email, this.credentials.apiKey);
    }
    return {
      method: c.op.method,
      path: fillPath(c.op.path, c.pathValues),
      query: inQuery ? [...c.pairs] : [],
      body: inQuery ? [] : [...c.pairs],
      files,
      headers,
    };
  }

  /**
   * A parameter the server ignored was not acted on, so the call did not do what was asked. One whose
   * level the catalogue knows, and that the cached level said the server had, means the cache is stale:
   * it is read again, and the call fails saying what was not done. Others stay warnings.
   */
  private async checkIgnored(c: ShapedCall, body: Record<string, unknown>, facts: KnownFacts | undefined, labels?: ParamLabels): Promise<void> {
    const ignored = body.ignored_parameters_unsupported;
    if (!Array.isArray(ignored) || !ignored.length) return;
    const byWire = new Map([...c.sent].map(([name, wire]) => [wire, name]));
    const gated = ignored.flatMap((w) => {
      const name = typeof w === 'string' ? byWire.get(w) : undefined;
      const level = name === undefined ? undefined : (c.op.params[name]?.minFeatureLevel ?? levelOfParam(c.op, name));
      return name !== undefined && level !== undefined ? [{ name, level }] : [];
    });
    if (!gated.length || !facts) {
      this.warnIgnored(ignored);
      return;
    }
    const current = facts.read ? facts : await this.features.facts(this, true);
    const { name, level } = gated[0]!;
    throw new FeatureLevelError(labelOf(c.op, name, labels), level, current.featureLevel, 'the server ignored it; the rest of the request was carried out');
  }

  private warnIgnored(ignored: readonly unknown[]): void {
    this.hooks.warn?.(`the server ignored parameters it does not support: ${ignored.join(', ')}`);
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
        this.hooks.notice?.(`${what} failed: ${systemReason(e)}; retrying in ${seconds(delay)} (attempt ${attempt + 1} of ${policy.maxAttempts})`);
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
            this.hooks.notice?.(
              `rate limited: the server asks to wait ${after.toFixed(1)} s, more than the ${seconds(policy.maxWaitMs - waited)} left of --max-wait`,
            );
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

      return res;
    }
  }
}

/** The answer with only the elements of its list `key` that pass `keep` (a streamed list filtered as it comes). */
function keepElements(body: Record<string, unknown>, key: string, keep: (element: unknown) => boolean): Record<string, unknown> {
  const list = body[key];
  if (list instanceof StreamedList) return { ...body, [key]: list.filter(keep) };
  return Array.isArray(list) ? { ...body, [key]: list.filter(keep) } : body;
}

const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );

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
  throw new ApiError(typeof msg === 'string' ? msg : `HTTP ${res.status}`, typeof code === 'string' ? code : null, res.status, extra, res.headers);
}

/** The first line of text in a reply, tags stripped: enough to recognise a proxy's error page. */
function excerpt(text: string): string {
  const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1];
  const plain = (title ?? text.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  return plain.length > 120 ? `${plain.slice(0, 117)}...` : plain;
}
