/** Channels, subscriptions and topic preferences, with a Zulip server's checks, order and messages. */
import { badRequest, insufficientPermission } from '../../api/errors.js';
import {
  getChannelTopics,
  getStream,
  getStreams,
  getSubscriptions,
  muteTopic,
  subscribe,
  SUBSCRIPTION_PROPERTIES,
  unsubscribe,
  updateSubscription,
  updateSubscriptionPost,
  updateSubscriptionSettings,
  updateUserTopic,
  type Channel,
  type SubscriptionProperty,
} from '../../api/operations/channels.js';
import type { ResponseOf } from '../../api/operation.js';
import { bind, bindAsync, callerOf, type Handlers, type HandlerContext } from '../context.js';
import { adminHandlers, oneLine } from './channel-admin.js';
import { resolvePrincipals } from './principals.js';
import { announceCreated } from '../model/channel-changes.js';
import { mayTellNewSubscribers, sendSubscriptionNotices } from '../model/notices.js';
import {
  accessStream,
  accessStreamByName,
  allStreams,
  channelView,
  checkChannelName,
  hasContentAccess,
  hasMetadataAccess,
  listToStreams,
  isSubscribed,
  streamById,
  streamByName,
  type StreamRow,
} from '../model/channels.js';
import { folderById } from '../model/folders.js';
import { channelTopics } from '../model/topic-history.js';
import {
  COLOR_PATTERN,
  normalizeTopic,
  removeSubscriptions,
  setSubscriptionProperty,
  setVisibilityPolicy,
  activeSubscriptionRows,
  subscribeUsers,
  subscriptionViews,
} from '../model/subscriptions.js';
import { isAdmin, isGuest, type UserRow } from '../model/users.js';
import { mayUse } from '../model/realm-permissions.js';

/** Whether `user` may subscribe others to an accessible channel: the organization's permission, or administering it. */
function canAddSubscribers(ctx: HandlerContext, user: UserRow, stream: StreamRow): boolean {
  if (isAdmin(user)) return true;
  if (mayUse(ctx.db, user, 'can_add_subscribers_group')) return true;
  return stream.creator_id === user.id && !isGuest(user);
}

/**
 * Whether `user` may unsubscribe others: administrators, or the channel's administrator (by default its
 * creator); the can_remove_subscribers_group of a channel is administrators by default.
 */
const canRemoveSubscribers = (user: UserRow, stream: StreamRow): boolean => isAdmin(user) || (!isGuest(user) && stream.creator_id === user.id);

/** The user controls the target: it is themselves or a bot they own. */
const controls = (user: UserRow, target: UserRow): boolean => target.id === user.id || (target.is_bot === 1 && target.bot_owner_id === user.id);

function updateOneProperty(ctx: HandlerContext, p: { stream_id: number; property: string; value: string }): Record<string, never> {
  // The value is a JSON boolean or, failing that, the raw string (Zulip's Json[bool] | str, left to right).
  const value: boolean | string = p.value === 'true' ? true : p.value === 'false' ? false : p.value;
  applyPropertyChanges(ctx, [{ stream_id: p.stream_id, property: p.property, value }]);
  return {};
}

interface PropertyChange {
  stream_id: number;
  property: string;
  value: unknown;
}

/**
 * Validates every change (name, then value type) before touching anything, then checks access and applies
 * them one by one, each in its own transaction as a server commits them: a refused entry (not subscribed)
 * leaves the entries before it applied.
 */
function applyPropertyChanges(ctx: HandlerContext, changes: readonly PropertyChange[]): void {
  const me = callerOf(ctx);
  const valid = changes.map((c) => {
    if (c.property === 'color') {
      if (typeof c.value !== 'string') throw badRequest('color is not a string');
      if (!COLOR_PATTERN.test(c.value)) throw badRequest('color is not a valid hex color code');
    } else if ((SUBSCRIPTION_PROPERTIES as readonly string[]).includes(c.property)) {
      if (typeof c.value !== 'boolean') throw badRequest(`${c.property} is not a boolean`);
    } else {
      throw badRequest(`Unknown subscription property: ${c.property}`);
    }
    return { ...c, property: c.property as SubscriptionProperty, value: c.value as boolean | string };
  });
  for (const c of valid) {
    ctx.tx(() => {
      accessStream(ctx.db, me, c.stream_id);
      if (!isSubscribed(ctx.db, me.id, c.stream_id)) throw badRequest(`Not subscribed to channel ID ${c.stream_id}`);
      setSubscriptionProperty(ctx.db, ctx, me.id, c.stream_id, c.property, c.value);
    });
  }
}

export const handlers: Handlers<'channels'> = {
  ...adminHandlers,

  getSubscriptions: bind(getSubscriptions, (ctx, p) => ({
    subscriptions: subscriptionViews(ctx.db, activeSubscriptionRows(ctx.db, callerOf(ctx).id), p.include_subscribers),
  })),

  subscribe: bind(subscribe, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    const principals = p.principals ?? [];
    const folderId = p.folder_id === undefined ? null : folderById(db, p.folder_id).id;
    const requested = p.subscriptions.map((s) => {
      if (s.color !== undefined && !COLOR_PATTERN.test(s.color)) throw badRequest('add.color is not a valid hex color code');
      return { name: s.name.trim(), description: oneLine(s.description ?? ''), color: s.color };
    });
    const subscribingOthers = principals.length > 0 && !principals.every((x) => x === me.id);

    const { existing, created } = listToStreams(
      db,
      requested,
      {
        creator: me,
        invite_only: p.invite_only,
        is_web_public: p.is_web_public,
        history_public_to_subscribers: p.history_public_to_subscribers,
        is_default: p.is_default_stream,
        folder_id: folderId,
      },
      ctx.nowSeconds(),
    );

    const unauthorized = existing.filter((s) => !hasContentAccess(me, s, isSubscribed(db, me.id, s.id)));
    if (unauthorized.length > 0 && p.authorization_errors_fatal) {
      throw badRequest(`Unable to access channel (${unauthorized[0]!.name}).`);
    }
    const accessible = existing.filter((s) => !unauthorized.includes(s));
    if (subscribingOthers && accessible.some((s) => !canAddSubscribers(ctx, me, s))) throw insufficientPermission();

    const subscribers = subscribingOthers ? resolvePrincipals(ctx, principals) : [me];
    const streams = [...accessible, ...created];
    const colors = new Map(requested.filter((r) => r.color).map((r) => [r.name.toLowerCase(), r.color!]));

    announceCreated(db, ctx, created, p.is_default_stream);
    const { subscribed, already } = subscribeUsers(db, ctx, streams, subscribers, colors);
    const tellSubscribers = p.send_new_subscription_messages && mayTellNewSubscribers(subscribed);
    sendSubscriptionNotices(ctx, { actor: me, created, subscribed, subscribers, announce: p.announce, tellSubscribers });
    const result: ResponseOf<typeof subscribe> = { subscribed, already_subscribed: already };
    if (!p.authorization_errors_fatal) result.unauthorized = unauthorized.map((s) => s.name);
    if (p.send_new_subscription_messages) result.new_subscription_messages_sent = tellSubscribers;
    return result;
  }),

  unsubscribe: bind(unsubscribe, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    const principals = p.principals ?? [];
    const targets = principals.length ? resolvePrincipals(ctx, principals) : [me];
    const unsubscribingOthers = targets.some((t) => !controls(me, t));
    const names = p.subscriptions.map((n) => n.trim());
    for (const name of new Set(names)) checkChannelName(name);
    const found = new Map<string, StreamRow>();
    const missing: string[] = [];
    for (const name of names) {
      const stream = streamByName(db, name);
      if (stream) found.set(name, stream);
      else if (!missing.includes(name)) missing.push(name);
    }
    if (unsubscribingOthers) {
      for (const stream of found.values()) if (!canRemoveSubscribers(me, stream)) throw insufficientPermission();
    }
    if (missing.length) throw badRequest(`Channel(s) (${missing.join(', ')}) do not exist`);
    const streams = [...new Map(names.map((name) => found.get(name)!).map((s) => [s.id, s])).values()];
    const removed: string[] = [];
    const notRemoved: string[] = [];
    for (const { stream, userIds } of removeSubscriptions(
      db,
      ctx,
      streams,
      targets.map((t) => t.id),
    )) {
      const gone = new Set(userIds);
      for (const t of targets) (gone.has(t.id) ? removed : notRemoved).push(stream.name);
    }
    return { removed, not_removed: notRemoved };
  }),

  // Async: each entry commits on its own (applyPropertyChanges).
  updateSubscriptionSettings: bindAsync(updateSubscriptionSettings, (ctx, p) => {
    applyPropertyChanges(ctx, p.subscription_data);
    return {};
  }),
  updateSubscription: bindAsync(updateSubscription, (ctx, p) => updateOneProperty(ctx, p)),
  updateSubscriptionPost: bindAsync(updateSubscriptionPost, (ctx, p) => updateOneProperty(ctx, p)),

  getStreams: bind(getStreams, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    const all = allStreams(db).filter((s) => !p.exclude_archived || !s.is_archived);
    const subscribed = new Set(activeSubscriptionRows(db, me.id).map((r) => r.stream_id));
    const ownerSubscribed =
      p.include_owner_subscribed && me.is_bot && me.bot_owner_id !== null
        ? new Set(activeSubscriptionRows(db, me.bot_owner_id).map((r) => r.stream_id))
        : new Set<number>();
    const includePublic = p.include_public && !isGuest(me);
    const picked = all.filter((s) => {
      const sub = subscribed.has(s.id);
      if (p.include_all) return hasMetadataAccess(me, s, sub);
      if (p.include_can_access_content && hasContentAccess(me, s, sub)) return true;
      if (p.include_subscribed && sub) return true;
      if (includePublic && !s.invite_only) return true;
      if (p.include_web_public && s.is_web_public) return true;
      if (p.include_default && s.is_default) return true;
      return ownerSubscribed.has(s.id);
    });
    const view = channelView(db);
    return {
      streams: picked.map((s): Channel => (p.include_default ? { ...view(s), is_default: s.is_default === 1 } : view(s))),
    };
  }),

  getStream: bind(getStream, (ctx, p) => ({ stream: channelView(ctx.db)(accessStream(ctx.db, callerOf(ctx), p.stream_id, { requireContent: false })) })),

  // zerver/views/streams.py get_topics_backend: access_stream_by_id (content access, active channels), then the
  // topic history by the channel's history setting.
  getChannelTopics: bind(getChannelTopics, (ctx, p) => {
    const me = callerOf(ctx);
    return { topics: channelTopics(ctx.db, me.id, accessStream(ctx.db, me, p.stream_id), p.allow_empty_topic_name) };
  }),

  updateUserTopic: bind(updateUserTopic, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    const topic = normalizeTopic(db, p.topic);
    // Removing a policy needs no access to the channel, only that it exists.
    const stream = p.visibility_policy === 0 ? streamById(db, p.stream_id) : accessStream(db, me, p.stream_id);
    if (!stream) throw badRequest('Invalid channel ID');
    setVisibilityPolicy(db, ctx, me.id, stream.id, topic, p.visibility_policy, ctx.nowSeconds());
    return {};
  }),

  muteTopic: bind(muteTopic, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    // zerver/lib/streams.py check_for_exactly_one_stream_arg: RequestVariableMissingError's text, but raised as a
    // plain JsonableError, so BAD_REQUEST and no var_name.
    if (p.stream_id === undefined && p.stream === undefined) throw badRequest("Missing 'stream_id' argument");
    if (p.stream_id !== undefined && p.stream !== undefined) {
      throw badRequest('Unsupported parameter combination: stream_id, stream', { parameters: 'stream_id, stream' });
    }
    const topic = normalizeTopic(db, p.topic);
    if (p.op === 'add') {
      const stream = p.stream_id !== undefined ? accessStream(db, me, p.stream_id) : accessStreamByName(db, me, p.stream!);
      setVisibilityPolicy(db, ctx, me.id, stream.id, topic, 1, ctx.nowSeconds());
      return {};
    }
    // Unmuting looks the channel up without an access check; an unknown one is reported as an unmuted topic.
    const stream = p.stream_id !== undefined ? streamById(db, p.stream_id) : streamByName(db, p.stream!);
    if (!stream) throw badRequest('Topic is not muted');
    setVisibilityPolicy(db, ctx, me.id, stream.id, topic, 0, ctx.nowSeconds());
    return {};
  }),
};
