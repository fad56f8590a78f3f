/**
 * The initial state `POST /register` returns, per fetched event type, with a Zulip server's keys. Each
 * part reads the store as the caller may see it; the whole is read in the transaction that creates the
 * queue, so no change falls between the state and the queue's first event.
 */
import { LIMITS } from '../../api/limits.js';
import { MAX_FOLDER_DESCRIPTION_LENGTH, MAX_FOLDER_NAME_LENGTH } from '../../api/operations/folders.js';
import { ROLE } from '../../api/roles.js';
import { getSetting } from './realm.js';
import { groupSetting, groupValueForApi, mayUse } from './realm-permissions.js';
import { GROUP_SETTING_ORDER, REALM_SETTINGS } from '../../api/realm-settings.js';
import { getChannelFolders } from '../../api/operations/folders.js';
import { paramAtLevel } from '../../api/param-levels.js';
import type { Db } from '../store/db.js';
import { channelView, defaultChannelIds, hasMetadataAccess, subscriberIds, type StreamRow } from './channels.js';
import { realmEmojiDict } from './emoji.js';
import { listFolders } from './folders.js';
import { GroupGraph } from './groups.js';
import { listLinkifiers } from './linkifiers.js';
import { allFields, fieldToWire } from './profile-fields.js';
import { DEFAULT_HISTORY_LIMIT_DAYS, PRESENCE_OFFLINE_THRESHOLD_SECS, PRESENCE_PING_INTERVAL_SECS, realmPresence } from './presence.js';
import { subscriptionViews, userTopics, type SubscriptionRow } from './subscriptions.js';
import { crossRealmBots } from './system-bots.js';
import { statusOf } from './user-status.js';
import { listUsersForView, userView } from './user-view.js';
import { isAdmin, isGuest, isOwner, newestMessageIdOf, type UserRow } from './users.js';

export const MAX_TOPIC_LENGTH = 60;
export const MAX_MESSAGE_LENGTH = 10000;
const TYPING_STARTED_EXPIRY_MS = 45000;
const TYPING_STOPPED_WAIT_MS = 12000;
const TYPING_STARTED_WAIT_MS = 30000;
/** Clients should give GET /events this HTTP timeout; heartbeats come well within it. */
export const LONGPOLL_TIMEOUT_SECS = 90;

export interface StateOptions {
  user: UserRow;
  /** The feature level the organization answers as: what a server of that level does not send is left out. */
  level: number;
  /** The event types whose state is fetched; null: all. */
  fetch: ReadonlySet<string> | null;
  clientGravatar: boolean;
  slimPresence: boolean;
  presenceHistoryLimitDays?: number;
  includeSubscribers: 'true' | 'false' | 'partial';
  capabilities: Partial<Record<string, boolean>>;
  realmUrl: string;
  now: number;
  serverTimestamp: number;
}

type State = Record<string, unknown>;

const CUSTOM_PROFILE_FIELD_TYPES: Record<string, { id: number; name: string }> = {
  SHORT_TEXT: { id: 1, name: 'Text (short)' },
  LONG_TEXT: { id: 2, name: 'Text (long)' },
  SELECT: { id: 3, name: 'List of options' },
  DATE: { id: 4, name: 'Date picker' },
  URL: { id: 5, name: 'Link' },
  USER: { id: 6, name: 'Users' },
  EXTERNAL_ACCOUNT: { id: 7, name: 'External account' },
  PRONOUNS: { id: 8, name: 'Pronouns' },
};

function realmState(db: Db, o: StateOptions): State {
  return atLevel(currentRealmState(db, o), o.level);
}

/**
 * The organization settings as a server at `level` sends them: a setting PATCH /realm does not take at that
 * level is not sent either, and one it takes under another name is sent under that name (`realm_` and the
 * name, as register names every setting).
 */
function atLevel(state: State, level: number): State {
  for (const [name, def] of Object.entries(REALM_SETTINGS)) {
    const key = `realm_${name}`;
    if (!(key in state)) continue;
    const at = paramAtLevel(def, name, level);
    if (at === null) delete state[key];
    else if (at.names[0] !== name) {
      state[`realm_${at.names[0]}`] = state[key];
      delete state[key];
    }
  }
  return state;
}

function currentRealmState(db: Db, o: StateOptions): State {
  const url = o.realmUrl;
  const passwordAuth = getSetting(db, 'email_auth_enabled');
  return {
    realm_name: getSetting(db, 'name'),
    realm_description: getSetting(db, 'description'),
    realm_date_created: getSetting(db, 'date_created'),
    realm_url: url,
    realm_uri: url,
    realm_icon_url: `${url}/static/images/logo/zulip-icon-128x128.png`,
    realm_icon_source: 'G',
    realm_logo_url: `${url}/static/images/logo/zulip-org-logo.svg`,
    realm_logo_source: 'D',
    realm_night_logo_url: `${url}/static/images/logo/zulip-org-logo.svg`,
    realm_night_logo_source: 'D',
    realm_bot_domain: getSetting(db, 'bot_domain'),
    realm_default_language: 'en',
    realm_allow_edit_history: getSetting(db, 'allow_edit_history'),
    realm_allow_message_editing: getSetting(db, 'allow_message_editing'),
    realm_message_content_edit_limit_seconds: getSetting(db, 'message_content_edit_limit_seconds'),
    realm_move_messages_within_stream_limit_seconds: getSetting(db, 'move_messages_within_stream_limit_seconds'),
    realm_move_messages_between_streams_limit_seconds: getSetting(db, 'move_messages_between_streams_limit_seconds'),
    realm_emails_restricted_to_domains: getSetting(db, 'emails_restricted_to_domains'),
    realm_disallow_disposable_email_addresses: getSetting(db, 'disallow_disposable_email_addresses'),
    realm_require_unique_names: getSetting(db, 'require_unique_names'),
    realm_presence_disabled: getSetting(db, 'presence_disabled'),
    realm_email_auth_enabled: passwordAuth,
    realm_password_auth_enabled: passwordAuth,
    realm_authentication_methods: { Email: { enabled: passwordAuth, available: true } },
    realm_invite_required: getSetting(db, 'invite_required'),
    realm_mandatory_topics: false,
    realm_enable_spectator_access: getSetting(db, 'enable_spectator_access'),
    realm_video_chat_provider: getSetting(db, 'video_chat_provider'),
    realm_is_zephyr_mirror_realm: false,
    realm_push_notifications_enabled: false,
    realm_push_notifications_enabled_end_timestamp: null,
    realm_upload_quota_mib: null,
    max_file_upload_size_mib: LIMITS.uploadMiB,
    realm_message_retention_days: getSetting(db, 'message_retention_days'),
    realm_waiting_period_threshold: getSetting(db, 'waiting_period_threshold'),
    ...Object.fromEntries(GROUP_SETTING_ORDER.map((name) => [`realm_${name}`, groupValueForApi(db, groupSetting(db, name))])),
    realm_new_stream_announcements_stream_id: getSetting(db, 'new_stream_announcements_stream_id') ?? -1,
    realm_signup_announcements_stream_id: getSetting(db, 'signup_announcements_stream_id') ?? -1,
    realm_send_channel_events_messages: getSetting(db, 'send_channel_events_messages'),
    realm_zulip_update_announcements_stream_id: getSetting(db, 'zulip_update_announcements_stream_id') ?? -1,
    realm_empty_topic_display_name: getSetting(db, 'empty_topic_display_name'),
    max_topic_length: MAX_TOPIC_LENGTH,
    max_stream_name_length: LIMITS.channelName,
    max_stream_description_length: LIMITS.channelDescription,
    max_message_length: MAX_MESSAGE_LENGTH,
    max_bulk_new_subscription_messages: LIMITS.bulkNewSubscriptionMessages,
    max_channel_folder_name_length: MAX_FOLDER_NAME_LENGTH,
    max_channel_folder_description_length: MAX_FOLDER_DESCRIPTION_LENGTH,
    server_typing_started_expiry_period_milliseconds: TYPING_STARTED_EXPIRY_MS,
    server_typing_stopped_wait_period_milliseconds: TYPING_STOPPED_WAIT_MS,
    server_typing_started_wait_period_milliseconds: TYPING_STARTED_WAIT_MS,
    server_presence_ping_interval_seconds: PRESENCE_PING_INTERVAL_SECS,
    server_presence_offline_threshold_seconds: PRESENCE_OFFLINE_THRESHOLD_SECS,
    server_web_public_streams_enabled: false,
    server_avatar_changes_disabled: false,
    server_name_changes_disabled: false,
    server_needs_upgrade: false,
    server_inline_image_preview: true,
    server_inline_url_embed_preview: false,
    event_queue_longpoll_timeout_seconds: LONGPOLL_TIMEOUT_SECS,
    development_environment: false,
    password_min_length: 6,
    password_min_guesses: 10000,
  };
}

function realmUserState(db: Db, o: StateOptions): State {
  const view = userView(db, o.user, { clientGravatar: o.clientGravatar, includeCustomProfileFields: true }, o.realmUrl);
  // The columns of the wire form only: reading every column of every user was a third of register.
  const users = listUsersForView(db);
  const me = view(o.user);
  const mayAddSubscribers = mayUse(db, o.user, 'can_add_subscribers_group') || isAdmin(o.user);
  const mayInvite = mayUse(db, o.user, 'can_invite_users_group');
  const guest = isGuest(o.user);
  // Without client_gravatar: the own avatar and the system bots' always carry their URL.
  const withAvatars = userView(db, o.user, { clientGravatar: false, includeCustomProfileFields: false }, o.realmUrl);
  const ownAvatar = withAvatars(o.user).avatar_url!;
  return {
    realm_users: users.filter((u) => u.is_active).map(view),
    realm_non_active_users: users.filter((u) => !u.is_active).map(view),
    cross_realm_bots: crossRealmBots(db, withAvatars),
    user_id: o.user.id,
    email: me.email,
    delivery_email: o.user.email,
    full_name: o.user.full_name,
    is_admin: isAdmin(o.user),
    is_owner: isOwner(o.user),
    is_moderator: o.user.role === ROLE.moderator,
    is_guest: guest,
    is_billing_admin: false,
    avatar_source: 'G',
    avatar_url: ownAvatar,
    avatar_url_medium: ownAvatar,
    can_create_streams: !guest,
    can_create_public_streams: !guest,
    can_create_private_streams: !guest,
    can_create_web_public_streams: false,
    can_subscribe_other_users: !guest && mayAddSubscribers,
    can_invite_others_to_realm: mayInvite,
  };
}

function subscriptionState(db: Db, o: StateOptions): State {
  const withSubscribers = o.includeSubscribers !== 'false';
  const rows = db
    .prepare(
      `SELECT s.* FROM subscriptions s JOIN streams c ON c.id = s.stream_id
       WHERE s.user_id = ? AND c.is_archived = 0 ORDER BY c.name COLLATE BINARY, c.id`,
    )
    .all(o.user.id) as SubscriptionRow[];
  const active = rows.filter((r) => r.active);
  const inactive = rows.filter((r) => !r.active);
  const known = new Set(rows.map((r) => r.stream_id));
  const view = channelView(db);
  const never = (db.prepare('SELECT * FROM streams WHERE is_archived = 0 ORDER BY name COLLATE BINARY, id').all() as StreamRow[])
    .filter((s) => !known.has(s.id) && hasMetadataAccess(o.user, s, false))
    .map((s) => (withSubscribers ? { ...view(s), subscribers: subscriberIds(db, s.id) } : view(s)));
  return {
    subscriptions: subscriptionViews(db, active, withSubscribers),
    unsubscribed: subscriptionViews(db, inactive, withSubscribers),
    never_subscribed: never,
  };
}

function streamState(db: Db, o: StateOptions): State {
  const subscribed = new Set(
    (db.prepare('SELECT stream_id FROM subscriptions WHERE user_id = ? AND active = 1').all(o.user.id) as { stream_id: number }[]).map((r) => r.stream_id),
  );
  const archived = o.capabilities.archived_channels === true;
  const view = channelView(db);
  const streams = (db.prepare('SELECT * FROM streams ORDER BY name COLLATE BINARY, id').all() as StreamRow[]).filter(
    (s) => (archived || !s.is_archived) && hasMetadataAccess(o.user, s, subscribed.has(s.id)),
  );
  return { streams: streams.map(view) };
}

/** Every active user with something to show, as GET /users/{id}/status shows it (`away` included). */
function userStatusState(db: Db): State {
  const rows = db
    .prepare(
      `SELECT id, presence_enabled, status_text, status_emoji_name, status_emoji_code, status_reaction_type FROM users
       WHERE is_active = 1 AND (status_text != '' OR status_emoji_name != '' OR presence_enabled = 0)`,
    )
    .all() as (Parameters<typeof statusOf>[0] & { id: number })[];
  return { user_status: Object.fromEntries(rows.map((r) => [String(r.id), statusOf(r)])) };
}

function presenceState(db: Db, o: StateOptions): State {
  const { presences, lastUpdateId } = realmPresence(db, {
    slim: o.slimPresence,
    historyLimitDays: o.presenceHistoryLimitDays ?? DEFAULT_HISTORY_LIMIT_DAYS,
    now: o.now,
    realmUrl: o.realmUrl,
  });
  return { presences, presence_last_update_id: lastUpdateId, server_timestamp: o.serverTimestamp };
}

function linkifierState(db: Db, o: StateOptions): State {
  return { realm_linkifiers: o.capabilities.linkifier_url_template === true ? listLinkifiers(db) : [] };
}

function profileFieldState(db: Db): State {
  return { custom_profile_fields: allFields(db).map(fieldToWire), custom_profile_field_types: CUSTOM_PROFILE_FIELD_TYPES };
}

/** The bots the caller can administer (all of them for administrators), with their services. */
function botState(db: Db, o: StateOptions): State {
  const bots = (
    isAdmin(o.user)
      ? db.prepare('SELECT * FROM users WHERE is_bot = 1 AND is_system_bot = 0 ORDER BY id').all()
      : db.prepare('SELECT * FROM users WHERE is_bot = 1 AND bot_owner_id = ? ORDER BY id').all(o.user.id)
  ) as UserRow[];
  const view = userView(db, o.user, { clientGravatar: false, includeCustomProfileFields: false }, o.realmUrl);
  return {
    realm_bots: bots.map((b) => ({
      user_id: b.id,
      full_name: b.full_name,
      api_key: b.api_key,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
      avatar_url: view(b).avatar_url,
      owner_id: b.bot_owner_id,
      services:
        b.bot_type === 3 && b.service_base_url ? [{ base_url: b.service_base_url, token: b.service_token ?? '', interface: b.service_interface ?? 1 }] : [],
      email: b.email,
      bot_type: b.bot_type,
      is_active: b.is_active === 1,
    })),
  };
}

/**
 * Each fetchable event type and the state it contributes. The group graph (every group and active user) is
 * built on first use and shared by the parts that need it.
 */
const PARTS: Record<string, (db: Db, o: StateOptions, groups: () => GroupGraph) => State> = {
  realm: realmState,
  realm_user: realmUserState,
  realm_bot: botState,
  subscription: subscriptionState,
  stream: streamState,
  user_topic: (db, o) => ({ user_topics: userTopics(db, o.user.id) }),
  user_status: (db) => userStatusState(db),
  presence: presenceState,
  realm_linkifiers: linkifierState,
  realm_filters: () => ({ realm_filters: [] }),
  realm_domains: (db) => ({
    realm_domains: (
      db.prepare('SELECT domain, allow_subdomains FROM realm_domains ORDER BY domain').all() as { domain: string; allow_subdomains: number }[]
    ).map((r) => ({ domain: r.domain, allow_subdomains: r.allow_subdomains === 1 })),
  }),
  realm_emoji: (db) => ({ realm_emoji: realmEmojiDict(db) }),
  realm_user_groups: (_db, o, groups) => ({ realm_user_groups: groups().list(o.capabilities.include_deactivated_groups === true) }),
  // Channel folders came with their operations: an older server sends none.
  channel_folders: (db, o) => (o.level >= (getChannelFolders.minFeatureLevel ?? 0) ? { channel_folders: listFolders(db, true) } : {}),
  // lib/events.py fetch_initial_state_data: IDs since feature level 330; guests are shown none.
  default_streams: (db, o) => ({ realm_default_streams: isGuest(o.user) ? [] : defaultChannelIds(db) }),
  custom_profile_fields: (db) => profileFieldState(db),
  message: (db, o) => ({ max_message_id: newestMessageIdOf(db, o.user.id) }),
};

export function initialState(db: Db, o: StateOptions): State {
  const state: State = {};
  let graph: GroupGraph | undefined;
  const groups = (): GroupGraph => (graph ??= new GroupGraph(db));
  for (const [type, part] of Object.entries(PARTS)) {
    if (o.fetch === null || o.fetch.has(type)) Object.assign(state, part(db, o, groups));
  }
  return state;
}
