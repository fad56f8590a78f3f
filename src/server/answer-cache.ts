/**
 * Answers to reads the server has given before, given again while the store is unchanged (store/stamp.ts):
 * a client polling `GET /users/me`, or a script reading the same group or user again and again, costs one
 * read of the store's stamp (about 3 µs, and `serve` reads one for all the reads of an event-loop turn)
 * instead of authentication, a read transaction and the handler. Only operations the catalogue
 * declares `cacheable` are kept, and only when handling them read nothing but the store, the caller and the
 * request: the router's context reports a handler that read the clock, the client's address or user agent,
 * wrote, or scheduled work (Router.context), and the stamp must be the same after the handler as before it.
 *
 * An answer is keyed by everything else it can depend on: the Authorization header as sent (an entry exists
 * only once those very credentials were accepted at this stamp, and they cannot have been revoked without a
 * write), the Host and X-Forwarded-Proto headers (links in answers use them), the method, path and query.
 * A wrong key never matches an entry, so it goes the whole way through authentication as before: how fast
 * an answer comes tells nobody without the credentials whether they were used.
 */
import type { Db } from './store/db.js';
import { storeStamp } from './store/stamp.js';

/** What a request is answered by, for those the cache can hold: parameters from the query string only. */
export interface ReadRequest {
  method: string;
  path: string;
  query: [string, string][];
  authorization: string | undefined;
  host: string | undefined;
  forwardedProto: string | undefined;
}

export interface CachedAnswer {
  status: number;
  /** Content-Length included: a kept answer is written as it is. */
  headers: Record<string, string>;
  /** The body's JSON text, as it goes on the wire. */
  text: string;
  /** Whom a rate limit counts the request against: the caller, or null for an operation without authentication. */
  userId: number | null;
}

/** Bounds, so that the cache's memory does not grow with the organization: the oldest answer makes room. */
export const ANSWER_CACHE_LIMITS = { answers: 1000, characters: 16 * 1024 * 1024, answerCharacters: 64 * 1024 };

/**
 * The key of a request's answer: each part as it came, a header left out told apart from an empty one. Parts
 * are joined by newlines, which no header value or encoded path holds over HTTP; a request with one anyway
 * (only an in-process caller could make it) has no key, and is never kept.
 */
export function answerKey(r: ReadRequest): string | undefined {
  const query = r.query.length === 0 ? '' : new URLSearchParams(r.query).toString();
  const parts = [r.method, r.path, query, present(r.authorization), present(r.host), present(r.forwardedProto)];
  return parts.some((part) => part.includes('\n')) ? undefined : parts.join('\n');
}

/** A header's value with a mark that it was sent, or nothing when it was not. */
const present = (value: string | undefined): string => (value === undefined ? '' : `=${value}`);

export class AnswerCache {
  /** The stamp the answers held were kept at. */
  private kept: string | undefined;
  private readonly answers = new Map<string, CachedAnswer>();
  /** Characters of the answers and keys held. */
  private characters = 0;

  constructor(private readonly db: Db) {}

  /**
   * The store's stamp now; the cache is emptied when it differs from the one its answers were kept at. When
   * the store cannot be read (busy for longer than its timeout), undefined, and the cache is emptied: nothing
   * is answered from it or kept in it, and the request goes the whole way, where a busy store is answered 503.
   */
  stamp(): string | undefined {
    let stamp: string | undefined;
    try {
      stamp = storeStamp(this.db);
    } catch {
      stamp = undefined;
    }
    if (stamp === undefined || stamp !== this.kept) {
      this.kept = stamp;
      this.answers.clear();
      this.characters = 0;
    }
    return stamp;
  }

  /**
   * The answers kept for `keys`, each when the store has not changed since it was kept; the stamp is read once
   * for them all, and only when one of them is held.
   */
  find(keys: readonly string[]): (CachedAnswer | undefined)[] {
    if (!keys.some((key) => this.answers.has(key)) || this.stamp() === undefined) return keys.map(() => undefined);
    return keys.map((key) => this.answers.get(key));
  }

  /** Keeps `answer` for `key`, provided the store is still as it was at `stamp` (read before the handler ran). */
  set(key: string, stamp: string, answer: CachedAnswer): void {
    const size = answer.text.length + key.length;
    if (size > ANSWER_CACHE_LIMITS.answerCharacters || this.stamp() !== stamp) return;
    this.drop(key);
    while (this.answers.size >= ANSWER_CACHE_LIMITS.answers || this.characters + size > ANSWER_CACHE_LIMITS.characters) {
      const oldest = this.answers.keys().next();
      if (oldest.done) break;
      this.drop(oldest.value);
    }
    this.answers.set(key, answer);
    this.characters += size;
  }

  private drop(key: string): void {
    const answer = this.answers.get(key);
    if (!answer) return;
    this.answers.delete(key);
    this.characters -= answer.text.length + key.length;
  }
}
