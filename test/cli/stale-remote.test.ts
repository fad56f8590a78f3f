/**
 * `users list --inactive-since` against servers stood in for by nock, at the level where presence changed:
 * from feature level 288 the whole presence history is asked for (presence_history_limit_days); before it a
 * server answers with its fixed 14 days, and the report says that users away longer are unknown.
 */
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { documentedExample } from '../client/examples.js';
import { jsonLines, runCli, tempHome } from '../helpers/cli.js';

const SITE = 'http://presence.chat.test';
const creds = { ZULIP_EMAIL: 'iago@zulip.com', ZULIP_API_KEY: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' };
const ok = { result: 'success', msg: '' };
const DAY = 86400;
const NOW = 1_760_000_000;

const human = (user_id: number, name: string, more: Record<string, unknown> = {}) => ({
  user_id,
  email: `${name}@zulip.com`,
  delivery_email: null,
  full_name: name,
  is_active: true,
  is_bot: false,
  role: 400,
  date_joined: '2020-01-01T00:00:00+00:00',
  ...more,
});

function serverAt(level: number): Record<string, string>[] {
  nock(SITE)
    .get('/api/v1/server_settings')
    .reply(200, { ...documentedExample('GET', '/server_settings'), zulip_feature_level: level, realm_url: SITE, realm_uri: SITE })
    .persist();
  const bodies: Record<string, string>[] = [];
  nock(SITE)
    .post('/api/v1/register', (b: Record<string, string>) => bodies.push(b) > 0)
    .reply(200, {
      ...ok,
      queue_id: 'q1',
      last_event_id: -1,
      zulip_feature_level: level,
      presences: {
        '8': { active_timestamp: NOW - 100 * DAY, idle_timestamp: NOW - 2 * DAY },
        '9': { active_timestamp: NOW - DAY, idle_timestamp: NOW - DAY },
        '10': { active_timestamp: NOW - 200 * DAY, idle_timestamp: NOW - 200 * DAY },
      },
      presence_last_update_id: 40,
      server_timestamp: NOW + 0.5,
      user_status: { '10': { away: true } },
    });
  nock(SITE).delete('/api/v1/events').query(true).reply(200, ok);
  nock(SITE)
    .get('/api/v1/users')
    .query(true)
    .reply(200, {
      ...ok,
      members: [
        human(8, 'ada'),
        human(9, 'bob'),
        human(10, 'cyd'),
        human(11, 'dee'),
        human(12, 'eve', { is_active: false }),
        human(13, 'bot', { is_bot: true, bot_type: 1 }),
      ],
    });
  return bodies;
}

describe('users list --inactive-since against older and newer servers', () => {
  beforeEach(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  const run = (argv: string[]) => runCli(['--server', SITE, ...argv], { env: { ...tempHome().env, ...creds } });

  it('asks for the whole presence history from feature level 288, in the modern format', async () => {
    const bodies = serverAt(288);
    const r = await run(['users', 'list', '--inactive-since', '90d', '--include-unknown', '--format', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(bodies[0]).toMatchObject({ event_types: '["presence","user_status"]', slim_presence: 'true', presence_history_limit_days: '36500' });
    expect(jsonLines(r.stdout).map((u) => [u.user_id, u.status, u.last_active])).toEqual([
      [8, 'inactive', NOW - 100 * DAY],
      // Presence turned off (status `away`): its old data says nothing.
      [10, 'unknown', null],
      [11, 'unknown', null],
    ]);
    expect(r.stderr).toContain('chatctl: 1 inactive; 2 unknown');
    expect(r.stderr).not.toContain('feature level 288');
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('says before feature level 288 that the server returns only 14 days of presence', async () => {
    const bodies = serverAt(287);
    const r = await run(['users', 'list', '--inactive-since', '90d', '--format', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(bodies[0]).not.toHaveProperty('presence_history_limit_days');
    expect(bodies[0]).toMatchObject({ slim_presence: 'true' });
    expect(jsonLines(r.stdout).map((u) => u.user_id)).toEqual([8]);
    expect(r.stderr).toContain('returns presence only for users connected in the last 14 days: users away longer are unknown, not inactive');
  });
});
