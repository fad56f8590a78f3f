/**
 * The context a handler runs with, and the one place that decides which of its members make an answer depend
 * on more than the store, the caller and the request (answer-cache.ts keeps only answers that do not):
 * reading the clock or the client's details, writing, or scheduling work. A member added to HandlerContext
 * without its row in CONTEXT_PURITY fails `tsc` here; the context is built from that record, so a member
 * classified 'impure' marks the answer whenever a handler reads it.
 */
import type { WireRequest } from '../api/wire.js';
import type { BackgroundTask, Clock, HandlerContext } from './context.js';
import { wholeSeconds } from './context.js';
import { emitEvent } from './model/event-queues.js';
import { sourceOf } from './model/login-failures.js';
import { getSetting } from './model/realm.js';
import type { WebhookDestinations } from './outgoing/destination-policy.js';
import { hashPassword } from './secrets.js';
import type { Db } from './store/db.js';
import { inTransaction } from './store/transactions.js';

export type Purity = 'pure' | 'impure';

/** A classification of every member of `T`, optional ones included. */
export type Classified<T> = { readonly [K in keyof T]-?: Purity };

export const CONTEXT_PURITY: Classified<HandlerContext> = {
  db: 'pure',
  dataDir: 'pure',
  batched: 'pure',
  rendersJson: 'pure',
  caller: 'pure',
  // Host and X-Forwarded-Proto are part of a kept answer's key.
  realmUrl: 'pure',
  clock: 'impure',
  nowSeconds: 'impure',
  files: 'pure',
  userAgent: 'impure',
  source: 'impure',
  webhookDestinations: 'pure',
  signal: 'pure',
  log: 'pure',
  emit: 'impure',
  defer: 'impure',
  hashPassword: 'impure',
  tx: 'impure',
};

const PURE_MEMBERS = (Object.keys(CONTEXT_PURITY) as (keyof HandlerContext)[]).filter((k) => CONTEXT_PURITY[k] === 'pure');
const IMPURE_MEMBERS = (Object.keys(CONTEXT_PURITY) as (keyof HandlerContext)[]).filter((k) => CONTEXT_PURITY[k] === 'impure');

/**
 * A handler's context: the pure members its own properties, the impure ones getters that mark the answer
 * impure when read, defined once on the prototype: defining them on every request's object was most of what
 * building a context cost, and left the object in dictionary mode for the handler's reads. Being inherited,
 * the impure members are not copied by a spread or listed by Object.keys: pass the context itself.
 */
class ClassifiedContext {
  readonly #members: HandlerContext;
  readonly #impureRead: () => void;

  constructor(members: HandlerContext, impureRead: () => void) {
    this.#members = members;
    this.#impureRead = impureRead;
    const own = this as unknown as Record<string, unknown>;
    for (const key of PURE_MEMBERS) own[key] = members[key];
  }

  static {
    for (const key of IMPURE_MEMBERS) {
      Object.defineProperty(ClassifiedContext.prototype, key, {
        enumerable: true,
        get(this: ClassifiedContext) {
          this.#impureRead();
          return this.#members[key];
        },
      });
    }
  }
}

export interface ContextSetting {
  db: Db;
  dataDir: string;
  clock: Clock;
  log: (line: string) => void;
  webhookDestinations: WebhookDestinations;
  /** Where started background work is tracked until it settles (Router.drain). */
  background: Set<Promise<void>>;
}

export interface BuiltContext {
  handler: HandlerContext;
  /** Whether the handler used only members classified 'pure'. */
  pure(): boolean;
  /** Whether a transaction of an async handler has committed: then the handler cannot be run again. */
  committedSome(): boolean;
  /** Starts the deferred work once the transaction has committed. */
  commit(): void;
}

/**
 * A handler's context; `hashes` are the password hashes its batch shares (none: not in a batch, every hash its
 * own), `rendersJson` whether its answer is only written as JSON (HandleOptions.rendersJson).
 */
export function handlerContext(
  setting: ContextSetting,
  req: WireRequest,
  caller: HandlerContext['caller'],
  signal: AbortSignal,
  o: { hashes?: Map<string, Promise<string>>; rendersJson?: boolean } = {},
): BuiltContext {
  const { hashes } = o;
  const { db, dataDir, clock, log, background } = setting;
  const deferred: BackgroundTask[] = [];
  let pure = true;
  let committed = false;
  const host = req.headers.host;
  const members: HandlerContext = {
    db,
    dataDir,
    batched: hashes !== undefined,
    rendersJson: o.rendersJson === true,
    caller,
    // Over HTTP the organization is wherever the client reached it; in-process it is the stored URL.
    realmUrl: host ? `${req.headers['x-forwarded-proto'] || 'http'}://${host}` : getSetting(db, 'url'),
    clock,
    nowSeconds: () => wholeSeconds(clock),
    files: req.files ?? [],
    userAgent: req.headers['user-agent'] ?? '',
    source: sourceOf(req.remoteAddress),
    webhookDestinations: setting.webhookDestinations,
    signal,
    log,
    emit: (event, userIds) => emitEvent(db, event, userIds, wholeSeconds(clock)),
    defer: (task) => {
      deferred.push(task);
    },
    hashPassword: (password) => {
      if (!hashes) return hashPassword(password);
      let hash = hashes.get(password);
      if (!hash) {
        hash = hashPassword(password);
        hashes.set(password, hash);
      }
      return hash;
    },
    tx: (fn) => {
      // Work deferred inside a transaction that fails is for writes that never were (a sent message's kept rendering).
      const mark = deferred.length;
      try {
        const out = inTransaction(db, 'immediate', fn);
        committed = true;
        return out;
      } catch (e) {
        deferred.length = mark;
        throw e;
      }
    },
  };
  const handler = new ClassifiedContext(members, () => {
    pure = false;
  });
  return {
    // Every member of `members` is on `handler` (its own, or a getter it inherits), under CONTEXT_PURITY's complete
    // list of keys, which the class's type cannot say.
    handler: handler as unknown as HandlerContext,
    pure: () => pure,
    committedSome: () => committed,
    commit: () => {
      for (const task of deferred.splice(0)) {
        const running: Promise<void> = task()
          .catch((e: unknown) => log(`background task failed: ${e instanceof Error ? e.message : String(e)}`))
          .finally(() => background.delete(running));
        background.add(running);
      }
    },
  };
}
