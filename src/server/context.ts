/**
 * What a handler is given: the store, the authenticated caller, the clock, and the means to emit events
 * and to schedule work that must not hold up the response (outgoing webhooks).
 */
import type { AreaName, Catalogue, ServedName } from '../api/catalogue.js';
import type { HandlerParamsOf, Operation, ResponseOf } from '../api/operation.js';
import type { Streamable } from '../api/streamed-list.js';
import type { UploadedFile } from '../api/wire.js';
import { nowMs } from '../time.js';
import type { UserRow } from './model/users.js';
import type { WebhookDestinations } from './outgoing/destination-policy.js';
import type { Db } from './store/db.js';

/** The server's clock, injected so tests can move time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
}

export const systemClock: Clock = { nowMs };

/** Whole seconds since the epoch: the unit of every time the store keeps and most the wire carries. */
export const wholeSeconds = (clock: Clock): number => Math.floor(clock.nowMs() / 1000);

/** The wire's `server_timestamp`: seconds with their fraction, as a Zulip server sends time.time(). */
export const serverTimestamp = (clock: Clock): number => clock.nowMs() / 1000;

/** A task run after the request's transaction commits, off the response's critical path. */
export type BackgroundTask = () => Promise<void>;

export interface EventSink {
  /** Queues `event` for the registered queues of `userIds` that want its type (inside the transaction). */
  emit(event: Record<string, unknown> & { type: string }, userIds: Iterable<number>): void;
}

export interface HandlerContext extends EventSink {
  readonly db: Db;
  readonly dataDir: string;
  /** The authenticated caller; null only for operations with access `none`. */
  readonly caller: UserRow | null;
  /** The organization URL as this request reached it. */
  readonly realmUrl: string;
  readonly clock: Clock;
  /** The clock in whole seconds (wholeSeconds). */
  nowSeconds(): number;
  readonly files: UploadedFile[];
  readonly userAgent: string;
  /** Where the request came from, for per-source limits: a client address, or `local` in-process (login-failures.ts). */
  readonly source: string;
  /** Where outgoing webhooks may connect (outgoing/destinations.ts). */
  readonly webhookDestinations: WebhookDestinations;
  defer(task: BackgroundTask): void;
  /** Runs `fn` in its own write transaction (for async handlers, which get none around them). */
  tx<T>(fn: () => T): T;
  /** Aborted when the client goes away (long polls stop waiting). */
  readonly signal: AbortSignal;
  log(line: string): void;
  /**
   * Hashes a password off the event loop (secrets.ts). The requests of one batch (Router.handleBatch) that
   * carry the same password share its hash: a bulk run's rows without a password all carry the one
   * throwaway password its client made, and hashing it once a row would cost a core ~50 ms a row.
   */
  hashPassword(password: string): Promise<string>;
  /**
   * Whether the request came in a batch (Router.handleBatch): a bulk run's rows, which the organization takes
   * as a Zulip server's bulk import (zerver/lib/bulk_create.py bulk_create_users) takes them, without the
   * notices each single signup sends.
   */
  readonly batched: boolean;
  /**
   * Whether the answer is only ever written as JSON (`serve`), never handed to anyone as values: then a
   * handler may answer with values kept for other requests, and their kept JSON (model/rendered-cache.ts).
   */
  readonly rendersJson: boolean;
}

/** The caller, for handlers of operations that require authentication. */
export function callerOf(ctx: HandlerContext): UserRow {
  if (!ctx.caller) throw new Error('handler of an authenticated operation ran without a caller');
  return ctx.caller;
}

export type Handler<O extends Operation> = (ctx: HandlerContext, params: HandlerParamsOf<O>) => ResponseOf<O> | Promise<ResponseOf<O>>;

export interface Binding<O = Operation> {
  readonly op: O;
  /** The handler; a prepared binding's gets what `prepare` made as its third argument. */
  readonly fn: (ctx: HandlerContext, params: Record<string, unknown>, prepared?: unknown) => unknown;
  /** Async handlers manage their own transactions (long polls, work that waits). */
  readonly async: boolean;
  /**
   * Work done before the write transaction opens, off the event loop (a password's hash): the router awaits
   * it, then runs `fn` in the request's transaction, or in its savepoint of a batch's one transaction.
   */
  readonly prepare?: (ctx: HandlerContext, params: Record<string, unknown>) => Promise<unknown>;
}

/**
 * An area's handlers: one binding per operation it serves, under the operation's name, bound to that very
 * operation. A new operation without its handler fails `tsc` here, naming it, in its area's handler module.
 */
export type Handlers<A extends AreaName> = { readonly [K in ServedName<A>]: Binding<Catalogue[A][K]> };

/**
 * Binds a handler to its operation; the handler runs inside one write transaction. A list of its answer may
 * be a StreamedList of pages the model reads when asked (the router says when: see Router.handle).
 */
export function bind<O extends Operation>(op: O, fn: (ctx: HandlerContext, params: HandlerParamsOf<O>) => Streamable<ResponseOf<O>>): Binding<O> {
  return { op, fn: fn as Binding['fn'], async: false };
}

/**
 * Binds a handler in two steps: `prepare` awaits what must not hold the write lock (hashing), then `write`
 * runs in one write transaction as a `bind` handler does, with what `prepare` made. What `prepare` checked
 * may have changed meanwhile (another request took the address): `write` checks it again.
 */
export function bindPrepared<O extends Operation, P>(
  op: O,
  prepare: (ctx: HandlerContext, params: HandlerParamsOf<O>) => Promise<P>,
  write: (ctx: HandlerContext, params: HandlerParamsOf<O>, prepared: P) => ResponseOf<O>,
): Binding<O> {
  return { op, fn: write as Binding['fn'], async: false, prepare: prepare as Binding['prepare'] };
}

/** Binds a handler that awaits; it must call `ctx.tx` for its writes. */
export function bindAsync<O extends Operation>(op: O, fn: Handler<O>): Binding<O> {
  return { op, fn: fn as Binding['fn'], async: true };
}
