/**
 * How failed password logins (`fetch_api_key`) are limited, by Zulip's rules (src/api/rate-limits.ts):
 *
 * - per username *and source*, `authenticate_by_username` (5 failures in 30 minutes): the lockout. It is
 *   keyed by the pair, not by the username alone as on a Zulip server, so that nobody can lock a person out
 *   from somewhere else: an attacker guessing a victim's password from one address locks only that address
 *   out of that account, and the victim's own logins from their address still go through;
 * - per source across all usernames, `api_by_ip` (100 in a minute), counted on failures only: one address
 *   spraying guesses over many accounts is stopped after that many, however many usernames it tries, and
 *   each of those accounts also stays open to everyone else.
 *
 * So every failure that counts towards a lockout is also limited per source. A source is a client's IP
 * address over HTTP (an IPv6 address by its /64, the block one host is usually given, so a host cannot
 * step through its own addresses), and `local` for the in-process embedded transport: the person at this
 * machine, who already holds the data dir. Behind a proxy `serve` was told to trust (--trusted-proxy), the
 * client address is the one that proxy forwarded (client-address.ts), so the proxy's own address does not
 * lock out everyone behind it; X-Forwarded-For from anyone else is not read.
 */
import { ApiError } from '../../api/errors.js';
import { API_BY_IP, AUTHENTICATE_BY_USERNAME, RATE_LIMIT_MESSAGE, type RateRule } from '../../api/rate-limits.js';
import { canonicalAddress } from '../client-address.js';
import type { Db } from '../store/db.js';
import { limitClause } from '../store/limit-clause.js';

/** What the in-process transport counts as: the local process. */
export const LOCAL_SOURCE = 'local';

/** The source a client address counts as. */
export function sourceOf(address: string | undefined): string {
  if (!address) return LOCAL_SOURCE;
  const canonical = canonicalAddress(address);
  if (!canonical.includes(':')) return canonical;
  return `${canonical.split(':').slice(0, 4).join(':')}::/64`;
}

/** The rule per source: the shortest `api_by_ip` window. */
const PER_SOURCE: RateRule = API_BY_IP[0]!;

function countSince(db: Db, where: string, args: unknown[], since: number): { n: number; oldest: number | null } {
  return db.prepare(`SELECT count(*) AS n, min(at) AS oldest FROM login_failures WHERE ${where} AND at > ?`).get(...args, since) as {
    n: number;
    oldest: number | null;
  };
}

/** A 429 when `username` from `source`, or `source` at all, has used up its failures; else nothing. */
export function checkLoginFailures(db: Db, username: string, source: string, now: number): void {
  const limits: [string, unknown[], RateRule][] = [
    ['username = ? AND source = ?', [username, source], AUTHENTICATE_BY_USERNAME],
    ['source = ?', [source], PER_SOURCE],
  ];
  for (const [where, args, rule] of limits) {
    const { n, oldest } = countSince(db, where, args, now - rule.seconds);
    if (n < rule.calls) continue;
    const retryAfter = Math.max(1, (oldest ?? now) + rule.seconds - now);
    throw new ApiError(RATE_LIMIT_MESSAGE, 'RATE_LIMIT_HIT', 429, { 'retry-after': retryAfter }, { 'retry-after': String(retryAfter) });
  }
}

/** Records a failure; each one also clears a few expired ones, so the table stays the size of the window, serve or not. */
export function recordLoginFailure(db: Db, username: string, source: string, now: number): void {
  db.prepare('INSERT INTO login_failures (username, source, at) VALUES (?, ?, ?)').run(username, source, now);
  pruneLoginFailures(db, now, 10);
}

/** A success forgets that username's failures from that source, as a success clears Zulip's bucket. */
export function clearLoginFailures(db: Db, username: string, source: string): void {
  db.prepare('DELETE FROM login_failures WHERE username = ? AND source = ?').run(username, source);
}

/** How long a failure is kept: the longest window a rule above counts it in. */
export const LOGIN_FAILURES_KEPT_SECONDS = Math.max(AUTHENTICATE_BY_USERNAME.seconds, PER_SOURCE.seconds);

/** Deletes up to `limit` failures older than any window, oldest first; returns how many. */
export function pruneLoginFailures(db: Db, now: number, limit: number): number {
  return db
    .prepare(`DELETE FROM login_failures WHERE rowid IN (SELECT rowid FROM login_failures WHERE at <= ? ORDER BY at ${limitClause(limit)})`)
    .run(Math.floor(now) - LOGIN_FAILURES_KEPT_SECONDS).changes;
}
