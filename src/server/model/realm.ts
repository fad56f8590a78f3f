/**
 * Organization-wide settings of the embedded server, with the defaults a new Zulip organization has.
 * Stored as JSON values in `realm_settings`; a key never written reads as its default.
 */
import { ROLE } from '../../api/roles.js';
import type { Db } from '../store/db.js';

export const SERVER_VERSION = '12.0-chatctl';
/**
 * The feature level this implementation speaks: that of the newest change the API document lists (reverse
 * linkifier fields, 471), so a client gating on the level finds every operation and parameter it describes.
 */
export const FEATURE_LEVEL = 471;

/**
 * The version fields of /server_settings and /register, under both the document's and a real server's names,
 * so clients of either kind read them.
 */
export const versionFields = () => ({
  zulip_feature_level: FEATURE_LEVEL,
  zulip_version: SERVER_VERSION,
  zulip_merge_base: SERVER_VERSION,
  svc_feature_level: FEATURE_LEVEL,
  svc_version: SERVER_VERSION,
  svc_merge_base: SERVER_VERSION,
});

/** What the empty topic is called where no organization setting applies (zerver/models/messages.py EMPTY_TOPIC_FALLBACK_NAME). */
export const EMPTY_TOPIC_FALLBACK_NAME = 'general chat';

/** Realm.DEFAULT_MOVE_MESSAGE_LIMIT_SECONDS (zerver/models/realms.py): a week. */
const DEFAULT_MOVE_MESSAGE_LIMIT_SECONDS = 7 * 24 * 3600;

const DEFAULT_URL = 'http://127.0.0.1:9991';

export const realmDefaults = {
  name: 'Embedded organization',
  description: '',
  /** Set when the organization is created; `chatctl serve` answers with the URL it is reached at. */
  url: DEFAULT_URL,
  /**
   * The organization's domain, for bot addresses (`name-bot@domain`), placeholder addresses and an outgoing
   * webhook's `team_domain`: Zulip's realm.get_bot_domain() (zerver/models/realms.py), which comes from the
   * server's settings, never from the host a request reached it by. Fixed when the organization is created
   * (the host of its URL then), so a bot made through `serve` on any address gets the address one made
   * in-process gets.
   */
  bot_domain: realmHost(DEFAULT_URL),
  date_created: 0,
  /** 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators (Zulip's EMAIL_ADDRESS_VISIBILITY_*). */
  email_address_visibility: 1,
  email_auth_enabled: true,
  allow_edit_history: true,
  allow_message_editing: true,
  message_content_edit_limit_seconds: null as number | null,
  emails_restricted_to_domains: false,
  disallow_disposable_email_addresses: true,
  presence_disabled: false,
  /** Who may invite: a system group name. */
  can_invite_users_group: 'role:members',
  /** Who may create reusable invitation links. */
  can_create_multiuse_invite_group: 'role:administrators',
  /** Who may create bots, and who may create incoming-webhook (write-only) bots. */
  can_create_bots_group: 'role:members',
  can_create_write_only_bots_group: 'role:members',
  /** Who may manage every user group, and who may create groups. */
  can_manage_all_groups: 'role:owners',
  can_create_groups: 'role:members',
  /** Who may add others to channels. */
  can_add_subscribers_group: 'role:members',
  /**
   * Who may move messages to another topic, and who may resolve topics: everyone, guests included; who may
   * move them to another channel: members (zerver/models/realms.py REALM_PERMISSION_GROUP_SETTINGS).
   */
  can_move_messages_between_topics_group: 'role:everyone',
  can_resolve_topics_group: 'role:everyone',
  can_move_messages_between_channels_group: 'role:members',
  /** How long after sending those below moderators may move a message; null: no limit. */
  move_messages_within_stream_limit_seconds: DEFAULT_MOVE_MESSAGE_LIMIT_SECONDS as number | null,
  move_messages_between_streams_limit_seconds: DEFAULT_MOVE_MESSAGE_LIMIT_SECONDS as number | null,
  require_unique_names: false,
  empty_topic_display_name: EMPTY_TOPIC_FALLBACK_NAME,
  invite_validity_minutes: 14400,
  /**
   * Invitations per day; null: no limit. A stock self-hosted server has none (Zulip applies its limit only
   * with open realm creation, §5.2); an operator may set one.
   */
  max_invites_per_day: null as number | null,
  /**
   * Where Notification Bot announces new channels (`announce`) and new users; null: nowhere (Zulip's -1 on the
   * wire). A new organization announces new channels in its first channel, as zerver/actions/create_realm.py
   * does with "general"; it has no private "core team" channel for signups, so signups go nowhere until set.
   */
  new_stream_announcements_stream_id: null as number | null,
  signup_announcements_stream_id: null as number | null,
  /** Whether Notification Bot posts in a channel's "channel events" topic (level 434; true on a new organization). */
  send_channel_events_messages: true,
  presence_sequence: 0,
};

export type RealmSettings = typeof realmDefaults;
export type RealmKey = keyof RealmSettings;

export function getSetting<K extends RealmKey>(db: Db, key: K): RealmSettings[K] {
  const row = db.prepare('SELECT value FROM realm_settings WHERE key = ?').get(key) as { value: string } | undefined;
  return row ? (JSON.parse(row.value) as RealmSettings[K]) : realmDefaults[key];
}

export function setSetting<K extends RealmKey>(db: Db, key: K, value: RealmSettings[K]): void {
  db.prepare('INSERT INTO realm_settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
}

/** The next value of a realm-wide increasing counter (presence update IDs, ...). */
export function nextSequence(db: Db, key: 'presence_sequence'): number {
  const next = getSetting(db, key) + 1;
  setSetting(db, key, next);
  return next;
}

export const isInitialized = (db: Db): boolean =>
  (db.prepare('SELECT count(*) AS n FROM users WHERE role = ? AND is_bot = 0').get(ROLE.owner) as { n: number }).n > 0;

/**
 * The host part of an organization URL: its domain when the organization is created, and the domain of
 * placeholder addresses (`user8@host`) of the URL a request reached it by.
 */
export function realmHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'localhost';
  }
}
