import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireRequest } from '../../src/api/wire.js';
import { EmbeddedOrganization, FEATURE_LEVEL, MIN_FEATURE_LEVEL, UnsupportedFeatureLevelError } from '../../src/server/embedded.js';
import { setFeatureLevel } from '../../src/server/feature-level.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { rawRequest, TRANSPORTS } from '../helpers/transports.js';

const form = (pairs: Record<string, unknown>): [string, string][] => Object.entries(pairs).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]);

describe.each(TRANSPORTS)('an organization answering as an older server, over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const send = (req: Partial<WireRequest> & { method: string; path: string }) => rawRequest(org, kind, req);
  const atLevel = async <T>(level: number, run: () => Promise<T>): Promise<T> => {
    setFeatureLevel(org.db, level);
    try {
      return await run();
    } finally {
      setFeatureLevel(org.db, FEATURE_LEVEL);
    }
  };

  it('reports its level and a version of that level in server_settings and register', async () => {
    await atLevel(263, async () => {
      const settings = await send({ method: 'GET', path: '/server_settings' });
      expect(openapiErrors('get', '/server_settings', 200, settings.body)).toEqual([]);
      expect(settings.body).toMatchObject({ zulip_feature_level: 263, zulip_version: '9.0-dev-chatctl', svc_feature_level: 263 });
      const state = await send({ method: 'POST', path: '/register', body: form({ fetch_event_types: ['realm'] }) });
      expect(state.body).toMatchObject({ zulip_feature_level: 263, zulip_version: '9.0-dev-chatctl' });
    });
    await atLevel(421, async () => {
      expect((await send({ method: 'GET', path: '/server_settings' })).body).toMatchObject({ zulip_feature_level: 421, zulip_version: '11.0-chatctl' });
    });
    expect((await send({ method: 'GET', path: '/server_settings' })).body).toMatchObject({ zulip_feature_level: FEATURE_LEVEL });
  });

  it('has no operation newer than its level: POST /channels/create (417) at 263 is an unknown route', async () => {
    const create = { method: 'POST', path: '/channels/create', body: form({ name: 'level-263', subscribers: [] }) };
    const absent = await atLevel(263, () => send(create));
    expect({ status: absent.status, body: absent.body }).toEqual({ status: 404, body: { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' } });
    // OPTIONS finds nothing either, and no route comes before credentials: a wrong key is told 404, as a Zulip
    // server of that level tells it (the level was read last as another; the request starts over at this one).
    expect((await atLevel(263, () => send({ method: 'OPTIONS', path: '/channels/create' }))).status).toBe(404);
    const wrongKey = { ...create, headers: { authorization: `Basic ${Buffer.from(`${org.owner.email}:${'W'.repeat(32)}`).toString('base64')}` } };
    expect((await atLevel(263, () => send(wrongKey))).status).toBe(404);
    expect((await send(wrongKey)).status).toBe(401);
    expect((await send(create)).status).toBe(200);
  });

  it('answers 405 where the path has only older methods: PATCH /channel_folders (414) at 389 leaves GET', async () => {
    const reorder = { method: 'PATCH', path: '/channel_folders', body: form({ order: [] }) };
    const refused = await atLevel(389, () => send(reorder));
    expect(refused.status).toBe(405);
    expect(refused.body).toEqual({ result: 'error', msg: 'Method Not Allowed', allowed_methods: ['GET', 'HEAD'] });
    expect((await atLevel(388, () => send({ method: 'GET', path: '/channel_folders' }))).status).toBe(404);
  });

  it('ignores parameters newer than its level, listing them in ignored_parameters_unsupported', async () => {
    const list = { method: 'GET', path: '/streams', query: form({ include_can_access_content: true, exclude_archived: true }) };
    const old = await atLevel(263, () => send(list));
    expect(old.status).toBe(200);
    expect(old.body).toMatchObject({ ignored_parameters_unsupported: ['exclude_archived', 'include_can_access_content'] });
    expect(openapiErrors('get', '/streams', 200, old.body)).toEqual([]);
    expect((await send(list)).body).not.toHaveProperty('ignored_parameters_unsupported');
  });

  it('takes a renamed parameter under its older name: include_all_active before 356, include_all ignored', async () => {
    const byOldName = await atLevel(263, () => send({ method: 'GET', path: '/streams', query: form({ include_all_active: true }) }));
    expect(byOldName.status).toBe(200);
    expect(byOldName.body).not.toHaveProperty('ignored_parameters_unsupported');
    const byNewName = await atLevel(263, () => send({ method: 'GET', path: '/streams', query: form({ include_all: true }) }));
    expect(byNewName.body).toMatchObject({ ignored_parameters_unsupported: ['include_all'] });
  });

  it('knows neither include_deactivated_groups nor allow_deactivated before 290, and allow_deactivated until 294', async () => {
    const ask = (name: string) => send({ method: 'GET', path: '/user_groups', query: form({ [name]: true }) });
    await atLevel(263, async () => {
      expect((await ask('include_deactivated_groups')).body).toMatchObject({ ignored_parameters_unsupported: ['include_deactivated_groups'] });
      expect((await ask('allow_deactivated')).body).toMatchObject({ ignored_parameters_unsupported: ['allow_deactivated'] });
    });
    await atLevel(290, async () => {
      expect((await ask('allow_deactivated')).body).not.toHaveProperty('ignored_parameters_unsupported');
      expect((await ask('include_deactivated_groups')).body).toMatchObject({ ignored_parameters_unsupported: ['include_deactivated_groups'] });
    });
  });

  it('at 421 ignores the reverse-linkifier fields of 471, and keeps nothing of them', async () => {
    const body = form({ pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}', example_input: '#12', reverse_template: '#{id}' });
    const added = await atLevel(421, () => send({ method: 'POST', path: '/realm/filters', body }));
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ ignored_parameters_unsupported: ['example_input', 'reverse_template'] });
    const listed = await send({ method: 'GET', path: '/realm/linkifiers' });
    expect(listed.body).toMatchObject({ linkifiers: [{ pattern: '#(?P<id>[0-9]+)', example_input: null, reverse_template: null }] });
  });

  it('refuses in a narrow what its level lacks: is:followed (265) at 263, as an invalid narrow', async () => {
    const query = form({ anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'is', operand: 'followed' }] });
    const old = await atLevel(263, () => send({ method: 'GET', path: '/messages', query }));
    expect({ status: old.status, body: old.body }).toEqual({ status: 400, body: { result: 'error', msg: 'Invalid narrow', code: 'BAD_REQUEST' } });
    expect((await send({ method: 'GET', path: '/messages', query })).status).toBe(200);
  });

  it('leaves out of register the settings and channel folders its level does not send', async () => {
    const fetch = { method: 'POST', path: '/register', body: form({ fetch_event_types: ['realm', 'channel_folders'] }) };
    const old = await atLevel(263, () => send(fetch));
    // can_add_subscribers_group came at 341, require_unique_names at 246; folders at 389.
    expect(old.body).not.toHaveProperty('realm_can_add_subscribers_group');
    expect(old.body).toHaveProperty('realm_require_unique_names', false);
    expect(old.body).not.toHaveProperty('channel_folders');
    const now = await send(fetch);
    expect(now.body).toHaveProperty('realm_can_add_subscribers_group');
    expect(now.body).toHaveProperty('channel_folders');
  });
});

describe('the operator sets the level', () => {
  it('when creating the organization, or later; never outside the levels it can answer as', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chatctl-level-'));
    const org = EmbeddedOrganization.open(dataDir);
    try {
      await expect(
        org.create({ name: 'Old', ownerEmail: 'o@example.com', ownerName: 'Olga', password: 'pw-pw-pw-1', now: 1, featureLevel: 200 }),
      ).rejects.toThrow(UnsupportedFeatureLevelError);
      expect(org.initialized).toBe(false);
      await org.create({ name: 'Old', ownerEmail: 'o@example.com', ownerName: 'Olga', password: 'pw-pw-pw-1', now: 1, featureLevel: 263 });
      expect(org.featureLevel).toBe(263);
      const settings = await org.handle({ method: 'GET', path: '/server_settings', headers: {}, query: [], body: [] });
      expect(settings.body).toMatchObject({ zulip_feature_level: 263 });
      expect(() => org.setFeatureLevel(FEATURE_LEVEL + 1)).toThrow(UnsupportedFeatureLevelError);
      expect(() => org.setFeatureLevel(MIN_FEATURE_LEVEL - 1)).toThrow(UnsupportedFeatureLevelError);
      org.setFeatureLevel(421);
      expect((await org.handle({ method: 'GET', path: '/server_settings', headers: {}, query: [], body: [] })).body).toMatchObject({
        zulip_feature_level: 421,
      });
    } finally {
      await org.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
