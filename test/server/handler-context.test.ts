/**
 * Which of a handler's means make its answer depend on more than the store, the caller and the request is
 * decided once, in handler-context.ts's CONTEXT_PURITY: a member without its row fails `tsc` (below), and
 * reading a member marks the answer exactly as its row says, so the answer cache never keeps an answer
 * made with the clock, the client's details, a write or scheduled work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireRequest } from '../../src/api/wire.js';
import type { HandlerContext } from '../../src/server/context.js';
import { type Classified, CONTEXT_PURITY, handlerContext } from '../../src/server/handler-context.js';
import { IN_PROCESS_DESTINATIONS } from '../../src/server/outgoing/destination-policy.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';

// @ts-expect-error A context member added without its classification fails type-checking.
const unclassified: Classified<HandlerContext & { addedLater: number }> = CONTEXT_PURITY;
void unclassified;

describe('the handler context', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const req: WireRequest = { method: 'GET', path: '/users/me', query: [], body: [], headers: { 'user-agent': 'test' }, remoteAddress: '127.0.0.1' };
  const fresh = () =>
    handlerContext(
      { db: org.db, dataDir: org.dataDir, clock: org.clock, log: () => {}, webhookDestinations: IN_PROCESS_DESTINATIONS, background: new Set() },
      req,
      null,
      new AbortController().signal,
    );

  it('has every classified member, and reading one leaves the answer cacheable exactly when it is classified pure', () => {
    const classified = Object.entries(CONTEXT_PURITY);
    // Its own members and those it inherits (the impure ones are getters on its prototype).
    const members: string[] = [];
    for (const member in fresh().handler) members.push(member);
    expect(classified.map(([member]) => member).sort()).toEqual(members.sort());
    for (const [member, purity] of classified) {
      const ctx = fresh();
      expect(ctx.pure(), member).toBe(true);
      expect(Reflect.get(ctx.handler, member), member).toBeDefined();
      expect(ctx.pure(), `${member} is classified ${purity}`).toBe(purity === 'pure');
    }
  });

  it('drops the work deferred in a transaction that failed, and runs what a committed one deferred', async () => {
    const ctx = fresh();
    const ran: string[] = [];
    expect(() =>
      ctx.handler.tx(() => {
        ctx.handler.defer(async () => {
          ran.push('rolled back');
        });
        throw new Error('the transaction fails');
      }),
    ).toThrow('the transaction fails');
    ctx.handler.tx(() =>
      ctx.handler.defer(async () => {
        ran.push('committed');
      }),
    );
    ctx.commit();
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual(['committed']);
  });

  it('marks impure the members that read the clock, the client, write or schedule work', () => {
    const impure = Object.entries(CONTEXT_PURITY)
      .filter(([, purity]) => purity === 'impure')
      .map(([member]) => member)
      .sort();
    expect(impure).toEqual(['clock', 'defer', 'emit', 'hashPassword', 'nowSeconds', 'source', 'tx', 'userAgent']);
  });
});
