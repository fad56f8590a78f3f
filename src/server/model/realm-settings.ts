/** The organization's settings as PATCH /realm changes them (zerver/views/realm.py update_realm). */
import { ApiError, badRequest, mustBe } from '../../api/errors.js';
import type { GroupSettingValue } from '../../api/operations/channels.js';
import type { RealmUpdate, updateRealm } from '../../api/operations/server.js';
import type { HandlerParamsOf } from '../../api/operation.js';
import {
  CHANNEL_SETTING_NAMES,
  type ChannelSettingName,
  GROUP_SETTING_ORDER,
  type GroupSettingName,
  REALM_SETTING_NAMES,
  REALM_SETTINGS,
  type RealmSettingName,
  type SettingMeta,
} from '../../api/realm-settings.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { accessStream } from './channels.js';
import { listeningUserIds } from './event-queues.js';
import { activeUsersOrFail, canonicalSetting, expectationMismatch, GROUP_DEACTIVATED, sameSetting } from './groups.js';
import { getSetting, readStored, setSetting, writeStored } from './realm.js';
import { groupSetting, groupValueForApi } from './realm-permissions.js';
import { systemGroupId } from './system-groups.js';
import { isOwner, type UserRow } from './users.js';

type Params = HandlerParamsOf<typeof updateRealm>;

const metaOf = (name: RealmSettingName): SettingMeta => REALM_SETTINGS[name].setting;

interface GroupRow {
  id: number;
  name: string;
  is_system_group: number;
  deactivated: number;
}

const groupRow = (db: Db, id: number): GroupRow | undefined =>
  db.prepare('SELECT id, name, is_system_group, deactivated FROM user_groups WHERE id = ?').get(id) as GroupRow | undefined;

/**
 * zerver/lib/user_groups.py access_user_group_api_value_for_setting and
 * check_setting_configuration_for_system_groups: the groups a setting may hold, with Zulip's messages.
 */
function checkGroupValue(db: Db, name: GroupSettingName, value: GroupSettingValue): GroupSettingValue {
  const rule = REALM_SETTINGS[name].setting.rule;
  if (typeof value !== 'number') {
    if (rule.systemGroups) throw badRequest(`'${name}' must be a system user group.`);
    activeUsersOrFail(db, value.direct_members);
    for (const id of value.direct_subgroups) {
      const subgroup = groupRow(db, id);
      if (!subgroup) throw badRequest(`Invalid user group ID: ${id}`);
      if (subgroup.deactivated) throw badRequest(GROUP_DEACTIVATED);
    }
    return { direct_members: [...new Set(value.direct_members)], direct_subgroups: [...new Set(value.direct_subgroups)] };
  }
  const group = groupRow(db, value);
  if (!group) throw badRequest('Invalid user group');
  if (group.deactivated) throw badRequest('User group is deactivated.');
  if (rule.systemGroups && !group.is_system_group) throw badRequest(`'${name}' must be a system user group.`);
  const refused =
    group.name === 'role:internet' ||
    (!rule.allowNobody && group.name === 'role:nobody') ||
    (!rule.allowEveryone && group.name === 'role:everyone') ||
    (rule.systemGroups !== undefined && !rule.systemGroups.some((g) => g === group.name));
  if (refused) throw badRequest(`'${name}' setting cannot be set to '${group.name}' group.`);
  return value;
}

/** zerver/lib/message.py parse_message_time_limit_setting and zerver/lib/retention.py parse_message_retention_days. */
function parseLimit(name: string, raw: number | string, unlimited: number | null): number | null {
  if (raw === 'unlimited') return unlimited;
  if (typeof raw === 'string' || raw <= 0) {
    throw new ApiError(`Bad value for '${name}': ${raw}`, 'REQUEST_VARIABLE_INVALID', 400, { var_name: name, bad_value: raw });
  }
  return raw;
}

/** The video call providers a stock server offers: none and Jitsi Meet (Zoom and BigBlueButton need server configuration). */
const VIDEO_CHAT_PROVIDERS = [0, 1];

type PlainValue = string | number | boolean | null;
type PlainChange = [name: RealmSettingName, value: PlainValue, initial: PlainValue];

/** The plain settings the request asks to change, each with its value once parsed and a new organization's. */
function plainChanges(p: Params): PlainChange[] {
  const changes: PlainChange[] = [];
  for (const name of REALM_SETTING_NAMES) {
    const meta = metaOf(name);
    const raw = p[name];
    if (meta.kind === 'group' || meta.kind === 'channel') continue;
    if (meta.kind === 'time-limit' || meta.kind === 'retention') {
      if (typeof raw === 'number' || typeof raw === 'string') changes.push([name, parseLimit(name, raw, meta.kind === 'retention' ? -1 : null), meta.initial]);
    } else if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') {
      changes.push([name, raw, meta.initial]);
    }
  }
  // update_realm writes a time limit set to "unlimited" while parsing it, the others in its parameters'
  // (alphabetical) order: the events follow that order.
  const unlimitedFirst = ([name, value]: PlainChange) => (metaOf(name).kind === 'time-limit' && value === null ? 0 : 1);
  return changes.sort((a, b) => unlimitedFirst(a) - unlimitedFirst(b) || a[0].localeCompare(b[0]));
}

/**
 * Checks every requested change in the order today's update_realm does, then applies those that change
 * something: plain properties (events as do_set_realm_property sends them), group-valued settings
 * (do_change_realm_permission_group_setting) and announcement channels (do_set_realm_stream). Zulip
 * writes some before a later check may fail; here the request's transaction keeps nothing of a refusal.
 */
export function updateRealmSettings(db: Db, sink: EventSink, caller: UserRow, p: Params): RealmUpdate {
  if (p.video_chat_provider !== undefined && !VIDEO_CHAT_PROVIDERS.includes(p.video_chat_provider)) {
    throw badRequest(`Invalid video_chat_provider ${p.video_chat_provider}`);
  }
  if (!isOwner(caller) && REALM_SETTING_NAMES.some((name) => p[name] !== undefined && 'ownerOnly' in metaOf(name))) throw mustBe('owner');
  const plain = plainChanges(p);

  const groups: [GroupSettingName, GroupSettingValue, GroupSettingValue][] = [];
  for (const name of GROUP_SETTING_ORDER) {
    const change = p[name];
    if (change === undefined) continue;
    const nobody = systemGroupId(db, 'role:nobody')!;
    const wanted = canonicalSetting(change.new, nobody);
    const current = groupValueForApi(db, groupSetting(db, name));
    if (change.old !== undefined && !sameSetting(canonicalSetting(change.old, nobody), current)) throw expectationMismatch();
    if (!sameSetting(current, wanted)) groups.push([name, checkGroupValue(db, name, wanted), wanted]);
  }

  const channels: [ChannelSettingName, number][] = [];
  for (const name of CHANNEL_SETTING_NAMES) {
    const id = p[name];
    if (id === undefined) continue;
    // Zulip compares with the channel it holds, so asking for none when there is none still counts as a change.
    if (getSetting(db, name) === id) continue;
    if (id >= 0) accessStream(db, caller, id, { requireContent: false });
    channels.push([name, id]);
  }

  const answer: RealmUpdate = {};
  const listeners = listeningUserIds(db);
  for (const [name, value, initial] of plain) {
    const json = JSON.stringify(value);
    if ((readStored(db, name) ?? JSON.stringify(initial)) === json) continue;
    writeStored(db, name, json);
    sink.emit(propertyEvent(name, value), listeners);
    answer[name] = metaOf(name).kind === 'text' ? 'updated' : value;
  }
  for (const [name, stored, asked] of groups) {
    writeStored(db, name, JSON.stringify(stored));
    sink.emit({ type: 'realm', op: 'update_dict', property: 'default', data: { [name]: groupValueForApi(db, stored) } }, listeners);
    answer[name] = asked;
  }
  for (const [name, id] of channels) {
    setSetting(db, name, id < 0 ? null : id);
    sink.emit({ type: 'realm', op: 'update', property: name, value: id }, listeners);
    answer[name] = id;
  }
  return answer;
}

/** The settings whose changes go out as `update_dict` for their history's sake (zerver/actions/realm_settings.py). */
const EDIT_SETTINGS: readonly RealmSettingName[] = ['allow_message_editing', 'message_content_edit_limit_seconds'];

function propertyEvent(name: RealmSettingName, value: PlainValue): Record<string, unknown> & { type: string } {
  if (EDIT_SETTINGS.includes(name)) return { type: 'realm', op: 'update_dict', property: 'default', data: { [name]: value } };
  return { type: 'realm', op: 'update', property: name, value };
}
