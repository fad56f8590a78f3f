/**
 * Run before every test file (vitest.config.ts `setupFiles`): passwords hashed in tests cost ~1 ms instead of
 * production's ~50 ms, so suites that log in by the hundred stay fast. Production never runs this; the
 * chatctl binary the end-to-end tests spawn hashes at the production cost.
 */
import { setPasswordHashCost, type HashCost } from '../../src/server/secrets.js';

export const TEST_HASH_COST: HashCost = { N: 1024, r: 8, p: 1 };

setPasswordHashCost(TEST_HASH_COST);
