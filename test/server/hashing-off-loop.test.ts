/**
 * Password hashing runs off the event loop: while a password is hashed, the loop turns and other work
 * (other requests) goes on. Asserted as an order, not a time: a callback queued for the loop's next turn
 * before the hash starts runs before the hash is done only when the hash does not hold the loop. At the
 * production cost: a test-cost hash (~1 ms) may be done before the loop would turn anyway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, PRODUCTION_HASH_COST, setPasswordHashCost, verifyPassword } from '../../src/server/secrets.js';
import { createTestOrg, USER_PASSWORD, type TestOrg } from '../helpers/org.js';
import { TEST_HASH_COST } from '../setup/password-hashing.js';

/** Whether the event loop turned while `work` ran. */
async function loopTurnedDuring(work: () => Promise<unknown>): Promise<boolean> {
  let turned = false;
  setImmediate(() => (turned = true));
  await work();
  return turned;
}

describe('password hashing', () => {
  let org: TestOrg;
  beforeAll(() => {
    setPasswordHashCost(PRODUCTION_HASH_COST);
    org = createTestOrg();
  });
  afterAll(() => {
    setPasswordHashCost(TEST_HASH_COST);
    return org.close();
  });

  it('hashes and checks a password without holding the event loop', async () => {
    let hash = '';
    expect(await loopTurnedDuring(async () => (hash = await hashPassword('a-long-password')))).toBe(true);
    expect(await loopTurnedDuring(() => verifyPassword('a-long-password', hash))).toBe(true);
    expect(await verifyPassword('a-long-password', hash)).toBe(true);
    expect(await verifyPassword('another-password', hash)).toBe(false);
    // The check an account without a password gets costs the same, off the loop too.
    expect(await loopTurnedDuring(() => verifyPassword('a-long-password', null))).toBe(true);
  });

  it('lets the loop turn while a login is checked and while an account is created', async () => {
    const request = (path: string, body: [string, string][], auth: boolean) =>
      org.router.handle({
        method: 'POST',
        path,
        query: [],
        body,
        headers: auth ? { authorization: `Basic ${Buffer.from(`${org.owner.email}:${org.owner.apiKey}`).toString('base64')}` } : {},
      });
    // Created through the server, so its password is hashed at the production cost (the helpers' users carry
    // a test-cost hash).
    const user = { email: 'logs-in@example.com' };
    await request(
      '/users',
      [
        ['email', user.email],
        ['full_name', 'Logs In'],
        ['password', USER_PASSWORD],
      ],
      true,
    );
    // Once first, so that loading the handlers' modules is not what lets the loop turn.
    await request(
      '/fetch_api_key',
      [
        ['username', user.email],
        ['password', USER_PASSWORD],
      ],
      false,
    );
    let status = 0;
    expect(
      await loopTurnedDuring(
        async () =>
          ({ status } = await request(
            '/fetch_api_key',
            [
              ['username', user.email],
              ['password', USER_PASSWORD],
            ],
            false,
          )),
      ),
    ).toBe(true);
    expect(status).toBe(200);
    await request(
      '/users',
      [
        ['email', 'first-hashed@example.com'],
        ['full_name', 'First'],
        ['password', 'a-long-password'],
      ],
      true,
    );
    expect(
      await loopTurnedDuring(
        async () =>
          ({ status } = await request(
            '/users',
            [
              ['email', 'hashed@example.com'],
              ['full_name', 'Hashed'],
              ['password', 'a-long-password'],
            ],
            true,
          )),
      ),
    ).toBe(true);
    expect(status).toBe(200);
  });
});
