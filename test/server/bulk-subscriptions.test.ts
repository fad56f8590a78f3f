import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe, unsubscribe } from '../../src/api/operations/channels.js';
import { ROLE } from '../../src/api/roles.js';
import { eventErrors, openQueue, takeEvents } from '../helpers/events.js';
import { unique } from '../helpers/names.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor } from '../helpers/transports.js';

// Subscribing or unsubscribing many users at once: one peer event naming all of them for the channels
// they joined or left together (as a Zulip server batches peer_add and peer_remove: actions/streams.py
// send_peer_subscriber_events), each subscriber's own event, and colors as one at a time.
describe('subscribing and unsubscribing many users at once', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const streamId = (name: string): number => org.db.prepare('SELECT id FROM streams WHERE name = ?').pluck().get(name) as number;

  it('tells peers in one peer_add with every added user and every channel, and each added user in one add', async () => {
    const owner = await clientFor(org, 'embedded');
    const peer = org.addUser();
    const added: TestUser[] = Array.from({ length: 30 }, () => org.addUser());
    const [a, b] = [unique('bulk-a'), unique('bulk-b')];
    await owner.call(subscribe, { subscriptions: [{ name: a }, { name: b }], principals: [peer.id] });
    const peerQueue = openQueue(org, peer, { eventTypes: ['subscription'] });
    const addedQueues = added.map((u) => openQueue(org, u, { eventTypes: ['subscription'] }));
    const ids = added.map((u) => u.id);
    const res = await owner.call(subscribe, { subscriptions: [{ name: a }, { name: b }], principals: [...ids, peer.id] });
    expect(Object.keys(res.subscribed).map(Number).sort()).toEqual([...ids].sort());
    expect(res.already_subscribed).toEqual({ [String(peer.id)]: [a, b] });

    const seen = takeEvents(org, peerQueue);
    expect(seen).toEqual([{ type: 'subscription', op: 'peer_add', stream_ids: [streamId(a), streamId(b)].sort((x, y) => x - y), user_ids: ids }]);
    for (const e of seen) expect(eventErrors(e)).toEqual([]);
    const everyone = [...ids, peer.id].sort((x, y) => x - y);
    for (const q of addedQueues) {
      const own = takeEvents(org, q);
      expect(own.map((e) => e.op)).toEqual(['add']);
      const subs = own[0]!.subscriptions as { name: string; subscribers: number[]; color: string }[];
      expect(subs.map((s) => [s.name, s.subscribers])).toEqual([
        [a, everyone],
        [b, everyone],
      ]);
      // A user's new channels take distinct colors, as they would one request at a time.
      expect(subs[0]!.color).not.toBe(subs[1]!.color);
      expect(eventErrors(own[0]!)).toEqual([]);
    }
  });

  it('gives each added user with a queue the whole subscriber list, and peer_add to the guests subscribed before', async () => {
    const owner = await clientFor(org, 'embedded');
    const name = unique('bulk-listen');
    const [subscribedGuest, otherGuest] = [org.addUser({ role: ROLE.guest }), org.addUser({ role: ROLE.guest })];
    await owner.call(subscribe, { subscriptions: [{ name }], principals: [subscribedGuest.id] });
    const guestQueues = [subscribedGuest, otherGuest].map((u) => openQueue(org, u, { eventTypes: ['subscription'] }));
    // Most of the users added have no queue; two do.
    const added: TestUser[] = Array.from({ length: 12 }, () => org.addUser());
    const listening = [added[3]!, added[9]!];
    const listeningQueues = listening.map((u) => openQueue(org, u, { eventTypes: ['subscription'] }));
    const ids = added.map((u) => u.id);
    await owner.call(subscribe, { subscriptions: [{ name }], principals: ids });

    const everyone = [subscribedGuest.id, ...ids].sort((x, y) => x - y);
    for (const q of listeningQueues) {
      const own = takeEvents(org, q);
      expect(own.map((e) => e.op)).toEqual(['add']);
      expect((own[0]!.subscriptions as { name: string; subscribers: number[] }[]).map((s) => [s.name, s.subscribers])).toEqual([[name, everyone]]);
    }
    expect(takeEvents(org, guestQueues[0]!)).toEqual([{ type: 'subscription', op: 'peer_add', stream_ids: [streamId(name)], user_ids: ids }]);
    expect(takeEvents(org, guestQueues[1]!)).toEqual([]);
  });

  it('reactivates old subscriptions among new ones, keeping their settings', async () => {
    const owner = await clientFor(org, 'embedded');
    const [returning, fresh] = [org.addUser(), org.addUser()];
    const name = unique('bulk-back');
    await owner.call(subscribe, { subscriptions: [{ name, color: '#123456' }], principals: [returning.id] });
    await owner.call(unsubscribe, { subscriptions: [name], principals: [returning.id] });
    const res = await owner.call(subscribe, { subscriptions: [{ name }], principals: [returning.id, fresh.id] });
    expect(Object.keys(res.subscribed).map(Number).sort()).toEqual([returning.id, fresh.id].sort());
    const colorOf = (u: TestUser) => org.db.prepare('SELECT color FROM subscriptions WHERE user_id = ? AND stream_id = ?').pluck().get(u.id, streamId(name));
    expect(colorOf(returning)).toBe('#123456');
    expect(colorOf(fresh)).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('tells peers in one peer_remove with every removed user, and each removed user once', async () => {
    const owner = await clientFor(org, 'embedded');
    const peer = org.addUser();
    const leaving: TestUser[] = Array.from({ length: 20 }, () => org.addUser());
    const name = unique('bulk-leave');
    const ids = leaving.map((u) => u.id);
    await owner.call(subscribe, { subscriptions: [{ name }], principals: [...ids, peer.id] });
    const peerQueue = openQueue(org, peer, { eventTypes: ['subscription'] });
    const leavingQueues = leaving.map((u) => openQueue(org, u, { eventTypes: ['subscription'] }));
    const res = await owner.call(unsubscribe, { subscriptions: [name], principals: ids });
    expect(res.removed).toEqual(ids.map(() => name));
    expect(takeEvents(org, peerQueue)).toEqual([{ type: 'subscription', op: 'peer_remove', stream_ids: [streamId(name)], user_ids: ids }]);
    for (const q of leavingQueues) {
      expect(takeEvents(org, q)).toEqual([{ type: 'subscription', op: 'remove', subscriptions: [{ stream_id: streamId(name), name }] }]);
    }
  });
});
