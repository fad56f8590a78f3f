import { insertChannel } from '../../../src/server/model/channels.js';
import { streamId } from '../../helpers/channels.js';
import { unique } from '../../helpers/names.js';
import type { Caller, Fixture, PermissionCase } from './matrix.js';

const EVERYONE: readonly Caller[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];
const NOT_GUESTS: readonly Caller[] = ['owner', 'admin', 'moderator', 'member', 'bot'];

const generalId = (f: Fixture): number => streamId(f.org, 'general');

/** A private channel of the organization's owner, which the caller is not in. */
function privateChannel(f: Fixture): number {
  return insertChannel(
    f.org.db,
    { name: unique('private'), description: '', invite_only: true, is_web_public: false, folder_id: null, is_default: false, creator_id: f.org.owner.id },
    f.org.clock.now(),
  ).id;
}

export const channelCases: PermissionCase[] = [
  {
    name: 'list own subscriptions',
    request: () => ({ method: 'GET', path: '/users/me/subscriptions' }),
    allowed: EVERYONE,
    denied: {},
  },
  {
    name: 'create a channel by subscribing to it',
    request: () => ({ method: 'POST', path: '/users/me/subscriptions', body: [['subscriptions', JSON.stringify([{ name: unique('new') }])]] }),
    allowed: NOT_GUESTS,
    denied: 'Not allowed for guest users',
  },
  {
    name: 'subscribe another member to a channel',
    request: (f) => ({
      method: 'POST',
      path: '/users/me/subscriptions',
      body: [
        ['subscriptions', JSON.stringify([{ name: unique('team') }])],
        ['principals', JSON.stringify([f.others.member.id])],
      ],
    }),
    allowed: NOT_GUESTS,
    denied: 'Not allowed for guest users',
  },
  {
    name: 'unsubscribe from a default channel',
    request: () => ({ method: 'DELETE', path: '/users/me/subscriptions', body: [['subscriptions', '["general"]']] }),
    allowed: EVERYONE,
    denied: {},
  },
  {
    name: 'unsubscribe another user',
    request: (f) => ({
      method: 'DELETE',
      path: '/users/me/subscriptions',
      body: [
        ['subscriptions', '["general"]'],
        ['principals', JSON.stringify([f.others.member.id])],
      ],
    }),
    allowed: ['owner', 'admin'],
    denied: 'Insufficient permission',
  },
  {
    name: 'change subscription settings',
    request: (f) => ({
      method: 'POST',
      path: '/users/me/subscriptions/properties',
      body: [['subscription_data', JSON.stringify([{ stream_id: generalId(f), property: 'pin_to_top', value: true }])]],
    }),
    allowed: EVERYONE,
    denied: {},
  },
  {
    name: 'mute a subscription',
    request: (f) => ({
      method: 'PATCH',
      path: `/users/me/subscriptions/${generalId(f)}`,
      body: [
        ['property', 'is_muted'],
        ['value', 'true'],
      ],
    }),
    allowed: EVERYONE,
    denied: {},
  },
  {
    name: 'pin a subscription (the POST form of the same)',
    request: (f) => ({
      method: 'POST',
      path: `/users/me/subscriptions/${generalId(f)}`,
      body: [
        ['property', 'pin_to_top'],
        ['value', 'true'],
      ],
    }),
    allowed: EVERYONE,
    denied: {},
  },
  {
    name: 'list channels',
    request: () => ({ method: 'GET', path: '/streams' }),
    allowed: EVERYONE,
    denied: {},
  },
  {
    name: 'read a private channel one is not in',
    request: (f) => ({ method: 'GET', path: `/streams/${privateChannel(f)}` }),
    allowed: ['owner', 'admin'],
    denied: 'Invalid channel ID',
  },
  {
    name: 'follow a topic',
    request: (f) => ({
      method: 'POST',
      path: '/user_topics',
      body: [
        ['stream_id', String(generalId(f))],
        ['topic', 'news'],
        ['visibility_policy', '3'],
      ],
    }),
    allowed: EVERYONE,
    denied: {},
  },
  {
    name: 'mute a topic (deprecated endpoint)',
    request: () => ({
      method: 'PATCH',
      path: '/users/me/subscriptions/muted_topics',
      body: [
        ['stream', 'general'],
        ['topic', 'noise'],
        ['op', 'add'],
      ],
    }),
    allowed: EVERYONE,
    denied: {},
  },
];
