/**
 * The embedded implementation's single entry: (method, path, headers, parameters) in, (status, headers,
 * JSON body) out, with no HTTP inside. The embedded transport calls it in-process and `chatctl serve`
 * calls it per HTTP request, so both behave the same by construction; each composes around it what it
 * needs (answer-cache.ts, admission.ts), which take part through the options a request carries.
 *
 * Order as on a Zulip server: route → method → authentication → (admission) → role gate → parameter
 * decoding → handler (in one write transaction) → `ignored_parameters_unsupported`.
 */
import { ApiError, storageFull } from '../api/errors.js';
import type { AreaName } from '../api/catalogue.js';
import type { Operation } from '../api/operation.js';
import { collectNow, StreamedList } from '../api/streamed-list.js';
import type { WireRequest, WireResponse } from '../api/wire.js';
import type { Answerer, HandleOptions } from './answering.js';
import { checkAccess, credentials } from './auth.js';
import type { Binding, Clock, HandlerContext } from './context.js';
import { systemClock } from './context.js';
import { handlerAreas } from './handlers/index.js';
import { type BuiltContext, type ContextSetting, handlerContext } from './handler-context.js';
import { IN_PROCESS_DESTINATIONS, type WebhookDestinations } from './outgoing/destination-policy.js';
import { BUSY_MESSAGE, isBusy, isStorageFull } from './store/busy.js';
import { type RetryOptions, retryWhileBusy, tryNowThenWhileBusy } from './store/busy-retry.js';
import type { Db } from './store/db.js';
import { inTransaction } from './store/transactions.js';
import { checkFieldCounts, requestParams } from './request-params.js';
import { featureLevel } from './feature-level.js';
import { Routes } from './routes.js';
import { SERVE_RETRY_AFTER_SECONDS } from '../timeouts.js';

const json = (status: number, body: unknown, headers: Record<string, string> = {}): WireResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

const errorResponse = (e: ApiError): WireResponse => json(e.status, e.body(), e.headers);

export interface RouterOptions {
  db: Db;
  dataDir: string;
  clock?: Clock;
  /** Where handler log lines go (serve: stderr). */
  log?: (line: string) => void;
  /** Where outgoing webhooks may connect; in-process, this machine's own services too. */
  webhookDestinations?: WebhookDestinations;
}

export class Router implements Answerer {
  private readonly routes = new Routes();
  private readonly loaded = new Map<AreaName, Promise<Map<string, Binding>>>();
  /** The same, once loaded: a request to a loaded area is answered without awaiting anything (answer). */
  private readonly bound = new Map<AreaName, Map<string, Binding>>();
  private readonly background = new Set<Promise<void>>();
  /** What every handler's context is made of (handler-context.ts). */
  private readonly setting: ContextSetting;
  /** The organization's feature level as last read (admit). */
  private level: number | undefined;

  constructor(private readonly opts: RouterOptions) {
    this.setting = {
      db: opts.db,
      dataDir: opts.dataDir,
      clock: opts.clock ?? systemClock,
      log: opts.log ?? (() => {}),
      webhookDestinations: opts.webhookDestinations ?? IN_PROCESS_DESTINATIONS,
      background: this.background,
    };
  }

  /** The handler bound to `op`, loading its area's module on first use. */
  private async binding(op: Operation, area: AreaName): Promise<Binding> {
    let byName = this.loaded.get(area);
    if (!byName) {
      byName = handlerAreas[area]().then((handlers) => {
        const bindings = new Map(Object.values<Binding>(handlers).map((b) => [b.op.name, b]));
        this.bound.set(area, bindings);
        return bindings;
      });
      this.loaded.set(area, byName);
    }
    return this.found(op, area, await byName);
  }

  /** The handler bound to `op` when its area's module is loaded already (else undefined: binding loads it). */
  private boundNow(op: Operation, area: AreaName): Binding | undefined {
    const bindings = this.bound.get(area);
    return bindings && this.found(op, area, bindings);
  }

  private found(op: Operation, area: AreaName, bindings: Map<string, Binding>): Binding {
    const found = bindings.get(op.name);
    if (!found) throw new Error(`no handler for ${op.name} in area ${area}`);
    return found;
  }

  get db(): Db {
    return this.opts.db;
  }

  /** Resolves once every background task started so far (and any they start) has finished. */
  async drain(): Promise<void> {
    while (this.background.size) await Promise.allSettled([...this.background]);
  }

  /** Waits for the background work, then closes the store: the end of a server in this process (the embedded transport's close). */
  async close(): Promise<void> {
    await this.drain();
    this.opts.db.close();
  }

  /**
   * Answers a request. A list the handler makes in pages stays a StreamedList when the request asks for it
   * by its key (`req.stream`: the embedded transport, for a client that reads it as it comes), or with
   * `streamAll` (`chatctl serve`, which writes every such list as it reads it); any other is read whole,
   * inside the handler's transaction, so that it is one snapshot as before.
   */
  async handle(req: WireRequest, signal: AbortSignal = new AbortController().signal, o: HandleOptions = {}): Promise<WireResponse> {
    return this.answer(req, signal, o);
  }

  /**
   * Answers a request as `handle` does, in this turn of the event loop when nothing is to be awaited: a
   * synchronous handler of an area loaded before, on a store that is not busy. Anything else (the first request
   * to an area, whose handlers load then; an async handler; a hash to make; a busy store) is answered by the
   * promise returned.
   */
  answer(req: WireRequest, signal: AbortSignal, o: HandleOptions = {}): WireResponse | Promise<WireResponse> {
    const streamed = (key: string) => o.streamAll === true || key === req.stream;
    // The rate-limit headers of an admitted request go on its answer, an error included.
    const limits: Record<string, string> = {};
    const failed = (e: unknown) => errorResponse(this.failure(req, e));
    const withLimits = (out: WireResponse): WireResponse => (Object.keys(limits).length === 0 ? out : { ...out, headers: { ...out.headers, ...limits } });
    let out: WireResponse | Promise<WireResponse>;
    try {
      const admitted = this.admit(req, limits, o);
      out = 'binding' in admitted ? this.run(admitted, signal, streamed, o) : admitted;
    } catch (e) {
      out = failed(e);
    }
    return out instanceof Promise ? out.catch(failed).then(withLimits) : withLimits(out);
  }

  /** What a failure is answered with: an API error as it is, a busy store as 503, anything else logged and 500. */
  private failure(req: WireRequest, e: unknown): ApiError {
    if (e instanceof ApiError) return e;
    if (isBusy(e)) return new ApiError(BUSY_MESSAGE, 'BAD_REQUEST', 503, {}, { 'retry-after': String(SERVE_RETRY_AFTER_SECONDS) });
    if (isStorageFull(e)) {
      // One line, not a stack: a full disk is the operator's to fix, and every request would log it again.
      this.opts.log?.(`disk full on ${req.method} ${req.path}: ${e instanceof Error ? e.message : String(e)}`);
      return storageFull();
    }
    this.opts.log?.(`internal error on ${req.method} ${req.path}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return new ApiError('Internal server error', 'BAD_REQUEST', 500);
  }

  /**
   * The lists of an answer as the caller takes them: streamed ones with their failures turned into API errors
   * as whole answers' are (the status has gone out by then: serve cuts the answer short, an embedded client
   * gets the error), the others read whole.
   */
  private settle(req: WireRequest, result: unknown, streamed: (key: string) => boolean): Record<string, unknown> {
    const values = result as Record<string, unknown>;
    // Most answers hold no list in pages: they are taken as they are.
    if (!Object.values(values).some((v) => v instanceof StreamedList)) return values;
    const out = { ...values };
    for (const [key, value] of Object.entries(out)) {
      if (!(value instanceof StreamedList)) continue;
      if (!streamed(key)) {
        out[key] = collectNow(value);
        continue;
      }
      const failure = (e: unknown) => this.failure(req, e);
      out[key] = new StreamedList(
        (async function* () {
          try {
            yield* value;
          } catch (e) {
            throw failure(e);
          }
        })(),
      );
    }
    return out;
  }

  /**
   * What a request is refused with on its headers alone, before its body is read (serve asks for a body that
   * is not small): no route, no method, or the credentials; undefined when it may go on. Whether an operation
   * without authentication may take a large body is the caller's to decide (`open` says it takes none).
   */
  refusalBeforeBody(method: string, path: string, authorization: string | undefined): { refusal?: ApiError; open?: boolean } {
    try {
      // The credentials come with the level the route is found at (one statement); refused only once it is found.
      const given = credentials(this.opts.db, authorization);
      const { hit } = this.routes.resolve(method, path, given.level);
      if (!hit || hit.route.op.access === 'none') return { open: true };
      if (given.caller instanceof ApiError) throw given.caller;
      return {};
    } catch (e) {
      if (e instanceof ApiError) return { refusal: e };
      throw e;
    }
  }

  /**
   * Runs an admitted request's handler and answers with its result, telling `pure` when the answer depends on
   * nothing else: at once for a synchronous handler whose area is loaded, unless the store is busy.
   */
  private run(
    admitted: Admitted,
    signal: AbortSignal,
    streamed: (key: string) => boolean,
    o: Pick<HandleOptions, 'pure' | 'rendersJson'> = {},
  ): WireResponse | Promise<WireResponse> {
    const { binding } = admitted;
    return binding && !binding.async && !binding.prepare
      ? this.runNow({ ...admitted, binding }, signal, streamed, o)
      : this.runLater(admitted, signal, streamed, o);
  }

  /**
   * A synchronous handler in its transaction, now, with what it prepared (if anything). A try that found the
   * store busy is run again from the start, with a fresh context: nothing it scheduled or emitted survives its
   * rolled-back transaction; what a prepared handler prepared (a hash) is kept across tries.
   */
  private runNow(
    admitted: Admitted & { binding: Binding },
    signal: AbortSignal,
    streamed: (key: string) => boolean,
    o: Pick<HandleOptions, 'pure' | 'rendersJson'>,
    prepared?: unknown,
  ): WireResponse | Promise<WireResponse> {
    const { req, op, binding, params } = admitted;
    const { db } = this.setting;
    const tries = this.tries(admitted, signal, o.rendersJson);
    const attempt = () => {
      const ctx = tries.context();
      return { ctx, result: inHandlerTransaction(db, op, () => this.settle(req, binding.fn(ctx.handler, params, prepared), streamed)) };
    };
    const tried = tryNowThenWhileBusy(db, attempt, tries.retry);
    return tried instanceof Promise ? tried.then((t) => this.answered(admitted, t.ctx, t.result, o)) : this.answered(admitted, tried.ctx, tried.result, o);
  }

  /** `run` for a handler that awaits: one whose area is not loaded yet, an async one, or one with work to prepare first (a hash). */
  private async runLater(
    admitted: Admitted,
    signal: AbortSignal,
    streamed: (key: string) => boolean,
    o: Pick<HandleOptions, 'pure' | 'rendersJson'>,
  ): Promise<WireResponse> {
    const { req, params, caller } = admitted;
    const binding = admitted.binding ?? (await this.binding(admitted.op, admitted.area));
    const { rendersJson } = o;
    if (!binding.async) {
      const prepared = await binding.prepare?.(handlerContext(this.setting, req, caller, signal, { rendersJson }).handler, params);
      return this.runNow({ ...admitted, binding }, signal, streamed, o, prepared);
    }
    // An async handler manages its own transactions.
    const tries = this.tries(admitted, signal, rendersJson);
    const attempt = async () => {
      const ctx = tries.context();
      return { ctx, result: this.settle(req, await binding.fn(ctx.handler, params), streamed) };
    };
    const { ctx, result } = await retryWhileBusy(this.setting.db, attempt, tries.retry);
    return this.answered(admitted, ctx, result, o);
  }

  /**
   * A request's tries: a fresh handler context for each (nothing a try that found the store busy scheduled or
   * emitted survives it), and the retry options, which try again only while the last try committed nothing.
   */
  private tries(admitted: Admitted, signal: AbortSignal, rendersJson: boolean | undefined): { context: () => BuiltContext; retry: RetryOptions } {
    let last: BuiltContext | undefined;
    const { clock } = this.setting;
    return {
      context: () => {
        last = handlerContext(this.setting, admitted.req, admitted.caller, signal, { rendersJson });
        return last;
      },
      retry: { nowMs: () => clock.nowMs(), mayRepeat: () => last?.committedSome() !== true, signal },
    };
  }

  /** The answer of a handler that returned `result`, its deferred work started, `pure` told of it when it may. */
  private answered(admitted: Admitted, ctx: BuiltContext, result: Record<string, unknown>, { pure }: Pick<HandleOptions, 'pure'>): WireResponse {
    ctx.commit();
    const out = json(200, successBody(admitted.req, admitted.read, result));
    // A list still streaming is not one answer that could be given again.
    if (pure && ctx.pure() && !Object.values(result).some((v) => v instanceof StreamedList)) pure(out, admitted.caller?.id ?? null);
    return out;
  }

  /**
   * A request up to its handler, in a Zulip server's order: route, method, credentials, rate limit, role
   * gate, parameters. The response when it goes no further (OPTIONS, a rate-limit refusal); errors thrown.
   */
  private admit(req: WireRequest, limits: Record<string, string>, o: Pick<HandleOptions, 'admit' | 'reached'>, again = false): Admitted | WireResponse {
    const method = req.method.toUpperCase();
    // The organization's level decides what exists (server/feature-level.ts). It is read per request, so that an
    // operator's change holds from the next one, with the caller's row (auth.ts credentials): the route is
    // found at the level read last, and the request starts over (once) should the one read now differ.
    this.level ??= featureLevel(this.opts.db);
    const level = this.level;
    let found: ReturnType<Routes['resolve']> | undefined;
    let noRoute: unknown;
    try {
      found = this.routes.resolve(method, req.path, level);
    } catch (e) {
      noRoute = e;
    }
    const routed = found?.hit?.route.op;
    const given = routed && routed.access !== 'none' ? credentials(this.opts.db, req.headers.authorization) : undefined;
    this.level = given?.level ?? featureLevel(this.opts.db);
    if (this.level !== level && !again) return this.admit(req, limits, o, true);
    if (!found) throw noRoute;
    if (!found.hit) return { status: 204, headers: { allow: found.allowed.join(', ') }, body: null };
    const { hit } = found;
    const { op } = hit.route;
    checkFieldCounts(req);

    o.reached?.(op);
    if (given?.caller instanceof ApiError) throw given.caller;
    const caller = given?.caller ?? null;
    const admission = o.admit?.(caller ? { userId: caller.id } : { address: req.remoteAddress ?? '' });
    if (admission) {
      if (admission.refusal) return admission.refusal;
      Object.assign(limits, admission.headers);
    }
    if (caller) checkAccess(caller, op.access, op.bots ?? true);
    const { params, read } = requestParams(hit, req, level);
    return { req, op, caller, params, read, area: hit.route.area, binding: this.boundNow(op, hit.route.area) };
  }

  /**
   * Answers requests given together (a bulk run's rows, from the embedded transport's batch) as `handle`
   * answers each, in order, with one write transaction for them all: each request in its own savepoint, so
   * one that fails takes back only its own writes, and what handlers prepare before the lock (hashes) is
   * prepared for all of them first, side by side. Lists are read whole. A request whose handler manages its
   * own transactions (a login, a long poll) runs on its own as `handle` would run it, before that transaction.
   */
  async handleBatch(
    reqs: readonly WireRequest[],
    signal: AbortSignal = new AbortController().signal,
    o: Pick<HandleOptions, 'admit'> = {},
  ): Promise<WireResponse[]> {
    const hashes = new Map<string, Promise<string>>();
    const limits = reqs.map((): Record<string, string> => ({}));
    const answers: (WireResponse | undefined)[] = reqs.map(() => undefined);
    const fail = (i: number, e: unknown) => {
      answers[i] = errorResponse(this.failure(reqs[i]!, e));
    };
    const admitted = await Promise.all(
      reqs.map(async (req, i) => {
        try {
          const a = this.admit(req, limits[i]!, o);
          if (!('binding' in a)) {
            answers[i] = a;
            return undefined;
          }
          const binding = a.binding ?? (await this.binding(a.op, a.area));
          if (binding.async) answers[i] = await this.run({ ...a, binding }, signal, () => false);
          else
            return {
              ...a,
              binding,
              index: i,
              prepared: await binding.prepare?.(handlerContext(this.setting, req, a.caller, signal, { hashes }).handler, a.params),
            };
        } catch (e) {
          fail(i, e);
        }
        return undefined;
      }),
    );
    const together = admitted.filter((a) => a !== undefined);
    if (together.length) {
      const { db, clock } = this.setting;
      const attempt = () =>
        inTransaction(db, 'immediate', () =>
          together.map((a) => {
            const ctx = handlerContext(this.setting, a.req, a.caller, signal, { hashes });
            try {
              return {
                ok: true as const,
                a,
                ctx,
                result: inTransaction(db, 'immediate', () => this.settle(a.req, a.binding.fn(ctx.handler, a.params, a.prepared), () => false)),
              };
            } catch (e) {
              // A busy store fails them all: the whole transaction is tried again.
              if (isBusy(e)) throw e;
              return { ok: false as const, a, error: e };
            }
          }),
        );
      for (const done of await retryWhileBusy(db, attempt, { nowMs: () => clock.nowMs(), signal })) {
        if (!done.ok) {
          fail(done.a.index, done.error);
          continue;
        }
        done.ctx.commit();
        answers[done.a.index] = json(200, successBody(done.a.req, done.a.read, done.result));
      }
    }
    return answers.map((out, i) => {
      if (!out) throw new Error('a request of a batch went unanswered');
      return { ...out, headers: { ...out.headers, ...limits[i] } };
    });
  }
}

/** A request that has passed everything before its handler: its operation, caller, parameters and binding. */
interface Admitted {
  req: WireRequest;
  op: Operation;
  caller: HandlerContext['caller'];
  params: Record<string, unknown>;
  /** The wire names of the parameters read, so the others are reported ignored. */
  read: Set<string>;
  area: AreaName;
  /** Undefined until its area's module is loaded (the first request of an area loads it). */
  binding: Binding | undefined;
}

/** The body of a success: the handler's result, and the parameters the request sent that the operation ignored. */
function successBody(req: WireRequest, read: Set<string>, result: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { result: 'success', msg: '', ...result };
  const unread = ([k]: [string, string]) => !read.has(k) && k !== 'client';
  // Looked for before anything is made: most requests send only what their operation reads.
  if (!req.body.some(unread) && !req.query.some(unread)) return body;
  body.ignored_parameters_unsupported = [...new Set([...req.body, ...req.query].filter(unread).map(([k]) => k))].sort();
  return body;
}

/**
 * Runs a synchronous handler in one transaction. A GET only reads, so it takes a snapshot and never waits
 * for (or blocks) another process's writer; should one write after all, it fails at once on a busy store
 * and is run again, from the start, holding the write lock.
 */
function inHandlerTransaction<T>(db: Db, op: Operation, fn: () => T): T {
  if (op.method !== 'GET') return inTransaction(db, 'immediate', fn);
  try {
    return inTransaction(db, 'deferred', fn);
  } catch (e) {
    if (isBusy(e)) return inTransaction(db, 'immediate', fn);
    throw e;
  }
}
