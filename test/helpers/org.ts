/**
 * A real embedded organization in a temporary data dir, with helpers to add users of any role and to serve
 * it over HTTP on 127.0.0.1. Tests run operations against it through the real router.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Role } from '../../src/api/roles.js';
import type { Clock } from '../../src/server/context.js';
import { createApiServer } from '../../src/server/http.js';
import { insertUser, type UserRow } from '../../src/server/model/users.js';
import type { WebhookDestinations } from '../../src/server/outgoing/destination-policy.js';
import { withAnswerCache } from '../../src/server/answer-cache.js';
import type { CachingAnswerer } from '../../src/server/answering.js';
import { Router } from '../../src/server/router.js';
import { hashPassword } from '../../src/server/secrets.js';
import { createOrganization } from '../../src/server/setup.js';
import { openDb, type Db } from '../../src/server/store/db.js';

export interface TestUser {
  id: number;
  email: string;
  apiKey: string;
  password: string;
  row: UserRow;
}

/** A clock tests can move, kept in seconds (`t`, `now`, `advance`) as fixtures write times. */
export class TestClock implements Clock {
  constructor(public t = 1_760_000_000) {}
  now(): number {
    return this.t;
  }
  nowMs(): number {
    return this.t * 1000;
  }
  advance(seconds: number): void {
    this.t += seconds;
  }
}

export const OWNER_PASSWORD = 'owner-password-1';
/** What users added with `password: true` log in with. */
export const USER_PASSWORD = 'user-password-1';
// Hashed once per test file (at the test cost, test/setup/password-hashing.ts): hashing is asynchronous.
const [OWNER_PASSWORD_HASH, USER_PASSWORD_HASH] = await Promise.all([hashPassword(OWNER_PASSWORD), hashPassword(USER_PASSWORD)]);

export interface TestOrg {
  dataDir: string;
  db: Db;
  /** The router with its answer cache, as the embedded organization and `serve` compose it. */
  router: CachingAnswerer;
  clock: TestClock;
  owner: TestUser;
  /**
   * Adds a user directly in the store (fast fixtures); the role defaults to member. Only with
   * `password: true` does the user get a password (USER_PASSWORD, the same for all).
   */
  addUser(opts?: {
    role?: Role;
    email?: string;
    name?: string;
    bot?: { type: 1 | 2 | 3 | 4; ownerId: number; url?: string };
    active?: boolean;
    password?: boolean;
  }): TestUser;
  /** Serves the organization over HTTP on 127.0.0.1 (once); returns the site URL. */
  http(): Promise<string>;
  /** Logged lines of the router and the HTTP server. */
  logs: string[];
  /** A connection of its own to the same store, as another process holds one (closed with the organization). */
  otherConnection(): Db;
  close(): Promise<void>;
}

let counter = 0;

export function createTestOrg(opts: { clock?: TestClock; webhookDestinations?: WebhookDestinations } = {}): TestOrg {
  const dataDir = mkdtempSync(join(tmpdir(), 'chatctl-test-'));
  const db = openDb(dataDir);
  const clock = opts.clock ?? new TestClock();
  const logs: string[] = [];
  const log = (l: string) => logs.push(l);
  const ownerRow = createOrganization(db, {
    name: 'Test org',
    ownerEmail: 'owner@example.com',
    ownerName: 'Olivia Owner',
    passwordHash: OWNER_PASSWORD_HASH,
    now: clock.now(),
  });
  const router = withAnswerCache(new Router({ db, dataDir, clock, log, ...(opts.webhookDestinations && { webhookDestinations: opts.webhookDestinations }) }));
  let server: ReturnType<typeof createApiServer> | undefined;
  const others: Db[] = [];
  let site: Promise<string> | undefined;
  const asTestUser = (row: UserRow, password: string): TestUser => ({ id: row.id, email: row.email, apiKey: row.api_key, password, row });
  const org: TestOrg = {
    dataDir,
    db,
    router,
    clock,
    logs,
    owner: asTestUser(ownerRow, OWNER_PASSWORD),
    addUser(o = {}) {
      const n = ++counter;
      const row = insertUser(
        db,
        {
          email: o.email ?? `user${n}@example.com`,
          full_name: o.name ?? `Test User ${n}`,
          role: o.role ?? 400,
          password_hash: o.password && !o.bot ? USER_PASSWORD_HASH : null,
          is_bot: Boolean(o.bot),
          bot_type: o.bot?.type ?? null,
          bot_owner_id: o.bot?.ownerId ?? null,
          service_base_url: o.bot?.url ?? null,
          service_interface: o.bot?.type === 3 ? 1 : null,
          service_token: o.bot?.type === 3 ? `token${n}`.padEnd(32, 'x') : null,
        },
        clock.now(),
      );
      db.prepare('INSERT OR IGNORE INTO subscriptions (user_id, stream_id) SELECT ?, id FROM streams WHERE is_default = 1').run(row.id);
      if (o.active === false) db.prepare('UPDATE users SET is_active = 0 WHERE id = ?').run(row.id);
      return asTestUser({ ...row, is_active: o.active === false ? 0 : 1 }, USER_PASSWORD);
    },
    otherConnection() {
      const other = openDb(dataDir);
      others.push(other);
      return other;
    },
    http() {
      site ??= new Promise((resolve, reject) => {
        server = createApiServer(router, log);
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`));
      });
      return site;
    },
    async close() {
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((r) => server!.close(() => r()));
      }
      await router.drain();
      for (const other of others) other.close();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return org;
}
