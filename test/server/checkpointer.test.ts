/**
 * serve's checkpoints (src/server/store/checkpointer.ts): a write that finds the log past its limit waits for
 * the worker to copy it back and empty it, every write that comes meanwhile waits for the same checkpoint,
 * and a log under the limit costs a write nothing. Over HTTP that wait counts toward the request's start
 * deadline: a write that cannot start in time is answered 503, while reads go on.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { basicAuthHeader } from '../../src/api/wire.js';
import { createApiServer } from '../../src/server/http.js';
import { SERVE_BOUNDS } from '../../src/server/http-bounds.js';
import { type Checkpoints, checkpointOffLoop } from '../../src/server/store/checkpointer.js';
import { DB_FILE, openDb, type Db } from '../../src/server/store/db.js';
import { WAL_LIMIT_BYTES } from '../../src/server/store/wal-limit.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';

describe("serve's checkpoints", () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chatctl-checkpoints-'));
    db = openDb(dir);
    db.exec('CREATE TABLE ballast (v BLOB)');
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const walBytes = () => statSync(join(dir, `${DB_FILE}-wal`), { throwIfNoEntry: false })?.size ?? 0;
  /** Writes about `bytes` to the log in one transaction. */
  const write = (bytes: number) => {
    const insert = db.prepare('INSERT INTO ballast VALUES (randomblob(4000))');
    db.transaction(() => {
      for (let n = 0; n < bytes; n += 4000) insert.run();
    }).immediate();
  };

  it('holds a write back until a log past its limit is copied back and emptied, one checkpoint for all the writes meanwhile', async () => {
    const checkpoints = checkpointOffLoop(db);
    try {
      write(WAL_LIMIT_BYTES * 1.5);
      expect(walBytes()).toBeGreaterThan(WAL_LIMIT_BYTES);
      const first = checkpoints.beforeWrite();
      expect(checkpoints.beforeWrite()).toBe(first);
      await first;
      expect(walBytes()).toBe(0);
      expect(db.prepare('SELECT count(*) FROM ballast').pluck().get()).toBeGreaterThan(1000);
      // The next write goes on at once, into the emptied log.
      expect(checkpoints.beforeWrite()).toBeUndefined();
      write(100_000);
      expect(walBytes()).toBeLessThan(WAL_LIMIT_BYTES);
    } finally {
      await checkpoints.stop();
    }
  });
});

describe("serve's checkpoints without their worker", () => {
  it('fall back to SQLite making them on this connection, and writes never wait for a worker that is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatctl-checkpoints-'));
    const db = openDb(dir);
    // The worker opens the file by its path: with the directory gone it cannot, and fails as it starts.
    rmSync(dir, { recursive: true, force: true });
    const checkpoints = checkpointOffLoop(db);
    try {
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      const deadline = Date.now() + 5000;
      while (db.pragma('wal_autocheckpoint', { simple: true }) !== 1000) {
        if (Date.now() > deadline) throw new Error('the checkpoints did not fall back');
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(checkpoints.beforeWrite()).toBeUndefined();
    } finally {
      await checkpoints.stop();
      db.close();
    }
  });
});

describe('a write over HTTP', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  /** `org` served over HTTP with these checkpoints; its API's URL. */
  const serveWith = async (org: TestOrg, checkpoints: Pick<Checkpoints, 'beforeWrite' | 'pending'>, bounds = SERVE_BOUNDS): Promise<string> => {
    server = createApiServer(org.router, () => {}, bounds, { checkpoints });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  };
  /** A write: the owner's presence report. */
  const reportPresence = (site: string, org: TestOrg): Promise<Response> =>
    fetch(`${site}/users/me/presence`, {
      method: 'POST',
      headers: { authorization: basicAuthHeader(org.owner.email, org.owner.apiKey), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'status=active',
    });

  it('that waited for a checkpoint past its deadline is answered 503 with Retry-After, while reads are answered', async () => {
    const org = createTestOrg();
    try {
      let release = () => {};
      const checkpoint = new Promise<void>((resolve) => {
        release = resolve;
      });
      const site = await serveWith(org, { beforeWrite: () => checkpoint, pending: () => checkpoint }, { ...SERVE_BOUNDS, queueDeadlineMs: 100 });
      const sent = reportPresence(site, org);
      const read = await fetch(`${site}/users/me`, { headers: { authorization: basicAuthHeader(org.owner.email, org.owner.apiKey) } });
      expect(read.status).toBe(200);
      // Refused at its deadline, not once the checkpoint is over.
      const refused = await sent;
      release();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toEqual({ result: 'error', msg: 'The server is overloaded; try again later', code: 'BAD_REQUEST' });
    } finally {
      await org.close();
    }
  });

  it('that a checkpoint overtook while it waited for its turn waits for that checkpoint too, then starts', async () => {
    const org = createTestOrg();
    try {
      let release = () => {};
      const checkpoint = new Promise<void>((resolve) => {
        release = resolve;
      });
      // Nothing to wait for when the write is read; a checkpoint under way by the time its turn comes.
      let asked = 0;
      let copied = false;
      const beforeWrite = () => (++asked === 1 || copied ? undefined : checkpoint);
      const pending = () => (copied ? undefined : checkpoint);
      const site = await serveWith(org, { beforeWrite, pending });
      let answered = false;
      const sent = reportPresence(site, org).then((res) => {
        answered = true;
        return res;
      });
      await new Promise((r) => setTimeout(r, 100));
      expect(answered).toBe(false);
      copied = true;
      release();
      expect((await sent).status).toBe(200);
      expect(asked).toBeGreaterThanOrEqual(2);
    } finally {
      await org.close();
    }
  });

  it('starts once the checkpoint it waited for is over, even when no checkpoint can empty the log (an old reader holds it)', async () => {
    const org = createTestOrg();
    try {
      // Every ask is a new 10 ms copy that leaves the log as large as it was.
      let copy: Promise<void> | undefined;
      let running = false;
      const beforeWrite = () => {
        running = true;
        copy = new Promise<void>((resolve) => setTimeout(resolve, 10)).then(() => {
          running = false;
        });
        return copy;
      };
      const pending = () => (running ? copy : undefined);
      const site = await serveWith(org, { beforeWrite, pending });
      expect((await reportPresence(site, org)).status).toBe(200);
    } finally {
      await org.close();
    }
  });
});
