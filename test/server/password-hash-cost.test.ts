/**
 * The test seam for the cost of password hashing: tests hash cheaply, production keeps scrypt's N=2^15, and a
 * hash verifies whichever cost made it (each stored hash carries its parameters).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashPassword, PRODUCTION_HASH_COST, setPasswordHashCost, verifyPassword } from '../../src/server/secrets.js';
import { SRC, sourceFiles } from '../architecture/sources.js';
import { TEST_HASH_COST } from '../setup/password-hashing.js';

/** The N, r and p a stored hash was made with. */
const costOf = (hash: string) => {
  const [, N, r, p] = hash.split('$');
  return { N: Number(N), r: Number(r), p: Number(p) };
};

describe('the cost of password hashing', () => {
  afterEach(() => setPasswordHashCost(TEST_HASH_COST));

  it('is scrypt N=32768, r=8, p=1 in a module nothing has configured, as in production', async () => {
    vi.resetModules();
    const fresh = await import('../../src/server/secrets.js');
    const hash = await fresh.hashPassword('a-long-password');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await fresh.verifyPassword('a-long-password', hash)).toBe(true);
    expect(PRODUCTION_HASH_COST).toEqual({ N: 32768, r: 8, p: 1 });
  });

  it('is the cheap test cost in tests, which is what keeps login-heavy suites fast', async () => {
    expect(costOf(await hashPassword('a-long-password'))).toEqual(TEST_HASH_COST);
    expect(TEST_HASH_COST.N).toBeLessThan(PRODUCTION_HASH_COST.N);
  });

  it('lets a hash made at either cost verify at the other', async () => {
    const cheap = await hashPassword('a-long-password');
    setPasswordHashCost(PRODUCTION_HASH_COST);
    const strong = await hashPassword('a-long-password');
    expect(costOf(strong)).toEqual(PRODUCTION_HASH_COST);
    expect(await verifyPassword('a-long-password', cheap)).toBe(true);
    expect(await verifyPassword('another-password', cheap)).toBe(false);
    setPasswordHashCost(TEST_HASH_COST);
    expect(await verifyPassword('a-long-password', strong)).toBe(true);
    expect(await verifyPassword('another-password', strong)).toBe(false);
  });

  it('is changed by no module of src/ (only the test setup calls the seam)', () => {
    const callers = sourceFiles().filter((file) => /\bsetPasswordHashCost\s*\(/.test(readFileSync(join(SRC, file), 'utf8')));
    // secrets.ts declares it (`function setPasswordHashCost(`); nothing calls it.
    expect(callers).toEqual(['server/secrets.ts']);
    const declaration = readFileSync(join(SRC, 'server/secrets.ts'), 'utf8').match(/\bsetPasswordHashCost\s*\(/g);
    expect(declaration).toHaveLength(1);
  });
});
