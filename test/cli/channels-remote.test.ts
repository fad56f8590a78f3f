/**
 * Channel commands against servers at the feature levels where the API changed, stood in for by nock:
 * POST /channels/create (417) against creating by subscribing; unarchiving (388); subscriber_count (394);
 * archived channels in GET /streams (315).
 */
import { writeFileSync } from 'node:fs';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonLines, runCli, tempHome } from '../helpers/cli.js';
import { documentedExample } from '../client/examples.js';

const SITE = 'http://channels.chat.test';
const creds = { ZULIP_EMAIL: 'iago@zulip.com', ZULIP_API_KEY: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' };
const ok = { result: 'success', msg: '' };
const run = (argv: string[], stdin?: string) => runCli(['--server', SITE, ...argv], { env: { ...tempHome().env, ...creds }, stdin });

function serverAt(level: number): void {
  nock(SITE)
    .get('/api/v1/server_settings')
    .reply(200, { ...documentedExample('GET', '/server_settings'), zulip_feature_level: level, realm_url: SITE, realm_uri: SITE })
    .persist();
}

const channel = (id: number, name: string, more: Record<string, unknown> = {}) => ({
  stream_id: id,
  name,
  description: '',
  invite_only: false,
  is_web_public: false,
  is_archived: false,
  folder_id: null,
  history_public_to_subscribers: true,
  ...more,
});

const users = [
  { user_id: 8, email: 'ada@zulip.com', delivery_email: 'ada@zulip.com', full_name: 'Ada', is_active: true, is_bot: false },
  { user_id: 9, email: 'bob@zulip.com', delivery_email: 'bob@zulip.com', full_name: 'Bob', is_active: true, is_bot: false },
];

describe('channel commands against older and newer servers', () => {
  beforeEach(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it('channels create uses POST /channels/create from feature level 417', async () => {
    serverAt(417);
    nock(SITE)
      .get('/api/v1/users')
      .query(true)
      .reply(200, { ...ok, members: users });
    const bodies: Record<string, string>[] = [];
    nock(SITE)
      .post('/api/v1/channels/create', (b: Record<string, string>) => bodies.push(b) > 0)
      .reply(200, { ...ok, id: 31 });
    const r = await run(['channels', 'create', 'design', '--user', 'ada@zulip.com', '--privacy', 'private', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ stream_id: 31, name: 'design' });
    expect(bodies[0]).toMatchObject({ name: 'design', subscribers: '[8]', invite_only: 'true' });
  });

  it('channels create subscribes to create before 417, and finds the new ID by name', async () => {
    serverAt(400);
    nock(SITE)
      .get('/api/v1/users')
      .query(true)
      .reply(200, { ...ok, members: users });
    const bodies: Record<string, string>[] = [];
    nock(SITE)
      .post('/api/v1/users/me/subscriptions', (b: Record<string, string>) => bodies.push(b) > 0)
      .reply(200, { ...ok, subscribed: { '8': ['design'] }, already_subscribed: {} });
    nock(SITE)
      .get('/api/v1/streams')
      .query(true)
      .reply(200, { ...ok, streams: [channel(32, 'design')] });
    const r = await run(['channels', 'create', 'design', '--user', 'ada@zulip.com', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ stream_id: 32, name: 'design' });
    expect(bodies[0]).toMatchObject({ subscriptions: JSON.stringify([{ name: 'design' }]), principals: '[8]' });
  });

  it('channels unarchive is refused before 388, before anything is read', async () => {
    serverAt(387);
    const r = await run(['channels', 'unarchive', 'old']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('channels unarchive needs feature level ≥ 388 (server has 387)');
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('channels unarchive finds archived channels by name and unarchives them from 388', async () => {
    serverAt(388);
    nock(SITE)
      .get('/api/v1/streams')
      .query((q) => q.exclude_archived === 'false')
      .reply(200, { ...ok, streams: [channel(5, 'old', { is_archived: true })] });
    const bodies: Record<string, string>[] = [];
    nock(SITE)
      .patch('/api/v1/streams/5', (b: Record<string, string>) => bodies.push(b) > 0)
      .reply(200, ok);
    const r = await run(['channels', 'unarchive', 'old', '--json']);
    expect(r.code).toBe(0);
    expect(bodies).toEqual([{ is_archived: 'false' }]);
  });

  it('channels archive on a server before 315 lists what it can (no archived channels) and archives', async () => {
    serverAt(300);
    nock(SITE)
      .get('/api/v1/streams')
      .query((q) => q.exclude_archived === undefined)
      .reply(200, { ...ok, streams: [channel(5, 'old')] });
    nock(SITE).delete('/api/v1/streams/5').reply(200, ok);
    const r = await run(['channels', 'archive', 'old', '--yes', '--json']);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ status: 'archived', id: 5 });
  });

  it('channels list counts each channel’s members on servers before 394 (no subscriber_count)', async () => {
    serverAt(390);
    nock(SITE)
      .get('/api/v1/streams')
      .query(true)
      .reply(200, { ...ok, streams: [channel(1, 'general'), channel(2, 'design')] });
    nock(SITE)
      .get('/api/v1/streams/1/members')
      .reply(200, { ...ok, subscribers: [8, 9] });
    nock(SITE)
      .get('/api/v1/streams/2/members')
      .reply(200, { ...ok, subscribers: [8] });
    const r = await run(['channels', 'list', '--fields', 'name,subscriber_count', '--format', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('name,subscriber_count\ngeneral,2\ndesign,1\n');
  });

  it('channels list takes subscriber_count as the server gives it from 394, one request in all', async () => {
    serverAt(394);
    nock(SITE)
      .get('/api/v1/streams')
      .query(true)
      .reply(200, { ...ok, streams: [channel(1, 'general', { subscriber_count: 40 })] });
    const r = await run(['channels', 'list', '--fields', 'name,subscriber_count', '--format', 'csv']);
    expect(r.stdout).toBe('name,subscriber_count\ngeneral,40\n');
  });

  it('channels subscribe reads the subscribed users of a server keyed by e-mail (before 207)', async () => {
    serverAt(200);
    nock(SITE)
      .get('/api/v1/users')
      .query(true)
      .reply(200, { ...ok, members: users });
    nock(SITE)
      .get('/api/v1/streams')
      .query(true)
      .reply(200, { ...ok, streams: [channel(1, 'general')] });
    nock(SITE)
      .get('/api/v1/streams/1/members')
      .reply(200, { ...ok, subscribers: [] });
    nock(SITE)
      .post('/api/v1/users/me/subscriptions')
      .reply(200, { ...ok, subscribed: { 'bob@zulip.com': ['general'] }, already_subscribed: { 'ada@zulip.com': ['general'] } });
    const r = await run(['channels', 'subscribe', '--channel', 'general', '--user', '8', '--user', '9', '--json']);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((l) => [l.target, l.status])).toEqual([
      ['general: +ada@zulip.com', 'unchanged'],
      ['general: +bob@zulip.com', 'subscribed'],
    ]);
  });

  it('channels sync sends a request per channel and reports the rows of a channel the server refuses (exit 3)', async () => {
    serverAt(442);
    nock(SITE)
      .get('/api/v1/users')
      .query(true)
      .reply(200, { ...ok, members: users });
    nock(SITE)
      .get('/api/v1/streams')
      .query(true)
      .reply(200, { ...ok, streams: [channel(1, 'general'), channel(2, 'design')] });
    nock(SITE)
      .get('/api/v1/streams/1/members')
      .reply(200, { ...ok, subscribers: [] });
    nock(SITE)
      .get('/api/v1/streams/2/members')
      .reply(200, { ...ok, subscribers: [] });
    nock(SITE)
      .post('/api/v1/users/me/subscriptions', (b: Record<string, string>) => b.subscriptions!.includes('general'))
      .reply(200, { ...ok, subscribed: { '8': ['general'], '9': ['general'] }, already_subscribed: {} });
    nock(SITE)
      .post('/api/v1/users/me/subscriptions', (b: Record<string, string>) => b.subscriptions!.includes('design'))
      .reply(400, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' });
    const map = `${tempHome().home}/map.csv`;
    writeFileSync(map, 'user,channels\nada@zulip.com,"general,design"\n9,general\n');
    const r = await run(['channels', 'sync', '--map', map, '--json']);
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout).map((l) => [l.target, l.status, l.error])).toEqual([
      ['general: +ada@zulip.com', 'subscribed', null],
      ['general: +bob@zulip.com', 'subscribed', null],
      ['design: +ada@zulip.com', 'failed', 'Insufficient permission'],
    ]);
  });
});
