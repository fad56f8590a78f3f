/**
 * GET /users answered a page at a time: over HTTP the answer is written as it is read (chunked), byte for byte
 * the whole answer; a client that goes away midway leaves the server serving; a client reading the list as a
 * stream sees users as each page was read (model/user-view.ts says why that is the chosen consistency).
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCustomProfileField } from '../../src/api/operations/profile-fields.js';
import { getOwnUser, getUsers, updateUser } from '../../src/api/operations/users.js';
import { StreamedList } from '../../src/api/streamed-list.js';
import type { WireRequest, WireResponse } from '../../src/api/wire.js';
import { withAnswerCache } from '../../src/server/answer-cache.js';
import { createApiServer } from '../../src/server/http.js';
import { USER_PAGE } from '../../src/server/model/user-view.js';
import { seedUsers } from '../../src/server/model/bulk-seed.js';
import { Router } from '../../src/server/router.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor } from '../helpers/transports.js';

// More than two pages, the last one partly filled.
const SEEDED = 2 * USER_PAGE + 500;

describe('GET /users, streamed', () => {
  let org: TestOrg;
  let site: string;
  let authorization: string;
  let ids: number[];
  beforeAll(async () => {
    org = createTestOrg();
    ids = org.db.transaction(() =>
      seedUsers(
        org.db,
        Array.from({ length: SEEDED }, (_, i) => ({ email: `seeded${i}@example.com`, full_name: `Seeded "${i}" é`, role: i % 7 === 0 ? 600 : 400 })),
        org.clock.now(),
      ),
    )();
    org.addUser({ bot: { type: 1, ownerId: ids[0]! } });
    site = await org.http();
    authorization = `Basic ${Buffer.from(`${org.owner.email}:${org.owner.apiKey}`).toString('base64')}`;
    // Profile values on several pages: each page reads its own.
    const owner = await clientFor(org, 'embedded');
    const bio = (await owner.call(createCustomProfileField, { name: 'Bio', field_type: 2 })).id;
    for (const at of [0, USER_PAGE + 3, SEEDED - 1]) await owner.call(updateUser, { user_id: ids[at]!, profile_data: [{ id: bio, value: `bio *${at}*` }] });
  });
  afterAll(() => org.close());

  it.each([
    ['no parameters', ''],
    ['profile data, avatars, an ignored parameter after the list', '?include_custom_profile_fields=true&client_gravatar=false&bogus=1'],
  ])('writes the answer as it reads it (%s), valid against OpenAPI and byte-equal to the whole answer', async (_, query) => {
    const res = await fetch(`${site}/api/v1/users${query}`, { headers: { authorization } });
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const text = await res.text();
    const body = JSON.parse(text) as { members: { user_id: number }[] };
    expect(openapiErrors('get', '/users', 200, body)).toEqual([]);
    expect(body.members).toHaveLength(SEEDED + 2);
    const whole = await org.router.handle({
      method: 'GET',
      path: '/users',
      query: [...new URL(`${site}/x${query}`).searchParams],
      body: [],
      headers: { authorization, host: new URL(site).host },
    });
    expect(text).toBe(JSON.stringify(whole.body));
  });

  it('serves the organization whole after a client went away from its user list', async () => {
    const cut = await new Promise<number>((resolve, reject) => {
      const req = request(`${site}/api/v1/users`, { headers: { authorization } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve(res.statusCode ?? 0);
        });
      });
      req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? undefined : reject(e)));
      req.end();
    });
    expect(cut).toBe(200);
    const client = await clientFor(org, 'http');
    expect((await client.call(getOwnUser, {})).user_id).toBe(org.owner.id);
    expect((await client.call(getUsers, {})).members).toHaveLength(SEEDED + 2);
    expect(org.logs.filter((l) => l.includes('internal error'))).toEqual([]);
  });

  it('stops reading a list when its client goes away, and goes on serving', async () => {
    // A list without end: the client is sure to leave in the middle of it.
    let pages = 0;
    let stopped = false;
    function* endless() {
      try {
        for (;;) yield [{ page: pages++, text: 'x'.repeat(10_000) }];
      } finally {
        stopped = true;
      }
    }
    class EndlessUsers extends Router {
      override answer(req: WireRequest, signal: AbortSignal, o?: { streamAll?: boolean }): WireResponse | Promise<WireResponse> {
        if (req.path !== '/users') return super.answer(req, signal, o);
        return { status: 200, headers: {}, body: { result: 'success', msg: '', members: new StreamedList(endless()) } };
      }
    }
    const logs: string[] = [];
    const server = createApiServer(withAnswerCache(new EndlessUsers({ db: org.db, dataDir: org.dataDir, log: (l) => logs.push(l) })), (l) => logs.push(l));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endlessSite = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await new Promise<void>((resolve, reject) => {
        const req = request(`${endlessSite}/api/v1/users`, { headers: { authorization } }, (res) => res.once('data', () => req.destroy()));
        req.on('close', resolve);
        req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? undefined : reject(e)));
        req.end();
      });
      await vi.waitFor(() => expect(stopped).toBe(true));
      expect(logs).toContainEqual(expect.stringMatching(/"GET \/api\/v1\/users" 499 /));
      const read = pages;
      const me = await fetch(`${endlessSite}/api/v1/users/me`, { headers: { authorization } });
      expect(me.status).toBe(200);
      expect(pages).toBe(read);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('fails an unknown user_ids entry before the list starts, with the whole error answer', async () => {
    const res = await fetch(`${site}/api/v1/users?user_ids=[${ids[5]},999999]`, { headers: { authorization } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ result: 'error', msg: 'Invalid user ID: 999999', code: 'BAD_REQUEST' });
  });

  it('streams user_ids across pages, in ID order', async () => {
    const wanted = [ids[SEEDED - 1]!, ids[2]!, ids[USER_PAGE + 1]!];
    const client = await clientFor(org, 'http');
    const chunks = [];
    for await (const chunk of await client.stream(getUsers, { user_ids: wanted }, 'members')) chunks.push(chunk.map((u) => u.user_id));
    expect(chunks.flat()).toEqual([...wanted].sort((a, b) => a - b));
  });

  it('shows a reader of the stream each page as it was when read: a user created meanwhile comes last', async () => {
    const client = await clientFor(org, 'embedded');
    const stream = await client.stream(getUsers, {}, 'members');
    const seen: { user_id: number; full_name: string }[] = [];
    let created: number | undefined;
    for await (const chunk of stream) {
      seen.push(...chunk);
      if (created !== undefined) continue;
      // The first page is read; the others are not yet.
      expect(chunk).toHaveLength(USER_PAGE);
      created = org.addUser({ name: 'Newcomer' }).id;
      org.db.prepare('UPDATE users SET full_name = ? WHERE id IN (?, ?)').run('Renamed meanwhile', ids[10]!, ids[USER_PAGE + 10]!);
    }
    const listed = seen.map((u) => u.user_id);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed).toEqual([...listed].sort((a, b) => a - b));
    expect(seen.at(-1)).toMatchObject({ user_id: created, full_name: 'Newcomer' });
    // Already read: as it was; not yet read: as it is.
    expect(seen.find((u) => u.user_id === ids[10])!.full_name).toBe('Seeded "10" é');
    expect(seen.find((u) => u.user_id === ids[USER_PAGE + 10])!.full_name).toBe('Renamed meanwhile');
  });
});

describe('GET /users of a small organization', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
    for (let i = 0; i < 20; i++) org.addUser();
  });
  afterAll(() => org.close());

  it('goes out whole with its length, byte-equal to the whole answer, rather than in chunks', async () => {
    const site = await org.http();
    const authorization = `Basic ${Buffer.from(`${org.owner.email}:${org.owner.apiKey}`).toString('base64')}`;
    const res = await fetch(`${site}/api/v1/users`, { headers: { authorization } });
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBeNull();
    const text = await res.text();
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    const body = JSON.parse(text) as { members: unknown[] };
    expect(openapiErrors('get', '/users', 200, body)).toEqual([]);
    expect(body.members).toHaveLength(21);
    const whole = await org.router.handle({ method: 'GET', path: '/users', query: [], body: [], headers: { authorization, host: new URL(site).host } });
    expect(text).toBe(JSON.stringify(whole.body));
  });
});
