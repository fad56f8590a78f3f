/**
 * Feature levels: read from GET /server_settings (documented shapes, old servers), cached, and turned into
 * the document's §9 adaptations; operations a server is too old for are refused before they are sent.
 */
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operation, p } from '../../src/api/operation.js';
import { s } from '../../src/api/schema.js';
import { exitKindOf, reportError } from '../../src/cli/core/errors.js';
import { ChatClient } from '../../src/client/client.js';
import { FeatureCache, FeatureLevelError, type FeatureCacheOptions, type ServerFacts } from '../../src/client/features.js';
import { HttpTransport } from '../../src/client/http.js';
import { documentedExample } from './examples.js';

const SITE = 'http://chat.test';
const CREDS = { email: 'iago@zulip.com', apiKey: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' };
const NOW_MS = 1_760_000_000_000;

/** The documented server_settings example, at a chosen level (undefined: the field left out, as in the example). */
function settingsAt(level: number | undefined, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const body = { ...documentedExample('GET', '/server_settings'), ...extra };
  if (level !== undefined) body.zulip_feature_level = level;
  return body;
}

function clientWith(features?: FeatureCacheOptions): ChatClient {
  return new ChatClient(new HttpTransport(SITE), CREDS, {}, features ? { features: new FeatureCache({ nowMs: () => NOW_MS, ...features }) } : {});
}

beforeEach(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe('reading the level', () => {
  it('reads zulip_feature_level and zulip_version', async () => {
    nock(SITE).get('/api/v1/server_settings').reply(200, settingsAt(300));
    const client = clientWith();
    expect(await client.featureLevel()).toBe(300);
    expect(await client.serverFacts()).toMatchObject({ featureLevel: 300, version: '5.0-dev-1650-gc3fd37755f' });
  });

  it("reads the document's svc_feature_level and svc_version", async () => {
    const body = settingsAt(undefined, { svc_feature_level: 263, svc_version: '9.0' });
    delete body.zulip_version;
    nock(SITE).get('/api/v1/server_settings').reply(200, body);
    expect(await clientWith().serverFacts()).toMatchObject({ featureLevel: 263, version: '9.0' });
  });

  it('takes an absent level as 0 (the documented example of an old server has none)', async () => {
    nock(SITE).get('/api/v1/server_settings').reply(200, settingsAt(undefined));
    expect(await clientWith().featureLevel()).toBe(0);
  });

  it('reads once per client, however many ask at once', async () => {
    const scope = nock(SITE).get('/api/v1/server_settings').once().reply(200, settingsAt(170));
    const client = clientWith();
    expect(await Promise.all([client.featureLevel(), client.featureLevel(), client.featureLevel()])).toEqual([170, 170, 170]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('the cache', () => {
  it('trusts a fresh cached level without asking the server', async () => {
    const client = clientWith({ cached: { featureLevel: 260, version: '9.0', checkedAt: NOW_MS / 1000 - 3600 } });
    expect(await client.featureLevel()).toBe(260);
  });

  it('reads again when the cached level is older than the TTL, and stores what it read', async () => {
    nock(SITE).get('/api/v1/server_settings').reply(200, settingsAt(384));
    const saved: ServerFacts[] = [];
    const client = clientWith({ cached: { featureLevel: 260, checkedAt: NOW_MS / 1000 - 25 * 3600 }, save: async (f) => void saved.push(f) });
    expect(await client.featureLevel()).toBe(384);
    expect(saved).toEqual([{ featureLevel: 384, version: '5.0-dev-1650-gc3fd37755f', checkedAt: NOW_MS / 1000 }]);
  });
});

describe('gated operations', () => {
  const newThing = operation<Record<string, never>>()({
    name: 'set-message-edit-typing-status',
    method: 'POST',
    path: '/messages/{message_id}/typing',
    summary: 's',
    access: 'user',
    params: { message_id: p.path(s.int()), op: p.req(s.string()) },
    minFeatureLevel: 361,
  });

  it('says "needs feature level ≥ N (server has M)" and exits 1', async () => {
    nock(SITE).get('/api/v1/server_settings').reply(200, settingsAt(300));
    const e = await clientWith({ gate: true })
      .call(newThing, { message_id: 5, op: 'start' })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FeatureLevelError);
    expect((e as Error).message).toBe('set-message-edit-typing-status needs feature level ≥ 361 (server has 300)');
    expect(exitKindOf(e)).toBe('failure');
    expect(reportError(e).text).toBe('chatctl: set-message-edit-typing-status needs feature level ≥ 361 (server has 300)');
  });

  it('reads again before refusing on a cached level: the server may have been upgraded', async () => {
    const scope = nock(SITE)
      .get('/api/v1/server_settings')
      .reply(200, settingsAt(400))
      .post('/api/v1/messages/5/typing', 'op=start')
      .reply(200, { result: 'success', msg: '' });
    await clientWith({ gate: true, cached: { featureLevel: 300, checkedAt: NOW_MS / 1000 - 60 } }).call(newThing, { message_id: 5, op: 'start' });
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an operation of a later level before sending it, on a gating client', async () => {
    nock(SITE).get('/api/v1/server_settings').reply(200, settingsAt(300));
    const client = clientWith({ gate: true });
    await expect(client.call(newThing, { message_id: 5, op: 'start' })).rejects.toThrow(
      'set-message-edit-typing-status needs feature level ≥ 361 (server has 300)',
    );
  });

  it('sends it when the server is recent enough', async () => {
    nock(SITE)
      .get('/api/v1/server_settings')
      .reply(200, settingsAt(421))
      .post('/api/v1/messages/5/typing', 'op=start')
      .reply(200, { result: 'success', msg: '' });
    await clientWith({ gate: true }).call(newThing, { message_id: 5, op: 'start' });
  });

  it('does not gate a client without a gating source (the embedded organization runs what it routes)', async () => {
    nock(SITE).post('/api/v1/messages/5/typing').reply(200, { result: 'success', msg: '' });
    await clientWith({ gate: false }).call(newThing, { message_id: 5, op: 'start' });
  });
});
