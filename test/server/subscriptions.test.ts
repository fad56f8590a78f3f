import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSubscriptions, updateSubscription, updateSubscriptionSettings } from '../../src/api/operations/channels.js';
import { getEvents, register, type QueueEvent } from '../../src/api/operations/events.js';
import type { ChatClient } from '../../src/client/client.js';
import { failure } from '../helpers/api.js';
import { createChannel } from '../helpers/channels.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('subscription settings over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  /** A member subscribed to a new channel of their own. */
  async function subscribed(): Promise<{ user: TestUser; client: ChatClient; streamId: number }> {
    const user = org.addUser();
    const client = await clientFor(org, kind, user);
    const { id } = await createChannel(org, client, unique('settings'));
    return { user, client, streamId: id };
  }

  const settingsOf = async (client: ChatClient, streamId: number) =>
    (await client.call(getSubscriptions, {})).subscriptions.find((s) => s.stream_id === streamId)!;

  describe('POST /users/me/subscriptions/properties', () => {
    it('applies every change and answers with a plain success', async () => {
      const { client, streamId } = await subscribed();
      const res = await client.call(updateSubscriptionSettings, {
        subscription_data: [
          { stream_id: streamId, property: 'color', value: '#f00f00' },
          { stream_id: streamId, property: 'pin_to_top', value: true },
          { stream_id: streamId, property: 'desktop_notifications', value: false },
          { stream_id: streamId, property: 'wildcard_mentions_notify', value: true },
        ],
      });
      expect(res).toEqual({ result: 'success', msg: '' });
      expect(openapiErrors('post', '/users/me/subscriptions/properties', 200, res)).toEqual([]);
      expect(await settingsOf(client, streamId)).toMatchObject({
        color: '#f00f00',
        pin_to_top: true,
        desktop_notifications: false,
        wildcard_mentions_notify: true,
        audible_notifications: null,
      });
    });

    it('treats in_home_view as the inverse of is_muted and sends one update event per property', async () => {
      const { client, streamId } = await subscribed();
      const { queue_id } = await client.call(register, { event_types: ['subscription'], fetch_event_types: [] });
      await client.call(updateSubscriptionSettings, { subscription_data: [{ stream_id: streamId, property: 'in_home_view', value: false }] });
      expect(await settingsOf(client, streamId)).toMatchObject({ is_muted: true, in_home_view: false });
      await client.call(updateSubscriptionSettings, { subscription_data: [{ stream_id: streamId, property: 'is_muted', value: false }] });
      const { events } = await client.call(getEvents, { queue_id: queue_id!, last_event_id: -1, dont_block: true });
      const updates = events.map((e: QueueEvent) => [e.property, e.value]);
      expect(updates).toEqual([
        ['in_home_view', false],
        ['is_muted', true],
        ['in_home_view', true],
        ['is_muted', false],
      ]);
      expect(events[0]).toEqual({ type: 'subscription', op: 'update', stream_id: streamId, property: 'in_home_view', value: false, id: 0 });
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events })).toEqual([]);
    });

    it('validates the whole list before changing anything', async () => {
      const { client, streamId } = await subscribed();
      const cases: [unknown, string][] = [
        [{ stream_id: streamId, property: 'volume', value: true }, 'Unknown subscription property: volume'],
        [{ stream_id: streamId, property: 'pin_to_top', value: 'yes' }, 'pin_to_top is not a boolean'],
        [{ stream_id: streamId, property: 'color', value: 'red' }, 'color is not a valid hex color code'],
        [{ stream_id: streamId, property: 'color', value: true }, 'color is not a string'],
      ];
      for (const [bad, msg] of cases) {
        const err = await failure(
          client.call(updateSubscriptionSettings, {
            subscription_data: [{ stream_id: streamId, property: 'pin_to_top', value: true }, bad as { stream_id: number; property: string; value: boolean }],
          }),
        );
        expect(err).toMatchObject({ msg, code: 'BAD_REQUEST' });
      }
      expect((await settingsOf(client, streamId)).pin_to_top).toBe(false);
    });

    it('checks access, then subscription, entry by entry; a refused entry leaves the earlier ones applied, as a server commits each', async () => {
      const { client, streamId } = await subscribed();
      const invalid = await failure(
        client.call(updateSubscriptionSettings, {
          subscription_data: [
            { stream_id: streamId, property: 'pin_to_top', value: true },
            { stream_id: 999999, property: 'pin_to_top', value: true },
            { stream_id: streamId, property: 'is_muted', value: true },
          ],
        }),
      );
      expect(invalid).toMatchObject({ msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
      expect(await settingsOf(client, streamId)).toMatchObject({ pin_to_top: true, is_muted: false });

      const general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
      const fresh = await clientFor(org, kind, org.addUser());
      const other = await subscribed();
      const notSubscribed = await failure(
        fresh.call(updateSubscriptionSettings, {
          subscription_data: [
            { stream_id: general, property: 'color', value: '#abcdef' },
            { stream_id: other.streamId, property: 'is_muted', value: true },
            { stream_id: general, property: 'pin_to_top', value: true },
          ],
        }),
      );
      expect(notSubscribed).toMatchObject({ msg: `Not subscribed to channel ID ${other.streamId}`, code: 'BAD_REQUEST' });
      expect(await settingsOf(fresh, general)).toMatchObject({ color: '#abcdef', pin_to_top: false });
    });

    it('reports entries with missing or unexpected keys', async () => {
      const res = await rawRequest(org, kind, {
        method: 'POST',
        path: '/users/me/subscriptions/properties',
        body: [['subscription_data', '[{"stream_id": 1, "value": true}]']],
      });
      expect(res.body).toEqual({ result: 'error', msg: 'subscription_data[0]["property"] field is missing: Field required', code: 'BAD_REQUEST' });
      const extra = await rawRequest(org, kind, {
        method: 'POST',
        path: '/users/me/subscriptions/properties',
        body: [['subscription_data', '[{"stream_id": 1, "property": "is_muted", "value": true, "x": 1}]']],
      });
      expect(extra.body).toMatchObject({ msg: 'Argument "x" at subscription_data[0] is unexpected' });
    });
  });

  describe('PATCH and POST /users/me/subscriptions/{stream_id}', () => {
    it('changes one property; the value is a JSON boolean or a raw colour', async () => {
      const { user, client, streamId } = await subscribed();
      await client.call(updateSubscription, { stream_id: streamId, property: 'is_muted', value: 'true' });
      const res = await rawRequest(
        org,
        kind,
        {
          method: 'POST',
          path: `/users/me/subscriptions/${streamId}`,
          body: [
            ['property', 'color'],
            ['value', '#abc'],
          ],
        },
        user,
      );
      expect(res.body).toEqual({ result: 'success', msg: '' });
      expect(await settingsOf(client, streamId)).toMatchObject({ is_muted: true, color: '#abc' });
      const bad = await failure(client.call(updateSubscription, { stream_id: streamId, property: 'pin_to_top', value: 'maybe' }));
      expect(bad.msg).toBe('pin_to_top is not a boolean');
    });
  });
});
