/**
 * `serve`'s store leaned on (issue 24): another process holding the write lock holds up only the writes,
 * which wait on the event loop's timers, never the reads; and a store that cannot grow answers 507 with a
 * code of its own, logs one line, and works again once there is room.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOwnUser } from '../../src/api/operations/users.js';
import type { WireResponse } from '../../src/api/wire.js';
import { BUSY_MESSAGE, BUSY_TIMEOUT_MS } from '../../src/server/store/busy.js';
import { neverWaitInline } from '../../src/server/store/busy-retry.js';
import { DB_FILE } from '../../src/server/store/db.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

const statusText = (org: TestOrg): unknown => org.db.prepare('SELECT status_text FROM users WHERE id = ?').pluck().get(org.owner.id);

describe.each(TRANSPORTS)('another process holds the write lock, over %s', (kind) => {
  let org: TestOrg;
  let other: Database.Database;
  let waitInline: () => void;
  beforeAll(() => {
    org = createTestOrg();
    // As serve's connection is once it listens.
    waitInline = neverWaitInline(org.db);
    other = new Database(join(org.dataDir, DB_FILE));
  });
  afterAll(async () => {
    waitInline();
    other.close();
    await org.close();
  });

  it('answers reads while a write waits, and the write goes through once the lock is let go', async () => {
    other.exec('BEGIN IMMEDIATE');
    let writeSettled = false;
    const write = rawRequest(org, kind, { method: 'POST', path: '/users/me/status', body: [['status_text', 'waited']] }).finally(() => {
      writeSettled = true;
    });
    try {
      const client = await clientFor(org, kind);
      for (let i = 0; i < 3; i++) expect((await client.call(getOwnUser, {})).user_id).toBe(org.owner.id);
      // The reads came back while the write still waited: the wait holds nothing else up.
      expect(writeSettled).toBe(false);
    } finally {
      other.exec('ROLLBACK');
    }
    expect((await write).status).toBe(200);
    expect(statusText(org)).toBe('waited');
  });

  it('answers a write 503 with Retry-After once the lock was held past the busy timeout, having changed nothing', async () => {
    other.exec('BEGIN IMMEDIATE');
    let res: WireResponse;
    // The deadline is kept by the server's clock: moved here, instead of waiting 10 s.
    const ticking = setInterval(() => org.clock.advance(1), 10);
    try {
      res = await rawRequest(org, kind, { method: 'POST', path: '/users/me/status', body: [['status_text', 'never']] });
    } finally {
      clearInterval(ticking);
      other.exec('ROLLBACK');
    }
    expect({ status: res.status, body: res.body, retryAfter: res.headers['retry-after'] }).toEqual({
      status: 503,
      body: { result: 'error', msg: BUSY_MESSAGE, code: 'BAD_REQUEST' },
      retryAfter: '1',
    });
    expect(BUSY_MESSAGE).toContain(`${BUSY_TIMEOUT_MS / 1000} s`);
    expect(statusText(org)).not.toBe('never');
  });
});

describe.each(TRANSPORTS)('a store that cannot grow, over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(async () => {
    await org.close();
  });

  const send = (content: string) =>
    rawRequest(org, kind, {
      method: 'POST',
      path: '/messages',
      body: [
        ['type', 'direct'],
        ['to', JSON.stringify([org.owner.id])],
        ['content', content],
      ],
    });

  it('answers 507 STORAGE_FULL with one log line, keeps nothing, and works again once there is room', async () => {
    const pages = org.db.pragma('page_count', { simple: true }) as number;
    const messages = () => org.db.prepare('SELECT count(*) FROM messages').pluck().get() as number;
    const before = messages();
    const logged = org.logs.length;
    // As a full disk does: SQLite cannot add a page (the freelist is empty in a fresh store, and a message of
    // this size needs overflow pages).
    org.db.pragma(`max_page_count = ${pages}`);
    let full: WireResponse;
    try {
      full = await send('x'.repeat(9000));
    } finally {
      org.db.pragma('max_page_count = 4294967294');
    }
    expect({ status: full.status, body: full.body, retryAfter: full.headers['retry-after'] }).toEqual({
      status: 507,
      body: { result: 'error', msg: 'The server is out of disk space; nothing was changed. Try again later.', code: 'STORAGE_FULL' },
      retryAfter: '60',
    });
    // Over HTTP the request's access line is logged too; no stack anywhere.
    const lines = org.logs.slice(logged).filter((l) => !l.includes('"POST /api/v1/messages" 507'));
    expect(lines, org.logs.slice(logged).join('\n')).toHaveLength(1);
    expect(lines[0]).toMatch(/^disk full on POST \/messages: /);
    expect(org.logs.slice(logged).join('\n')).not.toMatch(/\n\s+at |SqliteError/);
    expect(messages()).toBe(before);

    const again = await send('there is room again');
    expect(again.status).toBe(200);
    expect(messages()).toBe(before + 1);
  });
});
