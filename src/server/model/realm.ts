/**
 * Organization-wide settings of the embedded server, with the defaults a new Zulip organization has.
 * Stored as JSON values in `realm_settings`; a key never written reads as its default.
 */
import { versionForLevel } from '../../api/feature-levels.js';
import { FEATURE_LEVEL } from '../../api/param-levels.js';
import { REALM_SETTINGS } from '../../api/realm-settings.js';
import { ROLE } from '../../api/roles.js';
import type { Db } from '../store/db.js';

export const SERVER_VERSION = '12.0-chatctl';
/** The version an organization answering as an older server reports: that level's release, marked as this one. */
const versionAt = (level: number): string => (level === FEATURE_LEVEL ? SERVER_VERSION : `${versionForLevel(level)}-chatctl`);

/**
 * The version fields of /server_settings and /register, under both the document's and a real server's names,
 * so clients of either kind read them: the organization's feature level (server/feature-level.ts) and a version
 * that goes with it.
 */
export const versionFields = (level: number) => {
  const version = versionAt(level);
  return {
    zulip_feature_level: level,
    zulip_version: version,
    zulip_merge_base: version,
    svc_feature_level: level,
    svc_version: version,
    svc_merge_base: version,
  };
};

/** What the empty topic is called where no organization setting applies (zerver/models/messages.py EMPTY_TOPIC_FALLBACK_NAME). */
export const EMPTY_TOPIC_FALLBACK_NAME = 'general chat';

const DEFAULT_URL = 'http://127.0.0.1:9991';

/**
 * The settings stored as plain values: those PATCH /realm writes that are not group-valued (their defaults
 * are REALM_SETTINGS's), and those only the server itself sets. Group-valued ones: realm-settings.ts.
 */
export interface RealmSettings {
  name: string;
  description: string;
  /** Set when the organization is created; `chatctl serve` answers with the URL it is reached at. */
  url: string;
  /**
   * The organization's domain, for bot addresses (`name-bot@domain`), placeholder addresses and an outgoing
   * webhook's `team_domain`: Zulip's realm.get_bot_domain() (zerver/models/realms.py), which comes from the
   * server's settings, never from the host a request reached it by. Fixed when the organization is created
   * (the host of its URL then), so a bot made through `serve` on any address gets the address one made
   * in-process gets.
   */
  bot_domain: string;
  date_created: number;
  /** 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators (Zulip's EMAIL_ADDRESS_VISIBILITY_*). */
  email_address_visibility: number;
  email_auth_enabled: boolean;
  /**
   * Whether message edit history is shown. Today's Zulip writes it as message_edit_history_visibility_policy
   * (level 358), whose "moves only" the embedded server does not model, so PATCH /realm does not take it.
   */
  allow_edit_history: boolean;
  allow_message_editing: boolean;
  /** Seconds; null: no limit. */
  message_content_edit_limit_seconds: number | null;
  emails_restricted_to_domains: boolean;
  disallow_disposable_email_addresses: boolean;
  invite_required: boolean;
  presence_disabled: boolean;
  /** How long after sending those below moderators may move a message; null: no limit. */
  move_messages_within_stream_limit_seconds: number | null;
  move_messages_between_streams_limit_seconds: number | null;
  require_unique_names: boolean;
  empty_topic_display_name: string;
  enable_spectator_access: boolean;
  video_chat_provider: number;
  waiting_period_threshold: number;
  /** Days; -1: kept forever. */
  message_retention_days: number;
  invite_validity_minutes: number;
  /**
   * Invitations per day; null: no limit. A stock self-hosted server has none (Zulip applies its limit only
   * with open realm creation, §5.2); an operator may set one.
   */
  max_invites_per_day: number | null;
  /**
   * Where Notification Bot announces new channels (`announce`) and new users, and where Zulip's own updates
   * go; null: nowhere (Zulip's -1 on the wire). A new organization announces new channels in its first
   * channel, as zerver/actions/create_realm.py does with "general"; it has no private "core team" channel
   * for signups, so signups go nowhere until set.
   */
  new_stream_announcements_stream_id: number | null;
  signup_announcements_stream_id: number | null;
  zulip_update_announcements_stream_id: number | null;
  /** Whether Notification Bot posts in a channel's "channel events" topic (level 434). */
  send_channel_events_messages: boolean;
  presence_sequence: number;
  /**
   * The feature level the organization answers as (server/feature-level.ts): this implementation's own unless
   * the operator set an older one, as a mirror of a real organization does to behave as its server.
   */
  feature_level: number;
}

const S = REALM_SETTINGS;

export const realmDefaults: RealmSettings = {
  name: S.name.setting.initial,
  description: S.description.setting.initial,
  url: DEFAULT_URL,
  bot_domain: realmHost(DEFAULT_URL),
  date_created: 0,
  email_address_visibility: 1,
  email_auth_enabled: true,
  allow_edit_history: true,
  allow_message_editing: S.allow_message_editing.setting.initial,
  message_content_edit_limit_seconds: S.message_content_edit_limit_seconds.setting.initial,
  emails_restricted_to_domains: S.emails_restricted_to_domains.setting.initial,
  disallow_disposable_email_addresses: S.disallow_disposable_email_addresses.setting.initial,
  invite_required: S.invite_required.setting.initial,
  presence_disabled: false,
  move_messages_within_stream_limit_seconds: S.move_messages_within_stream_limit_seconds.setting.initial,
  move_messages_between_streams_limit_seconds: S.move_messages_between_streams_limit_seconds.setting.initial,
  require_unique_names: S.require_unique_names.setting.initial,
  empty_topic_display_name: EMPTY_TOPIC_FALLBACK_NAME,
  enable_spectator_access: S.enable_spectator_access.setting.initial,
  video_chat_provider: S.video_chat_provider.setting.initial,
  waiting_period_threshold: S.waiting_period_threshold.setting.initial,
  message_retention_days: S.message_retention_days.setting.initial,
  invite_validity_minutes: 14400,
  max_invites_per_day: null,
  new_stream_announcements_stream_id: null,
  signup_announcements_stream_id: null,
  zulip_update_announcements_stream_id: null,
  send_channel_events_messages: S.send_channel_events_messages.setting.initial,
  presence_sequence: 0,
  feature_level: FEATURE_LEVEL,
};

export type RealmKey = keyof RealmSettings;

/** A setting's stored JSON, any key (the group-valued settings too), or undefined when it was never written. */
export const readStored = (db: Db, key: string): string | undefined =>
  (db.prepare('SELECT value FROM realm_settings WHERE key = ?').get(key) as { value: string } | undefined)?.value;

/** Stores a setting's JSON under any key. */
export function writeStored(db: Db, key: string, json: string): void {
  db.prepare('INSERT INTO realm_settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, json);
}

export function getSetting<K extends RealmKey>(db: Db, key: K): RealmSettings[K] {
  return settingFrom(key, readStored(db, key));
}

/** A setting's value from its stored JSON (undefined: never set, so its default). */
export function settingFrom<K extends RealmKey>(key: K, json: string | undefined): RealmSettings[K] {
  return json === undefined ? realmDefaults[key] : (JSON.parse(json) as RealmSettings[K]);
}

export function setSetting<K extends RealmKey>(db: Db, key: K, value: RealmSettings[K]): void {
  writeStored(db, key, JSON.stringify(value));
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
