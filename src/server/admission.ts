/**
 * Rate limits as a wrapper `serve --rate-limit` composes around the answer cache and the router: every request
 * that reaches an operation and authenticates is counted (the router asks `admit` there, before the role
 * gate, as a Zulip server's rate_limit does after authentication), and so is one answered from the cache.
 */
import type { CachingAnswerer } from './answering.js';
import type { Admit } from './rate-limit.js';

export function withAdmission(admit: Admit, inner: CachingAnswerer): CachingAnswerer {
  return {
    db: inner.db,
    handle: (req, signal, o) => inner.handle(req, signal, { ...o, admit }),
    answer: (req, signal, o) => inner.answer(req, signal, { ...o, admit }),
    handleBatch: (reqs, signal) => inner.handleBatch(reqs, signal, { admit }),
    cachedAnswers: (reads) => inner.cachedAnswers(reads, admit),
    mayAnswer: (read) => inner.mayAnswer(read),
    refusalBeforeBody: (method, path, authorization) => inner.refusalBeforeBody(method, path, authorization),
    drain: () => inner.drain(),
    close: () => inner.close(),
  };
}
