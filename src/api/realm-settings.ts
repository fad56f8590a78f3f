/**
 * The organization settings PATCH /realm writes, declared once: each entry is a parameter of `updateRealm`
 * (schema, feature level, doc) and carries, under `setting`, what the embedded server needs beside it: how
 * the value is stored and answered (`kind`), a new organization's value, whether only owners may change it,
 * and for group-valued settings which groups they may hold. Names, defaults, owner-only rules and group
 * rules follow today's zerver/views/realm.py update_realm and zerver/models/realms.py
 * (Realm.property_types, Realm.REALM_PERMISSION_GROUP_SETTINGS).
 */
import { LIMITS } from './limits.js';
import { groupSettingChange } from './group-setting.js';
import { type ParamDef, p } from './operation.js';
import { s, type Typed } from './schema.js';

export type SystemGroupName =
  | 'role:nobody'
  | 'role:owners'
  | 'role:administrators'
  | 'role:moderators'
  | 'role:fullmembers'
  | 'role:members'
  | 'role:everyone'
  | 'role:internet';

/** Which groups a group-valued setting may hold (zerver/lib/types.py GroupPermissionSetting). */
export interface GroupRule {
  allowNobody: boolean;
  allowEveryone: boolean;
  /** Only these system groups (`require_system_group` with `allowed_system_groups`). */
  systemGroups?: readonly SystemGroupName[];
}

/**
 * How a setting is stored and answered:
 * - `text`: a string property; the answer says `"updated"` (update_realm answers strings so);
 * - `value`: any other plain property, answered with its new value;
 * - `time-limit`: seconds or `"unlimited"` (stored as null), zerver/lib/message.py parse_message_time_limit_setting;
 * - `retention`: days or `"unlimited"` (stored as -1), zerver/lib/retention.py parse_message_retention_days;
 * - `channel`: a channel ID, or a negative number for none (stored as null);
 * - `group`: a group-setting value, sent as `{"new": value, "old": value}`.
 */
export type SettingMeta =
  | { kind: 'text'; initial: string; ownerOnly?: true }
  | { kind: 'value'; initial: boolean | number; ownerOnly?: true }
  | { kind: 'time-limit'; initial: number | null }
  | { kind: 'retention'; initial: number; ownerOnly: true }
  | { kind: 'channel' }
  | { kind: 'group'; initial: SystemGroupName; rule: GroupRule; ownerOnly?: true };

type Setting<T, M extends SettingMeta> = ParamDef<T> & { readonly required: false; readonly setting: M };

const setting = <T, const M extends SettingMeta>(
  schema: Typed<T>,
  meta: M,
  extra: { doc: string; minFeatureLevel?: number; older?: ParamDef<T>['older'] },
): Setting<T, M> => ({ ...p.opt(schema, extra), setting: meta });

const timeLimit = s.union(s.int(), s.string(), 'an integer or a string');

/** Realm.DEFAULT_MOVE_MESSAGE_LIMIT_SECONDS: a week. */
const WEEK = 7 * 24 * 3600;

const group = (initial: SystemGroupName, rule: GroupRule, doc: string, minFeatureLevel: number, ownerOnly?: true) =>
  setting(groupSettingChange, ownerOnly ? { kind: 'group', initial, rule, ownerOnly } : { kind: 'group', initial, rule }, {
    doc: `${doc} (a group-setting value, as {"new": value, "old": value}${ownerOnly ? '; owners only' : ''})`,
    minFeatureLevel,
  });

const OPEN = { allowNobody: true, allowEveryone: true } as const;
const NO_EVERYONE = { allowNobody: true, allowEveryone: false } as const;

export const REALM_SETTINGS = {
  name: setting(
    s.string({ maxLength: LIMITS.realmName }),
    { kind: 'text', initial: 'Embedded organization' },
    {
      doc: `the organization's name (at most ${LIMITS.realmName} characters)`,
    },
  ),
  description: setting(
    s.string({ maxLength: LIMITS.realmDescription }),
    { kind: 'text', initial: '' },
    {
      doc: `its description, in Zulip's Markdown (at most ${LIMITS.realmDescription} characters)`,
    },
  ),
  allow_message_editing: setting(s.bool(), { kind: 'value', initial: true }, { doc: 'whether users may edit their messages' }),
  message_content_edit_limit_seconds: setting(
    timeLimit,
    { kind: 'time-limit', initial: 600 },
    {
      doc: 'how long after sending a message its content may be edited, in seconds, or "unlimited"',
    },
  ),
  move_messages_within_stream_limit_seconds: setting(
    timeLimit,
    { kind: 'time-limit', initial: WEEK },
    {
      doc: 'how long after sending those below moderators may move a message to another topic, in seconds, or "unlimited"',
      minFeatureLevel: 162,
    },
  ),
  move_messages_between_streams_limit_seconds: setting(
    timeLimit,
    { kind: 'time-limit', initial: WEEK },
    {
      doc: 'how long after sending those below moderators may move a message to another channel, in seconds, or "unlimited"',
      minFeatureLevel: 162,
    },
  ),
  emails_restricted_to_domains: setting(
    s.bool(),
    { kind: 'value', initial: false, ownerOnly: true },
    {
      doc: 'whether new accounts must have an address in the allowed domains (owners only)',
    },
  ),
  disallow_disposable_email_addresses: setting(
    s.bool(),
    { kind: 'value', initial: true, ownerOnly: true },
    {
      doc: 'whether disposable e-mail addresses are refused (owners only)',
    },
  ),
  invite_required: setting(
    s.bool(),
    { kind: 'value', initial: true, ownerOnly: true },
    {
      doc: 'whether joining needs an invitation (owners only)',
    },
  ),
  require_unique_names: setting(
    s.bool(),
    { kind: 'value', initial: false },
    {
      doc: 'whether two users may not have the same name',
      minFeatureLevel: 246,
    },
  ),
  send_channel_events_messages: setting(
    s.bool(),
    { kind: 'value', initial: true },
    {
      doc: `whether Notification Bot posts in a channel's "channel events" topic`,
      minFeatureLevel: 434,
    },
  ),
  enable_spectator_access: setting(
    s.bool(),
    { kind: 'value', initial: false },
    {
      doc: 'whether web-public channels may be read without an account',
      minFeatureLevel: 109,
    },
  ),
  video_chat_provider: setting(s.int(), { kind: 'value', initial: 1 }, { doc: 'the video call provider: 0 none, 1 Jitsi Meet' }),
  waiting_period_threshold: setting(
    s.int({ min: 0 }),
    { kind: 'value', initial: 0, ownerOnly: true },
    {
      doc: 'days before a new member becomes a full member (owners only)',
    },
  ),
  message_retention_days: setting(
    timeLimit,
    { kind: 'retention', initial: -1, ownerOnly: true },
    {
      doc: 'days messages are kept, or "unlimited" (owners only)',
    },
  ),
  new_stream_announcements_stream_id: setting(
    s.int(),
    { kind: 'channel' },
    {
      doc: 'the channel where new channels are announced; -1: none',
      older: [{ before: 241, name: 'notifications_stream_id' }],
    },
  ),
  signup_announcements_stream_id: setting(
    s.int(),
    { kind: 'channel' },
    {
      doc: 'the channel where new users are announced; -1: none',
      older: [{ before: 241, name: 'signup_notifications_stream_id' }],
    },
  ),
  zulip_update_announcements_stream_id: setting(
    s.int(),
    { kind: 'channel' },
    {
      doc: "the channel where Zulip's own update announcements go; -1: none",
      minFeatureLevel: 242,
    },
  ),
  create_multiuse_invite_group: group('role:administrators', NO_EVERYONE, 'who may create reusable invitation links', 209, true),
  can_access_all_users_group: group(
    'role:everyone',
    { allowNobody: false, allowEveryone: true, systemGroups: ['role:everyone', 'role:members'] },
    'who may see every user (role:everyone or role:members)',
    225,
  ),
  can_add_subscribers_group: group('role:members', NO_EVERYONE, 'who may subscribe others to channels', 341),
  can_create_bots_group: group('role:members', NO_EVERYONE, 'who may create bots', 344),
  can_create_groups: group('role:members', NO_EVERYONE, 'who may create user groups', 299, true),
  can_create_write_only_bots_group: group('role:members', NO_EVERYONE, 'who may create incoming-webhook bots', 344),
  can_invite_users_group: group('role:members', NO_EVERYONE, 'who may send e-mail invitations', 321, true),
  can_manage_all_groups: group('role:owners', { allowNobody: false, allowEveryone: false }, 'who may manage every user group', 299, true),
  can_move_messages_between_channels_group: group('role:members', NO_EVERYONE, 'who may move messages to another channel', 310),
  can_move_messages_between_topics_group: group('role:everyone', OPEN, 'who may move messages to another topic', 316),
  can_resolve_topics_group: group('role:everyone', OPEN, 'who may resolve topics', 367),
} as const;

export type RealmSettingName = keyof typeof REALM_SETTINGS;

type MetaOf<K extends RealmSettingName> = (typeof REALM_SETTINGS)[K]['setting'];

export type GroupSettingName = { [K in RealmSettingName]: MetaOf<K> extends { kind: 'group' } ? K : never }[RealmSettingName];

/** Every setting's name, in the table's order. */
export const REALM_SETTING_NAMES = Object.keys(REALM_SETTINGS) as RealmSettingName[];

export type ChannelSettingName = { [K in RealmSettingName]: MetaOf<K> extends { kind: 'channel' } ? K : never }[RealmSettingName];

const isGroupSetting = (name: RealmSettingName): name is GroupSettingName => REALM_SETTINGS[name].setting.kind === 'group';
const isChannelSetting = (name: RealmSettingName): name is ChannelSettingName => REALM_SETTINGS[name].setting.kind === 'channel';

/**
 * The group-valued settings, in the table's order, which is the order a Zulip server applies them
 * (Realm.REALM_PERMISSION_GROUP_SETTINGS).
 */
export const GROUP_SETTING_ORDER: readonly GroupSettingName[] = REALM_SETTING_NAMES.filter(isGroupSetting);

/** The announcement channels' settings. */
export const CHANNEL_SETTING_NAMES: readonly ChannelSettingName[] = REALM_SETTING_NAMES.filter(isChannelSetting);
