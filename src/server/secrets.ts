/**
 * Credentials at rest and in comparison: scrypt password hashes, CSPRNG API keys, constant-time checks.
 * Hashing runs on libuv's thread pool (`crypto.scrypt`), never on the event loop: at ~50 ms a hash, a
 * synchronous one would hold up every other request of `serve` for as long.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { randomAlphanumeric } from '../random.js';

export const newApiKey = (): string => randomAlphanumeric(32);

/** scrypt's cost parameters. Each hash carries those it was made with, so it verifies whatever the cost is now. */
export interface HashCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

// N=2^15 costs ~50 ms here: slow for guessing, fine for a login.
export const PRODUCTION_HASH_COST: HashCost = { N: 32768, r: 8, p: 1 };
const MAXMEM = 64 * 1024 * 1024;
const KEYLEN = 32;

let cost = PRODUCTION_HASH_COST;

/**
 * Test seam: the cost of new hashes, and of the decoy check an account without a password gets. Only tests
 * call it (test/setup/password-hashing.ts lowers it for every test file, so suites logging in by the hundred do
 * not pay ~50 ms a login); no module of src/ does (test/server/password-hash-cost.test.ts checks).
 */
export function setPasswordHashCost(next: HashCost): void {
  cost = next;
}

/**
 * Hashes running at once. Off the event loop is not enough: each hash keeps a core busy for its ~50 ms,
 * and with as many hashes as cores the event loop's thread waits for a core too. One core is left to it;
 * further hashes queue (a login waits, the other requests do not).
 */
const HASH_SLOTS = Math.max(1, availableParallelism() - 1);
let hashing = 0;
const waiting: (() => void)[] = [];

async function derive(password: string, salt: Buffer | string, keylen: number, options: ScryptOptions): Promise<Buffer> {
  if (hashing >= HASH_SLOTS) await new Promise<void>((resolve) => waiting.push(resolve));
  else hashing++;
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      scrypt(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key)));
    });
  } finally {
    // The slot passes straight to the next waiter, if any.
    const next = waiting.shift();
    if (next) next();
    else hashing--;
  }
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = cost;
  const hash = await derive(password.normalize('NFKC'), salt, KEYLEN, { N, r, p, maxmem: MAXMEM });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split('$') ?? [];
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    // Spend the same time as a real check, so timing does not tell which accounts have a password.
    await derive(password, 'no-password', KEYLEN, { ...cost, maxmem: MAXMEM });
    return false;
  }
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAXMEM,
  });
  return timingSafeEqual(actual, expected);
}

/** Compares two secrets in time independent of where they differ. */
export function secretsEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
