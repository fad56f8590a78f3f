import { insertChannel } from '../../../src/server/model/channels.js';
import { streamId } from '../../helpers/channels.js';
import { unique } from '../../helpers/names.js';
import { ADMINS_ONLY, type Caller, type Fixture, type PermissionCase, type PermissionRows } from './matrix.js';

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

/** A public channel of `creator` (default: the organization's owner), which the caller is not in; a default channel if asked. */
function newPublicChannel(f: Fixture, creator = f.org.owner.id, isDefault = false): { id: number; name: string } {
  return insertChannel(
    f.org.db,
    { name: unique('public'), description: '', invite_only: false, is_web_public: false, folder_id: null, is_default: isDefault, creator_id: creator },
    f.org.clock.now(),
  );
}

const publicChannel = (f: Fixture, creator = f.org.owner.id, isDefault = false): number => newPublicChannel(f, creator, isDefault).id;

/** Who may administer a channel someone else created, and what the others are told. */
const ADMINISTER_OTHERS: Pick<PermissionCase, 'allowed' | 'denied'> = {
  allowed: ['owner', 'admin'],
  denied: {
    moderator: 'You do not have permission to administer this channel.',
    member: 'You do not have permission to administer this channel.',
    bot: 'You do not have permission to administer this channel.',
    guest: 'Invalid channel ID',
  },
};

export const channelCases: PermissionRows<'channels'> = {
  createChannel: [
    {
      name: 'create a channel (POST /channels/create)',
      request: () => ({
        method: 'POST',
        path: '/channels/create',
        body: [
          ['name', unique('made')],
          ['subscribers', '[]'],
        ],
      }),
      allowed: NOT_GUESTS,
      denied: 'Not allowed for guest users',
    },
  ],
  updateStream: [
    {
      name: 'rename a channel someone else created',
      request: (f) => ({ method: 'PATCH', path: `/streams/${publicChannel(f)}`, body: [['new_name', unique('renamed')]] }),
      ...ADMINISTER_OTHERS,
    },
    {
      name: 'rename a channel one created (guests never administer one)',
      request: (f) => ({ method: 'PATCH', path: `/streams/${publicChannel(f, f.caller?.id)}`, body: [['new_name', unique('renamed')]] }),
      allowed: NOT_GUESTS,
      denied: 'Invalid channel ID',
    },
    {
      // zerver/tests/test_default_channels.py: administering the channel is not enough.
      name: 'make a channel one created a default channel (PATCH is_default_stream)',
      request: (f) => ({ method: 'PATCH', path: `/streams/${publicChannel(f, f.caller?.id)}`, body: [['is_default_stream', 'true']] }),
      allowed: ['owner', 'admin'],
      denied: {
        moderator: 'You do not have permission to change default channels.',
        member: 'You do not have permission to change default channels.',
        bot: 'You do not have permission to change default channels.',
        guest: 'Invalid channel ID',
      },
    },
  ],
  archiveStream: [
    {
      name: 'archive a channel someone else created',
      request: (f) => ({ method: 'DELETE', path: `/streams/${publicChannel(f)}` }),
      ...ADMINISTER_OTHERS,
    },
  ],
  getSubscribers: [
    {
      name: 'list the members of a public channel one is not in',
      request: (f) => ({ method: 'GET', path: `/streams/${publicChannel(f)}/members` }),
      allowed: NOT_GUESTS,
      denied: 'Invalid channel ID',
    },
    {
      name: 'list the members of a private channel one is not in',
      request: (f) => ({ method: 'GET', path: `/streams/${privateChannel(f)}/members` }),
      allowed: ['owner', 'admin'],
      denied: 'Invalid channel ID',
    },
  ],
  addDefaultStream: [
    {
      name: 'add a default channel',
      request: (f) => ({ method: 'POST', path: '/default_streams', body: [['stream_id', String(publicChannel(f))]] }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
  removeDefaultStream: [
    {
      name: 'remove a default channel',
      // Not `general`: the users the later cases make would no longer be subscribed to it.
      request: (f) => ({ method: 'DELETE', path: '/default_streams', body: [['stream_id', String(publicChannel(f, f.org.owner.id, true))]] }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
  getSubscriptions: [
    {
      name: 'list own subscriptions',
      request: () => ({ method: 'GET', path: '/users/me/subscriptions' }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  subscribe: [
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
  ],
  unsubscribe: [
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
      // lib/streams.py bulk_can_remove_subscribers_from_streams: the channel's administrators (its creator by
      // default), never a guest.
      name: 'unsubscribe another user from a channel one created',
      request: (f) => ({
        method: 'DELETE',
        path: '/users/me/subscriptions',
        body: [
          ['subscriptions', JSON.stringify([newPublicChannel(f, f.caller?.id).name])],
          ['principals', JSON.stringify([f.others.member.id])],
        ],
      }),
      allowed: NOT_GUESTS,
      denied: 'Insufficient permission',
    },
  ],
  updateSubscriptionSettings: [
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
  ],
  updateSubscription: [
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
  ],
  updateSubscriptionPost: [
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
  ],
  getStreams: [
    {
      name: 'list channels',
      request: () => ({ method: 'GET', path: '/streams' }),
      allowed: EVERYONE,
      denied: {},
    },
    {
      // Zulip 9.0 refused non-administrators; today's views/streams.py get_streams_backend reads it as include_all.
      name: 'list channels with the legacy include_all_active',
      request: () => ({ method: 'GET', path: '/streams', query: [['include_all_active', 'true']] }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  getChannelTopics: [
    {
      // views/streams.py get_topics_backend: access_stream_by_id, content access (guests are in general, a default channel).
      name: 'list the topics of general',
      request: (f) => ({ method: 'GET', path: `/users/me/${generalId(f)}/topics` }),
      allowed: EVERYONE,
      denied: {},
    },
    {
      name: 'list the topics of a public channel one is not in',
      request: (f) => ({ method: 'GET', path: `/users/me/${publicChannel(f)}/topics` }),
      allowed: NOT_GUESTS,
      denied: 'Invalid channel ID',
    },
    {
      // Metadata access (administrators) is not enough: the topics are content.
      name: 'list the topics of a private channel one is not in',
      request: (f) => ({ method: 'GET', path: `/users/me/${privateChannel(f)}/topics` }),
      allowed: [],
      denied: 'Invalid channel ID',
    },
  ],
  getStream: [
    {
      name: 'read a private channel one is not in',
      request: (f) => ({ method: 'GET', path: `/streams/${privateChannel(f)}` }),
      allowed: ['owner', 'admin'],
      denied: 'Invalid channel ID',
    },
  ],
  updateUserTopic: [
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
  ],
  muteTopic: [
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
  ],
};
