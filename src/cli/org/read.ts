/**
 * Reading the live organization's configuration in a bounded number of requests: one POST /register for
 * the settings, domains, linkifiers, profile fields, folders, groups, channels and default channels (its
 * queue deleted at once), GET /users/me, one GET /users with profile fields, and one GET
 * /streams/{id}/members per channel: never a request per user. What the server's level cannot give is
 * left out, with a note.
 */
import { deleteQueue, register } from '../../api/operations/events.js';
import { PROFILE_FIELD_TYPES } from '../../api/operations/profile-fields.js';
import { getOwnUser, getUsers } from '../../api/operations/users.js';
import { roleName } from '../../api/roles.js';
import { isPlainObject } from '../../api/schema.js';
import type { ChatClient } from '../../client/client.js';
import { currentMembers } from '../channels/membership.js';
import type { Context } from '../command/context.js';
import { isObj, type Json, LIST_SECTIONS, type ListSectionName, type LiveObj, type LiveOrg, type Obj } from './model.js';
import { type FieldSpec, isGroupPermission, isRealmGroupSetting, LIST_DECLS, SETTINGS_FIELDS } from './sections.js';

const FETCH = ['realm', 'realm_domains', 'realm_linkifiers', 'custom_profile_fields', 'realm_user_groups', 'default_streams', 'stream'];

const num = (v: unknown): number => (typeof v === 'number' ? v : Number.NaN);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const objects = (v: unknown): Record<string, unknown>[] => list(v).filter(isPlainObject);
/** A value as the file holds it: JSON (what a server sent always is). */
const json = (v: unknown): Json => (v === undefined ? null : (JSON.parse(JSON.stringify(v)) as Json));

const byName = (names: Iterable<string>): string[] => [...names].sort((a, b) => a.localeCompare(b));

/** What every reading of an organization starts with: the register answer, the caller, and the users. */
export interface BaseState {
  state: Record<string, unknown>;
  me: { user_id: number; email: string };
  users: Record<string, unknown>[];
  requests: number;
}

/**
 * POST /register for `types` (and channel folders where `level` has them), its queue deleted at once, then
 * GET /users/me and GET /users with profile fields, streamed.
 */
export async function readBaseState(client: ChatClient, level: number, types: readonly string[], capabilities: Record<string, boolean>): Promise<BaseState> {
  const fetched = [...types, ...(level >= (LIST_DECLS.folders.minLevel ?? 0) ? ['channel_folders'] : [])];
  const state = await client.call(register, { event_types: fetched, fetch_event_types: fetched, client_capabilities: capabilities });
  let requests = 1;
  if (typeof state.queue_id === 'string') {
    await client.call(deleteQueue, { queue_id: state.queue_id });
    requests++;
  }
  const me = await client.call(getOwnUser, {});
  const users: Record<string, unknown>[] = [];
  for await (const chunk of await client.stream(getUsers, { include_custom_profile_fields: true }, 'members')) for (const u of chunk) users.push({ ...u });
  return { state, me, users, requests: requests + 2 };
}

/** Reads the live organization; `members: false` leaves the channels' subscribers unread (a plan that manages no channels). */
export async function readLive(ctx: Context, client: ChatClient, o: { members?: boolean } = {}): Promise<LiveOrg> {
  const facts = await client.serverFacts();
  const level = facts.featureLevel;
  const { state, me, users, requests: read } = await readBaseState(client, level, FETCH, { linkifier_url_template: true, user_settings_object: true });
  let requests = read;
  const channelIds = objects(state.streams).flatMap((c) => (c.is_archived !== true ? [num(c.stream_id)] : []));
  const members = o.members === false ? undefined : await currentMembers(ctx, client, channelIds);
  requests += members ? channelIds.length : 0;
  return liveFromAnswers({ level, version: facts.version, state, callerId: num(me.user_id), users, members, requests });
}

/** What the server answered, as readLive asks for it (and as a saved snapshot holds it: org mirror's base). */
export interface Answers {
  level: number;
  version?: string;
  /** POST /register's answer. */
  state: Readonly<Record<string, unknown>>;
  callerId: number;
  /** GET /users with profile fields. */
  users: readonly Readonly<Record<string, unknown>>[];
  /** Each channel's subscribers; undefined: not read (channels without members). */
  members: ReadonlyMap<number, ReadonlySet<number>> | undefined;
  requests: number;
}

/** The live organization from the server's answers: no request. */
export function liveFromAnswers(a: Answers): LiveOrg {
  const { level, state, members } = a;
  const users = a.users.map((u) => ({ ...u }));

  const emails = new Map<number, string>();
  const userIds = new Map<string, number>();
  for (const u of users) {
    const email = text(u.delivery_email) || text(u.email);
    emails.set(num(u.user_id), email);
    userIds.set(email.toLowerCase(), num(u.user_id));
    if (text(u.email)) userIds.set(text(u.email).toLowerCase(), num(u.user_id));
  }
  const groups = objects(state.realm_user_groups);
  const groupNames = new Map(groups.map((g) => [num(g.id), text(g.name)]));
  const groupIds = new Map(groups.map((g) => [text(g.name), num(g.id)]));
  const bots = new Set(users.filter((u) => u.is_bot === true).map((u) => num(u.user_id)));
  const emailsOf = (ids: unknown): Json[] => byName(list(ids).flatMap((id) => emails.get(num(id)) ?? []));
  // Bots are members the file does not list: integrations subscribe them, and a plan never removes them.
  const peopleOf = (ids: unknown): Json[] => emailsOf(list(ids).filter((id) => !bots.has(num(id))));
  /** A group-setting value in the file's words: a group's name, or members and subgroups. */
  const groupValue = (v: unknown): Json => {
    if (typeof v === 'number') return groupNames.get(v) ?? v;
    if (!isObj(v)) return json(v);
    const members = emailsOf(v.direct_members);
    const subgroups = byName(list(v.direct_subgroups).flatMap((id) => groupNames.get(num(id)) ?? []));
    return { members, subgroups };
  };

  // A field newer than the server's level is left out even when an answer carries it: a stand-in or a
  // patched server may, but no request of the plan could write it there.
  const readable = (spec: FieldSpec | undefined): boolean => (spec?.level ?? 0) <= level;
  const settings: Obj = {};
  for (const [key, spec] of Object.entries(SETTINGS_FIELDS)) {
    const v = state[`realm_${key}`];
    if (v !== undefined && readable(spec)) settings[key] = isRealmGroupSetting(key) ? groupValue(v) : json(v);
  }
  const newer = (fields: Readonly<Record<string, FieldSpec>>) => Object.keys(fields).filter((k) => !readable(fields[k]));
  const unreadFields: LiveOrg['unreadFields'] = {};
  for (const [section, names] of [
    ['settings', newer(SETTINGS_FIELDS)],
    ['groups', newer(LIST_DECLS.groups.fields)],
  ] as const) {
    if (names.length) unreadFields[section] = `${section}: ${names.join(', ')} not read (the server is at feature level ${level}; they came later)`;
  }

  const fields = objects(state.custom_profile_fields).sort((a, b) => num(a.order) - num(b.order));
  const fieldNames = new Map(fields.map((f) => [String(f.id), text(f.name)]));
  const typeNames = new Map<number, string>(Object.entries(PROFILE_FIELD_TYPES).map(([name, n]) => [n, name]));
  const folderRows = objects(state.channel_folders)
    .filter((f) => f.is_archived !== true)
    .sort((a, b) => num(a.order) - num(b.order));
  const folderNames = new Map(folderRows.map((f) => [num(f.id), text(f.name)]));
  const defaults = new Set(list(state.realm_default_streams).map((d) => (isObj(d) ? num(d.stream_id) : num(d))));
  const channels = objects(state.streams).filter((c) => c.is_archived !== true);

  const lists: Record<ListSectionName, LiveObj[]> = {
    domains: objects(state.realm_domains).map((d) => ({ id: text(d.domain), file: { domain: text(d.domain), allow_subdomains: d.allow_subdomains === true } })),
    linkifiers: objects(state.realm_linkifiers).map((l) => ({
      id: num(l.id),
      file: {
        id: num(l.id),
        pattern: text(l.pattern),
        url_template: text(l.url_template),
        ...(typeof l.example_input === 'string' ? { example_input: l.example_input } : {}),
        ...(typeof l.reverse_template === 'string' ? { reverse_template: l.reverse_template } : {}),
        ...(list(l.alternative_url_templates).length ? { alternative_url_templates: json(l.alternative_url_templates) } : {}),
      },
    })),
    profile_fields: fields.map((f) => {
      const data = typeof f.field_data === 'string' && f.field_data !== '' ? (JSON.parse(f.field_data) as unknown) : undefined;
      return {
        id: num(f.id),
        file: {
          id: num(f.id),
          name: text(f.name),
          type: typeNames.get(num(f.type)) ?? num(f.type),
          hint: text(f.hint),
          ...(isObj(data) && Object.keys(data).length ? { field_data: json(data) } : {}),
          ...(typeof f.required === 'boolean' ? { required: f.required } : {}),
          ...(typeof f.editable_by_user === 'boolean' ? { editable_by_user: f.editable_by_user } : {}),
          display_in_profile_summary: f.display_in_profile_summary === true,
        },
      };
    }),
    folders: folderRows.map((f) => ({ id: num(f.id), file: { id: num(f.id), name: text(f.name), description: text(f.description) } })),
    groups: groups
      .filter((g) => g.is_system_group !== true && g.deactivated !== true)
      .sort((a, b) => text(a.name).localeCompare(text(b.name)))
      .map((g) => ({
        id: num(g.id),
        file: {
          id: num(g.id),
          name: text(g.name),
          description: text(g.description),
          members: peopleOf(g.members),
          subgroups: byName(list(g.direct_subgroup_ids ?? g.subgroups).flatMap((id) => groupNames.get(num(id)) ?? [])),
          ...Object.fromEntries(
            Object.keys(LIST_DECLS.groups.fields)
              .filter((k) => isGroupPermission(k) && k in g && readable(LIST_DECLS.groups.fields[k]))
              .map((k) => [k, groupValue(g[k])]),
          ),
        },
      })),
    channels: channels
      .sort((a, b) => text(a.name).localeCompare(text(b.name)))
      .map((c) => ({
        id: num(c.stream_id),
        file: {
          id: num(c.stream_id),
          name: text(c.name),
          description: text(c.description),
          private: c.invite_only === true,
          web_public: c.is_web_public === true,
          history_public_to_subscribers: c.history_public_to_subscribers === true,
          default: defaults.has(num(c.stream_id)),
          ...('folder_id' in c ? { folder: typeof c.folder_id === 'number' ? (folderNames.get(c.folder_id) ?? null) : null } : {}),
          ...(members ? { members: peopleOf([...(members.get(num(c.stream_id)) ?? [])]) } : {}),
        },
      })),
    users: users
      .sort((a, b) => num(a.user_id) - num(b.user_id))
      .map((u) => {
        const profile = isObj(u.profile_data) ? u.profile_data : {};
        const values = Object.entries(profile).flatMap(([id, v]) => (fieldNames.has(id) && isObj(v) ? [[fieldNames.get(id)!, json(v.value)] as const] : []));
        return {
          id: num(u.user_id),
          bot: u.is_bot === true,
          file: {
            id: num(u.user_id),
            email: emails.get(num(u.user_id)) ?? '',
            name: text(u.full_name),
            role: roleName(num(u.role)),
            active: u.is_active !== false,
            ...(values.length ? { profile: Object.fromEntries(values) } : {}),
          },
        };
      }),
  };
  const unreadable: LiveOrg['unreadable'] = {};
  for (const name of LIST_SECTIONS) {
    const min = LIST_DECLS[name].minLevel;
    if (min !== undefined && level < min) unreadable[name] = `${name}: not read (the server is at feature level ${level}; they came at ${min})`;
  }
  return {
    level,
    version: a.version ?? text(state.zulip_version),
    callerId: a.callerId,
    settings,
    lists,
    unreadable,
    unreadFields,
    userIds,
    emails,
    groupIds,
    groupNames,
    requests: a.requests,
  };
}
