/**
 * Commands against servers at older feature levels (the document's §9), mocked with nock on the global
 * fetch: each request must take the shape that server level takes.
 */
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../helpers/cli.js';
import { documentedExample } from '../client/examples.js';

const SITE = 'http://old.chat.test';
const creds = { ZULIP_EMAIL: 'iago@zulip.com', ZULIP_API_KEY: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' };
const ok = { result: 'success', msg: '' };

function serverAt(level: number): void {
  nock(SITE)
    .get('/api/v1/server_settings')
    .reply(200, { ...documentedExample('GET', '/server_settings'), zulip_feature_level: level, realm_url: SITE, realm_uri: SITE });
  // Nothing pending: invite send looks for what an earlier run invited before sending.
  nock(SITE)
    .get('/api/v1/invites')
    .optionally()
    .reply(200, { ...ok, invites: [] });
}

/** Records the form body of each request to a path. */
function capture(method: 'post' | 'patch', path: string, times = 1): Record<string, string>[] {
  const bodies: Record<string, string>[] = [];
  nock(SITE)
    [method](path, (body: Record<string, string>) => {
      bodies.push(body);
      return true;
    })
    .times(times)
    .reply(200, ok);
  return bodies;
}

const run = (argv: string[]) => runCli(['--server', SITE, ...argv], { env: { ...tempHome().env, ...creds } });

describe('commands against older servers', () => {
  beforeEach(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it('invite send --expires goes in whole days before feature level 126', async () => {
    serverAt(100);
    const bodies = capture('post', '/api/v1/invites');
    const r = await run(['invite', 'send', 'new@example.com', '--expires', '36h']);
    expect(r.code).toBe(0);
    expect(bodies[0]).toMatchObject({ invitee_emails: 'new@example.com', invite_expires_in_days: '2', stream_ids: '[]' });
    expect(bodies[0]).not.toHaveProperty('invite_expires_in_minutes');
  });

  it('invite send --expires goes in minutes from feature level 126', async () => {
    serverAt(126);
    const bodies = capture('post', '/api/v1/invites');
    expect((await run(['invite', 'send', 'new@example.com', '--expires', '36h'])).code).toBe(0);
    expect(bodies[0]).toMatchObject({ invite_expires_in_minutes: '2160' });
  });

  it('typing for a message edit uses /message_edit_typing with the ID in the body from 351 to 360', async () => {
    serverAt(355);
    const bodies = capture('post', '/api/v1/message_edit_typing');
    expect((await run(['typing', 'start', '--message', '42'])).code).toBe(0);
    expect(bodies).toEqual([{ message_id: '42', op: 'start' }]);
  });

  it('typing for a message edit needs feature level 351', async () => {
    serverAt(300);
    const r = await run(['typing', 'start', '--message', '42']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('needs feature level ≥ 351 (server has 300)');
  });

  it('direct typing says "private" before 174, and channel typing names the channel in `to` before 215', async () => {
    serverAt(170);
    const direct = capture('post', '/api/v1/typing');
    expect((await run(['typing', 'start', '--to', '8'])).code).toBe(0);
    expect(direct[0]).toMatchObject({ type: 'private', op: 'start', to: '[8]' });
    nock.cleanAll();
    serverAt(200);
    const channel = capture('post', '/api/v1/typing');
    expect((await run(['typing', 'stop', '--channel', '7', '--topic', 'x'])).code).toBe(0);
    expect(channel[0]).toMatchObject({ type: 'stream', op: 'stop', to: '[7]', topic: 'x' });
    expect(channel[0]).not.toHaveProperty('stream_id');
  });

  it('topics mute uses the deprecated muted_topics endpoint before 170, and follow refuses', async () => {
    serverAt(160);
    const bodies = capture('patch', '/api/v1/users/me/subscriptions/muted_topics');
    const r = await run(['topics', 'mute', '--channel', '7', '--topic', 'noise']);
    expect(r.code).toBe(0);
    expect(bodies[0]).toMatchObject({ stream_id: '7', topic: 'noise', op: 'add' });
    serverAt(160);
    const follow = await run(['topics', 'follow', '--channel', '7', '--topic', 'noise']);
    expect(follow.code).toBe(1);
    expect(follow.stderr).toContain('needs feature level ≥ 170 (server has 160)');
  });

  it('topics list reads the muted topics of a server before 170 as policies, by channel ID', async () => {
    serverAt(160);
    nock(SITE)
      .get('/api/v1/streams')
      .query(true)
      .times(2)
      .reply(200, {
        ...ok,
        streams: [
          { stream_id: 7, name: 'general' },
          { stream_id: 9, name: 'design' },
        ],
      });
    const registered: Record<string, string>[] = [];
    nock(SITE)
      .post('/api/v1/register', (body: Record<string, string>) => {
        registered.push(body);
        return true;
      })
      .reply(200, {
        ...ok,
        queue_id: 'q1',
        last_event_id: -1,
        muted_topics: [
          ['general', 'noise', 1700000000],
          ['gone', 'x', 1700000001],
        ],
      });
    nock(SITE).delete('/api/v1/events').reply(200, ok);
    const r = await run(['topics', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(registered[0]).toMatchObject({ event_types: '["muted_topics"]', fetch_event_types: '["muted_topics"]' });
    // A channel the caller can no longer see is left out.
    expect(JSON.parse(r.stdout)).toEqual([
      { stream_id: 7, channel: 'general', topic_name: 'noise', visibility_policy: 1, policy: 'muted', last_updated: 1700000000 },
    ]);
  });

  it('a flag the server cannot honour is refused before anything is sent, naming the flag (exit 1), never "success" with a warning', async () => {
    serverAt(263);
    nock(SITE)
      .get('/api/v1/user_groups')
      .query(true)
      .reply(200, { ...ok, user_groups: [{ id: 4, name: 'eng', members: [], direct_subgroup_ids: [], is_system_group: false }] });
    const sent = capture('post', '/api/v1/invites');
    const r = await run(['invite', 'send', 'new@example.com', 'other@example.com', '--group', 'eng']);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: 'chatctl: --group needs feature level ≥ 322 (server has 263)\n' });
    expect(sent).toEqual([]);
    serverAt(263);
    const dry = await run(['invite', 'send', 'new@example.com', '--welcome-text', 'hi', '--dry-run']);
    expect(dry).toMatchObject({ code: 1, stderr: 'chatctl: --welcome-text needs feature level ≥ 416 (server has 263)\n' });
  });

  it('narrows are spelled for the server: stream: before 250; an operator it lacks is refused with its level', async () => {
    serverAt(240);
    const bodies = capture('post', '/api/v1/messages/flags/narrow');
    const r = await run(['flags', 'add', 'starred', '--narrow', 'channel:general -is:dm', '--dry-run']);
    expect(r.code).toBe(0);
    expect(JSON.parse(JSON.parse(r.stdout).body.narrow)).toEqual([
      { operator: 'stream', operand: 'general' },
      { operator: 'is', operand: 'dm', negated: true },
    ]);
    expect(bodies).toEqual([]);
    serverAt(240);
    const followed = await run(['flags', 'add', 'read', '--narrow', 'is:followed', '--dry-run']);
    expect(followed).toMatchObject({ code: 1, stderr: 'chatctl: the narrow "is:followed" needs feature level ≥ 265 (server has 240)\n' });
  });
});
