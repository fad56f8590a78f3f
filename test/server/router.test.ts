import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getServerSettings } from '../../src/api/operations/server.js';
import { getUsers } from '../../src/api/operations/users.js';
import type { WireResponse } from '../../src/api/wire.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { openapiErrors } from '../helpers/openapi.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('router wire rules over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('serves server settings without authentication, valid against the OpenAPI description', async () => {
    const client = await clientFor(org, kind, null);
    const res = await client.call(getServerSettings, {});
    expect(res.zulip_feature_level).toBeGreaterThan(0);
    expect(res.svc_feature_level).toBe(res.zulip_feature_level);
    expect(res.svc_version).toBe(res.zulip_version);
    expect(res.svc_merge_base).toBe(res.zulip_merge_base);
    expect(res.realm_name).toBe('Test org');
    expect(res.realm_uri).toBe(res.realm_url);
    expect(openapiErrors('get', '/server_settings', 200, res)).toEqual([]);
  });

  it('lists users with every 2.1 field, valid against the OpenAPI description', async () => {
    org.addUser({ role: 600, name: 'Gus Guest' });
    const res = await (await clientFor(org, kind)).call(getUsers, {});
    expect(openapiErrors('get', '/users', 200, res)).toEqual([]);
    const owner = res.members.find((m) => m.user_id === org.owner.id)!;
    expect(owner).toMatchObject({
      role: 100,
      is_owner: true,
      is_admin: true,
      is_guest: false,
      is_bot: false,
      bot_type: null,
      delivery_email: 'owner@example.com',
    });
    expect(Object.keys(owner).sort()).toEqual(
      [
        'avatar_url',
        'avatar_version',
        'bot_type',
        'date_joined',
        'delivery_email',
        'email',
        'full_name',
        'is_active',
        'is_admin',
        'is_bot',
        'is_billing_admin',
        'is_guest',
        'is_imported_stub',
        'is_owner',
        'role',
        'timezone',
        'user_id',
      ].sort(),
    );
    expect(res.members.find((m) => m.full_name === 'Gus Guest')).toMatchObject({ role: 600, is_guest: true });
  });

  it('honours user_ids and client_gravatar', async () => {
    const client = await clientFor(org, kind);
    const res = await client.call(getUsers, { user_ids: [org.owner.id], client_gravatar: true });
    expect(res.members.map((m) => m.user_id)).toEqual([org.owner.id]);
    expect(res.members[0]!.avatar_url).toBeNull();
    const withUrls = await client.call(getUsers, { user_ids: [org.owner.id], client_gravatar: false });
    expect(withUrls.members[0]!.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\//);
  });

  it('lists what it did not read in ignored_parameters_unsupported, sorted, from body and query', async () => {
    const res = await rawRequest(org, kind, {
      method: 'GET',
      path: '/users',
      query: [
        ['zeta', '1'],
        ['alpha', '2'],
        ['client', 'x'],
        ['client_gravatar', 'false'],
      ],
    });
    expect(res.status).toBe(200);
    expect((res.body as { ignored_parameters_unsupported: string[] }).ignored_parameters_unsupported).toEqual(['alpha', 'zeta']);
    const clean = await rawRequest(org, kind, { method: 'GET', path: '/users' });
    expect(clean.body).not.toHaveProperty('ignored_parameters_unsupported');
  });

  it('reads parameters from the query string for POST too', async () => {
    const res = await rawRequest(
      org,
      kind,
      {
        method: 'POST',
        path: '/fetch_api_key',
        query: [
          ['username', 'owner@example.com'],
          ['password', 'owner-password-1'],
        ],
      },
      null,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result: 'success', email: 'owner@example.com', api_key: org.owner.apiKey });
  });

  it('reports a missing argument, bad JSON and a non-boolean as a Zulip server does', async () => {
    const missing = await rawRequest(org, kind, { method: 'POST', path: '/fetch_api_key', body: [['username', 'owner@example.com']] }, null);
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ result: 'error', msg: "Missing 'password' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'password' });
    const badJson = await rawRequest(org, kind, { method: 'GET', path: '/users', query: [['user_ids', '[1,']] });
    expect(badJson.body).toEqual({ result: 'error', msg: 'user_ids is not valid JSON', code: 'BAD_REQUEST' });
    const notBool = await rawRequest(org, kind, { method: 'GET', path: '/users', query: [['client_gravatar', '1']] });
    expect(notBool.body).toEqual({ result: 'error', msg: 'client_gravatar is not a boolean', code: 'BAD_REQUEST' });
  });

  it('answers 404 for unknown paths and 405 without a code, listing the allowed methods with HEAD where GET is', async () => {
    const notFound = await rawRequest(org, kind, { method: 'GET', path: '/no/such/thing' });
    expect(notFound.status).toBe(404);
    // zerver/lib/response.py json_method_not_allowed; zerver/lib/rest.py adds HEAD wherever GET is.
    const wrong = await rawRequest(org, kind, { method: 'PUT', path: '/users' });
    expect(wrong.status).toBe(405);
    expect(wrong.body).toEqual({ result: 'error', msg: 'Method Not Allowed', allowed_methods: ['GET', 'POST', 'HEAD'] });
    expect(wrong.headers.allow).toBe('GET, POST, HEAD');
    const noGet = await rawRequest(org, kind, { method: 'GET', path: '/typing' });
    expect(noGet.status).toBe(405);
    expect(noGet.body).toEqual({ result: 'error', msg: 'Method Not Allowed', allowed_methods: ['POST'] });
    const options = await rawRequest(org, kind, { method: 'OPTIONS', path: '/users' });
    expect({ status: options.status, allow: options.headers.allow }).toEqual({ status: 204, allow: 'GET, HEAD, POST' });
  });

  it('answers HEAD where it lists it: a GET route answers HEAD with the GET status and no body over HTTP', async () => {
    const head = await rawRequest(org, kind, { method: 'HEAD', path: '/users/me' });
    expect(head.status).toBe(200);
    if (kind === 'http') expect(head.body ?? null).toBeNull();
  });

  it('takes a path segment that is not valid percent-encoding as it stands, as a Django server does, not as a 500', async () => {
    const user = await rawRequest(org, kind, { method: 'GET', path: '/users/%zz' });
    expect({ status: user.status, body: user.body }).toEqual({ status: 400, body: { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' } });
    // The UTF-8 bytes of a lone surrogate do not decode either.
    const domain = await rawRequest(org, kind, { method: 'DELETE', path: '/realm/domains/%ED%A0%80' });
    expect({ status: domain.status, body: domain.body }).toEqual({
      status: 400,
      body: { result: 'error', msg: 'No entry found for domain %ED%A0%80.', code: 'BAD_REQUEST' },
    });
    expect(org.logs.filter((l) => l.startsWith('internal error'))).toEqual([]);
  });

  describe('HTTP Basic authentication', () => {
    const auth = (value: string) => ({ authorization: value });
    const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`;

    it.each([
      ['no header', {}, 401, 'Not logged in: API authentication or user session required'],
      ['a malformed key', auth(basic('owner@example.com', 'short')), 401, 'Malformed API key'],
      ['a wrong key', auth(basic('owner@example.com', 'A'.repeat(32))), 401, 'Invalid API key'],
      ['an unknown e-mail', auth(basic('nobody@example.com', 'A'.repeat(32))), 401, 'Invalid API key'],
      ['bad base64', auth('Basic !!!'), 401, 'Invalid authorization header for basic auth'],
    ] as const)('refuses %s', async (_name, headers, status, msg) => {
      const res = await rawRequest(org, kind, { method: 'GET', path: '/users', headers: { ...headers } }, null);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ result: 'error', msg, code: 'UNAUTHORIZED' });
      expect(res.headers['www-authenticate']).toBe('Basic realm="zulip"');
    });

    it('refuses another scheme with 400', async () => {
      const res = await rawRequest(org, kind, { method: 'GET', path: '/users', headers: { authorization: 'Bearer abc' } }, null);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'This endpoint requires HTTP basic authentication.', code: 'BAD_REQUEST' });
    });

    it('refuses a deactivated account and compares the e-mail without case', async () => {
      const gone = org.addUser({ active: false });
      const res = await rawRequest(org, kind, { method: 'GET', path: '/users' }, gone);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ result: 'error', msg: 'Account is deactivated', code: 'UNAUTHORIZED' });
      const upper = await rawRequest(
        org,
        kind,
        { method: 'GET', path: '/users', headers: { authorization: basic('OWNER@EXAMPLE.COM', org.owner.apiKey) } },
        null,
      );
      expect(upper.status).toBe(200);
    });

    it('refuses incoming-webhook bots on normal endpoints', async () => {
      const bot = org.addUser({ bot: { type: 2, ownerId: org.owner.id } });
      const res = await rawRequest(org, kind, { method: 'GET', path: '/users' }, bot);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ msg: 'This API is not available to incoming webhook bots.', code: 'UNAUTHORIZED' });
    });
  });
});

describe('the router answering in the turn it is asked', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const get = (path: string, query: [string, string][] = []) => ({
    method: 'GET',
    path,
    query,
    body: [],
    headers: { authorization: `Basic ${Buffer.from(`${org.owner.email}:${org.owner.apiKey}`).toString('base64')}` },
  });

  it('answers a synchronous handler of a loaded area at once, as handle answers it', async () => {
    const signal = new AbortController().signal;
    // The first request of an area loads its handlers: that one is awaited.
    const first = org.router.answer(get('/streams'), signal);
    expect(first).toBeInstanceOf(Promise);
    const whole = await first;
    const later = org.router.answer(get('/streams'), signal);
    expect(later).not.toBeInstanceOf(Promise);
    // (The answer cache may add the length it keeps an answer with: the answers are the same.)
    const answered = (r: WireResponse) => ({ status: r.status, body: r.body });
    expect(answered(later as WireResponse)).toEqual(answered(whole));
    expect(answered(later as WireResponse)).toEqual(answered(await org.router.handle(get('/streams'))));
    // Refusals too: no key, a value it cannot read.
    expect(org.router.answer({ ...get('/streams'), headers: {} }, signal)).toMatchObject({ status: 401 });
    expect(org.router.answer(get('/streams', [['include_public', 'maybe']]), signal)).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
  });

  it('answers by a promise what awaits: an async handler, a password to hash', async () => {
    const signal = new AbortController().signal;
    await org.router.handle(get('/users/me'));
    const login = org.router.answer(
      {
        method: 'POST',
        path: '/fetch_api_key',
        query: [],
        body: [
          ['username', org.owner.email],
          ['password', 'not it'],
        ],
        headers: {},
      },
      signal,
    );
    expect(login).toBeInstanceOf(Promise);
    expect(await login).toMatchObject({ status: 401 });
  });
});
