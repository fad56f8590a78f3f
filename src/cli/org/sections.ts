/**
 * The sections of an organization file, each declared once: its fields (their file schemas taken from the
 * catalogue's parameters where a parameter writes them), its natural key, and how an object is created,
 * changed, removed in its reversible form and ordered, as catalogue requests. Validation, the JSON Schema,
 * export, plan and apply all read these declarations.
 *
 * What no operation of the catalogue can write is declared as a reason: the plan shows such a change as
 * `!` (cannot be made) rather than sending something else.
 */
import { addRealmDomain, removeRealmDomain, updateRealmDomain } from '../../api/operations/domains.js';
import { createChannelFolder, reorderChannelFolders, updateChannelFolder } from '../../api/operations/folders.js';
import { createUserGroup, deactivateUserGroup, GROUP_PERMISSION_SETTINGS, updateUserGroup, updateUserGroupMembers } from '../../api/operations/groups.js';
import { addLinkifier, removeLinkifier, reorderLinkifiers, updateLinkifier } from '../../api/operations/linkifiers.js';
import {
  createCustomProfileField,
  deleteCustomProfileField,
  PROFILE_FIELD_TYPES,
  reorderCustomProfileFields,
  updateCustomProfileField,
} from '../../api/operations/profile-fields.js';
import { archiveStream, createChannel, subscribe, unsubscribe, updateStream } from '../../api/operations/channels.js';
import { updateRealm } from '../../api/operations/server.js';
import { REALM_SETTINGS } from '../../api/realm-settings.js';
import { deactivateUser, reactivateUser, updateUser } from '../../api/operations/users.js';
import { fillPath, type Operation } from '../../api/operation.js';
import { ROLE } from '../../api/roles.js';
import { type Schema, s } from '../../api/schema.js';
import { MEMBERSHIP_CHUNK } from '../channels/membership.js';
import { isObj, type Json, type LiveObj, type LiveOrg, type ListSectionName, type Obj, type PlannedRequest, type Ref, strings } from './model.js';

/** What a field's value names in another section, checked by validate and resolved by plan. */
export type RefKind = 'user' | 'users' | 'groups' | 'groupSetting' | 'folder';

export interface FieldSpec {
  schema: Schema;
  doc: string;
  ref?: RefKind;
  /** A set (members, subgroups): its changes are memberships, added and removed one by one. */
  members?: boolean;
  /** The feature level from which a server takes the parameter that writes it. */
  level?: number;
  /** The server's ID: read, matched on, never written. */
  readOnly?: boolean;
}

/** A parameter's schema and level, as the catalogue declares them: a field's type is never declared twice. */
function param(op: Operation, name: string, doc: string, extra: Partial<FieldSpec> = {}): FieldSpec {
  const def = op.params[name];
  if (!def) throw new Error(`${op.name} has no parameter ${name}`);
  return { schema: def.schema, doc, ...(def.minFeatureLevel !== undefined ? { level: def.minFeatureLevel } : {}), ...extra };
}

const ID: FieldSpec = { schema: s.int().schema, doc: "the server's ID (matched first; a new key with the same ID is a rename)", readOnly: true };
const EMAILS = s.list(s.string()).schema;

/**
 * A group-valued setting as a file writes it: a group's name (system groups as `role:members` ...), or the
 * members and subgroups of an anonymous group.
 */
const GROUP_SETTING: Schema = s.union(
  s.string(),
  s.object({ members: s.optional(s.list(s.string())), subgroups: s.optional(s.list(s.string())) }),
  'a group name or {members, subgroups}',
).schema;

/** Organization settings that hold a group, as the catalogue declares them: a group's ID or members and subgroups on the wire. */
export const isRealmGroupSetting = (name: string): boolean =>
  Object.hasOwn(REALM_SETTINGS, name) && REALM_SETTINGS[name as keyof typeof REALM_SETTINGS].setting.kind === 'group';

/** A group's own settings that hold a group (`can_manage_group` ...). */
export const isGroupPermission = (name: string): boolean => (GROUP_PERMISSION_SETTINGS as readonly string[]).includes(name);

/**
 * A group-valued setting's change as PATCH /realm and PATCH /user_groups/{id} take it: the new value, and the
 * value the plan saw, which the server checks first, so a setting changed since the plan is refused, not overwritten.
 */
const groupChange = (value: Json, seen: Json | undefined, r: Resolver): Json => ({
  new: r.groupSetting(value),
  ...(seen !== undefined ? { old: r.groupSetting(seen) } : {}),
});

/** How the planner resolves a file's names to what requests carry. */
export interface Resolver {
  level: number;
  live: LiveOrg;
  /** A user's ID by e-mail (undefined: no such user). */
  user(email: string): number | undefined;
  /** An object's ID, or a reference to the request of this plan that creates it. */
  object(section: 'groups' | 'folders' | 'channels', key: string): number | Ref | undefined;
  /** A group-setting value for the wire. */
  groupSetting(value: Json): Json;
}

/** A reason a change cannot be made, in place of its requests. */
export class Cannot {
  constructor(readonly reason: string) {}
}

export type Writes = PlannedRequest[] | Cannot;

/** A planned request of a catalogue operation; path parameters are filled for people, refs shown as `{groups/eng}`. */
export function request(op: Operation, params: Record<string, Json | Ref | undefined>, creates?: { ref: string; key: string }): PlannedRequest {
  const kept: Obj = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined) kept[k] = v;
  const shown = Object.fromEntries(Object.entries(kept).map(([k, v]) => [k, isRef(v) ? `{${v.$ref}}` : v]));
  return { operation: op.name, method: op.method, path: fillPath(op.path, shown), params: kept, ...(creates ? { creates } : {}) };
}

export const isRef = (v: unknown): v is Ref => isObj(v) && typeof v.$ref === 'string';

/** Every operation an organization plan may send, by catalogue name: what `apply --plan` calls. */
export const PLAN_OPERATIONS: ReadonlyMap<string, Operation> = new Map(
  [
    addRealmDomain,
    updateRealmDomain,
    removeRealmDomain,
    addLinkifier,
    updateLinkifier,
    removeLinkifier,
    reorderLinkifiers,
    createCustomProfileField,
    updateCustomProfileField,
    reorderCustomProfileFields,
    createChannelFolder,
    updateChannelFolder,
    reorderChannelFolders,
    createUserGroup,
    updateUserGroupMembers,
    updateUserGroup,
    deactivateUserGroup,
    createChannel,
    subscribe,
    unsubscribe,
    updateStream,
    archiveStream,
    updateUser,
    deactivateUser,
    reactivateUser,
    updateRealm,
  ].map((op): [string, Operation] => [op.name, op]),
);

export interface ListSection {
  name: ListSectionName;
  doc: string;
  /** The natural key's field: matched on after the ID. */
  key: string;
  /** Objects carry server IDs. */
  ids: boolean;
  fields: Readonly<Record<string, FieldSpec>>;
  /** The order of the list is the server's order (linkifiers apply in it). */
  ordered?: boolean;
  /** The level from which a server can read the section. */
  minLevel?: number;
  /** Membership fields a create request carries itself; others are added after it. */
  carries?: readonly string[];
  create(o: Obj, r: Resolver): Writes;
  /** `changed` holds the new values of the fields that differ; `o` the whole desired object over the live one. */
  update(id: number | string, changed: Obj, o: Obj, r: Resolver): Writes;
  members?(target: number | Ref, name: string, field: string, add: string[], remove: string[], r: Resolver): { add: Writes; remove: Writes };
  /** The reversible removal of a live object. */
  remove(o: LiveObj, r: Resolver): Writes;
  order?(ids: (number | Ref)[], r: Resolver): Writes;
}

const str = (v: Json | undefined, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const bool = (v: Json | undefined): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
const pick = (o: Obj, keys: readonly string[]): Obj => Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]!]));

/** User IDs of e-mails (those the server does not know are left to validation and the plan's own refusals). */
const userIds = (emails: readonly string[], r: Resolver): number[] => emails.flatMap((e) => r.user(e) ?? []);

/** What PATCH /realm/profile_fields/{id} changes of a field; a new field takes them too. */
const PROFILE_FIELD_EDITS = ['name', 'hint', 'field_data', 'required', 'editable_by_user', 'display_in_profile_summary'] as const;

const roleNames = Object.keys(ROLE) as (keyof typeof ROLE)[];
const fieldTypes = Object.keys(PROFILE_FIELD_TYPES) as (keyof typeof PROFILE_FIELD_TYPES)[];

/** The organization's settings: whatever `updateRealm` declares, each read from register's `realm_<name>`. */
export const SETTINGS_FIELDS: Readonly<Record<string, FieldSpec>> = Object.fromEntries(
  Object.entries(updateRealm.params).map(([name, def]): [string, FieldSpec] => [
    name,
    isRealmGroupSetting(name)
      ? { schema: GROUP_SETTING, doc: def.doc ?? name, ref: 'groupSetting', ...(def.minFeatureLevel !== undefined ? { level: def.minFeatureLevel } : {}) }
      : param(updateRealm, name, def.doc ?? name),
  ]),
);

export function settingsUpdate(changed: Obj, r: Resolver): PlannedRequest {
  return request(
    updateRealm,
    Object.fromEntries(Object.entries(changed).map(([k, v]) => [k, isRealmGroupSetting(k) ? groupChange(v, r.live.settings[k], r) : v])),
  );
}

const linkifierFields = {
  id: ID,
  pattern: param(addLinkifier, 'pattern', 'the regular expression (the natural key)'),
  url_template: param(addLinkifier, 'url_template', 'the URL template'),
  example_input: param(addLinkifier, 'example_input', 'a string the pattern matches'),
  reverse_template: param(addLinkifier, 'reverse_template', 'the linkifier text back from a URL'),
  alternative_url_templates: param(addLinkifier, 'alternative_url_templates', 'more URL templates, for reverse linkification'),
};
const LINKIFIER_EXTRA = ['example_input', 'reverse_template', 'alternative_url_templates'] as const;

const groupSettingFields: Record<string, FieldSpec> = Object.fromEntries(
  GROUP_PERMISSION_SETTINGS.map((name): [string, FieldSpec] => [
    name,
    { ...param(createUserGroup, name, `who ${name.replace(/^can_|_group$/g, '').replace(/_/g, ' ')}`), schema: GROUP_SETTING, ref: 'groupSetting' },
  ]),
);

export const LIST_DECLS: Readonly<Record<ListSectionName, ListSection>> = {
  domains: {
    name: 'domains',
    doc: 'allowed e-mail domains for new accounts',
    key: 'domain',
    ids: false,
    fields: {
      domain: param(addRealmDomain, 'domain', 'the domain (the natural key)'),
      allow_subdomains: param(addRealmDomain, 'allow_subdomains', 'also allow its subdomains'),
    },
    create: (o) => [request(addRealmDomain, { domain: str(o.domain), allow_subdomains: bool(o.allow_subdomains) ?? false })],
    update: (id, changed) => [request(updateRealmDomain, { domain: String(id), allow_subdomains: bool(changed.allow_subdomains) ?? false })],
    remove: (o) => [request(removeRealmDomain, { domain: String(o.id) })],
  },
  linkifiers: {
    name: 'linkifiers',
    doc: 'patterns that become links, in the order they apply',
    key: 'pattern',
    ids: true,
    ordered: true,
    fields: linkifierFields,
    create: (o) => [
      request(
        addLinkifier,
        { pattern: str(o.pattern), url_template: str(o.url_template), ...pick(o, LINKIFIER_EXTRA) },
        { ref: `linkifiers/${str(o.pattern)}`, key: 'id' },
      ),
    ],
    // PATCH /realm/filters/{id} takes the pattern and the template both, whichever changed.
    update: (id, changed, o) => [
      request(updateLinkifier, { filter_id: Number(id), pattern: str(o.pattern), url_template: str(o.url_template), ...pick(changed, LINKIFIER_EXTRA) }),
    ],
    remove: (o) => [request(removeLinkifier, { filter_id: Number(o.id) })],
    order: (ids) => [request(reorderLinkifiers, { ordered_linkifier_ids: ids })],
  },
  profile_fields: {
    name: 'profile_fields',
    doc: 'custom profile fields, in display order',
    key: 'name',
    ids: true,
    ordered: true,
    fields: {
      id: ID,
      name: param(createCustomProfileField, 'name', 'the label (the natural key)'),
      type: { schema: s.literal(fieldTypes).schema, doc: `one of ${fieldTypes.join(', ')}` },
      hint: param(createCustomProfileField, 'hint', 'help text'),
      field_data: param(createCustomProfileField, 'field_data', 'select: the options; external account: its subtype'),
      required: param(createCustomProfileField, 'required', 'users must fill it in'),
      editable_by_user: param(createCustomProfileField, 'editable_by_user', 'users may edit their own value'),
      display_in_profile_summary: param(createCustomProfileField, 'display_in_profile_summary', 'shown in the profile summary'),
    },
    create: (o) => {
      const type = str(o.type, 'short_text');
      return [
        request(
          createCustomProfileField,
          {
            name: str(o.name),
            field_type: type in PROFILE_FIELD_TYPES ? PROFILE_FIELD_TYPES[type as keyof typeof PROFILE_FIELD_TYPES] : 1,
            ...pick(
              o,
              PROFILE_FIELD_EDITS.filter((k) => k !== 'name'),
            ),
          },
          { ref: `profile_fields/${str(o.name)}`, key: 'id' },
        ),
      ];
    },
    update: (id, changed) =>
      'type' in changed
        ? new Cannot("a custom profile field's type cannot be changed: create a field of the new type")
        : [request(updateCustomProfileField, { field_id: Number(id), ...pick(changed, PROFILE_FIELD_EDITS) })],
    // Deleting a field deletes every user's value of it, and nothing brings them back: no reversible form.
    remove: (o) =>
      new Cannot(
        `removing a custom profile field deletes every user's value of it; chatctl org never does (chatctl api DELETE ${fillPath(deleteCustomProfileField.path, { field_id: Number(o.id) })})`,
      ),
    order: (ids) => [request(reorderCustomProfileFields, { order: ids })],
  },
  folders: {
    name: 'folders',
    doc: 'channel folders, in display order (feature level 389)',
    key: 'name',
    ids: true,
    ordered: true,
    minLevel: 389,
    fields: {
      id: ID,
      name: param(createChannelFolder, 'name', 'its name (the natural key)'),
      description: param(createChannelFolder, 'description', 'its description'),
    },
    create: (o) => [
      request(createChannelFolder, { name: str(o.name), description: str(o.description) }, { ref: `folders/${str(o.name)}`, key: 'channel_folder_id' }),
    ],
    update: (id, changed) => [request(updateChannelFolder, { channel_folder_id: Number(id), ...pick(changed, ['name', 'description']) })],
    remove: (o) => [request(updateChannelFolder, { channel_folder_id: Number(o.id), is_archived: true })],
    order: (ids) => [request(reorderChannelFolders, { order: ids })],
  },
  groups: {
    name: 'groups',
    doc: 'user groups (system groups are named role:members ... and are not listed)',
    key: 'name',
    ids: true,
    carries: ['members'],
    fields: {
      id: ID,
      name: param(createUserGroup, 'name', 'its name (the natural key)'),
      description: param(createUserGroup, 'description', 'its description'),
      members: { schema: EMAILS, doc: 'direct members, by e-mail', ref: 'users', members: true },
      subgroups: {
        schema: s.list(s.string()).schema,
        doc: 'direct subgroups, by name',
        ref: 'groups',
        members: true,
        level: createUserGroup.params.subgroups.minFeatureLevel,
      },
      ...groupSettingFields,
    },
    create: (o, r) => [
      request(
        createUserGroup,
        {
          name: str(o.name),
          description: str(o.description),
          members: userIds(strings(o.members), r),
          ...Object.fromEntries(GROUP_PERMISSION_SETTINGS.filter((k) => k in o).map((k) => [k, r.groupSetting(o[k]!)])),
        },
        { ref: `groups/${str(o.name)}`, key: 'group_id' },
      ),
    ],
    update: (id, changed, _o, r) => {
      const seen = r.live.lists.groups.find((g) => g.id === id)?.file;
      return [
        request(updateUserGroup, {
          user_group_id: Number(id),
          ...pick(changed, ['name', 'description']),
          ...Object.fromEntries(GROUP_PERMISSION_SETTINGS.filter((k) => k in changed).map((k) => [k, groupChange(changed[k]!, seen?.[k], r)])),
        }),
      ];
    },
    members: (target, _name, field, add, remove, r) => {
      const ids = (names: string[]) => (field === 'members' ? userIds(names, r) : names.flatMap((n) => r.object('groups', n) ?? []));
      const [addKey, deleteKey] = field === 'members' ? ['add', 'delete'] : ['add_subgroups', 'delete_subgroups'];
      return {
        add: add.length ? [request(updateUserGroupMembers, { user_group_id: target, [addKey]: ids(add) })] : [],
        remove: remove.length ? [request(updateUserGroupMembers, { user_group_id: target, [deleteKey]: ids(remove) })] : [],
      };
    },
    remove: (o) => [request(deactivateUserGroup, { user_group_id: Number(o.id) })],
  },
  channels: {
    name: 'channels',
    doc: 'channels (archived ones are not listed) and their subscribers',
    key: 'name',
    ids: true,
    carries: ['members'],
    fields: {
      id: ID,
      name: param(updateStream, 'new_name', 'its name (the natural key)'),
      description: param(updateStream, 'description', 'its description'),
      private: param(updateStream, 'is_private', 'invite-only'),
      web_public: param(updateStream, 'is_web_public', 'readable without an account'),
      history_public_to_subscribers: param(updateStream, 'history_public_to_subscribers', 'new subscribers see earlier messages'),
      default: param(updateStream, 'is_default_stream', 'new users join it'),
      folder: { ...param(updateStream, 'folder_id', 'its channel folder, by name (null: none)'), schema: s.nullable(s.string()).schema, ref: 'folder' },
      members: { schema: EMAILS, doc: 'subscribers, by e-mail', ref: 'users', members: true },
    },
    create: (o, r) => {
      const folder = typeof o.folder === 'string' ? r.object('folders', o.folder) : undefined;
      const shared = {
        invite_only: bool(o.private),
        is_web_public: bool(o.web_public),
        history_public_to_subscribers: bool(o.history_public_to_subscribers),
        is_default_stream: bool(o.default),
        folder_id: folder,
      };
      const members = userIds(strings(o.members), r);
      const ref = { ref: `channels/${str(o.name)}`, key: 'id' };
      // POST /channels/create from 417; before it, a channel is created by subscribing to it.
      if (r.level >= (createChannel.minFeatureLevel ?? 0)) {
        return [request(createChannel, { name: str(o.name), description: str(o.description), subscribers: members, ...shared }, ref)];
      }
      return [
        request(subscribe, {
          subscriptions: [{ name: str(o.name), description: str(o.description) }],
          ...(members.length ? { principals: members } : {}),
          ...shared,
        }),
      ];
    },
    update: (id, changed, _o, r) => [
      request(updateStream, {
        stream_id: Number(id),
        new_name: changed.name,
        description: changed.description,
        is_private: changed.private,
        is_web_public: changed.web_public,
        history_public_to_subscribers: changed.history_public_to_subscribers,
        is_default_stream: changed.default,
        folder_id: 'folder' in changed ? (typeof changed.folder === 'string' ? r.object('folders', changed.folder) : null) : undefined,
      }),
    ],
    members: (_target, name, _field, add, remove, r) => {
      const chunks = (ids: number[]) =>
        Array.from({ length: Math.ceil(ids.length / MEMBERSHIP_CHUNK) }, (_, i) => ids.slice(i * MEMBERSHIP_CHUNK, (i + 1) * MEMBERSHIP_CHUNK));
      return {
        add: chunks(userIds(add, r)).map((principals) => request(subscribe, { subscriptions: [{ name }], principals })),
        remove: chunks(userIds(remove, r)).map((principals) => request(unsubscribe, { subscriptions: [name], principals })),
      };
    },
    remove: (o) => [request(archiveStream, { stream_id: Number(o.id) })],
  },
  users: {
    name: 'users',
    doc: 'users (bots only when the file names them); created by invitation, not here',
    key: 'email',
    ids: true,
    fields: {
      id: ID,
      email: { schema: s.string().schema, doc: 'the e-mail address (the natural key)' },
      name: param(updateUser, 'full_name', 'the full name'),
      role: { schema: s.literal(roleNames).schema, doc: `one of ${roleNames.join(', ')}` },
      active: { schema: s.bool().schema, doc: 'false: deactivated' },
      profile: { schema: s.dict(s.nullable(s.string())).schema, doc: 'custom profile field values, by field name (null: unset)' },
    },
    create: () => new Cannot('users are created by invitation: chatctl invite send'),
    update: (id, changed, _o, r) => {
      const out: PlannedRequest[] = [];
      if (changed.active === true) out.push(request(reactivateUser, { user_id: Number(id) }));
      const profile = isObj(changed.profile) ? profileData(changed.profile, r) : undefined;
      if (profile instanceof Cannot) return profile;
      const role = typeof changed.role === 'string' && changed.role in ROLE ? ROLE[changed.role as keyof typeof ROLE] : undefined;
      // A new e-mail under the same ID (compared without case) is new_email, from level 313 (checkLevels refuses it
      // before); zerver/views/users.py update_user_backend lets only owners allowed to change e-mails send it.
      const email = typeof changed.email === 'string' ? changed.email : undefined;
      if (changed.name !== undefined || role !== undefined || profile !== undefined || email !== undefined) {
        out.push(request(updateUser, { user_id: Number(id), full_name: changed.name, role, profile_data: profile, new_email: email }));
      }
      if (changed.active === false) out.push(request(deactivateUser, { user_id: Number(id) }));
      return out;
    },
    remove: (o) => [request(deactivateUser, { user_id: Number(o.id) })],
  },
};

/** profile_data for changed profile values, by field name; a field the server does not have cannot be written. */
function profileData(values: { [k: string]: Json }, r: Resolver): Json[] | Cannot {
  const ids = new Map(r.live.lists.profile_fields.map((f) => [str(f.file.name), { id: Number(f.id), type: str(f.file.type) }]));
  const out: Json[] = [];
  for (const [name, value] of Object.entries(values)) {
    const field = ids.get(name);
    if (!field) return new Cannot(`no custom profile field named ${name}`);
    // A users field's value is a JSON list of user IDs as the server gives it; the write takes the list.
    out.push({ id: field.id, value: field.type === 'users' && typeof value === 'string' ? parseIds(value) : value });
  }
  return out;
}

function parseIds(text: string): Json {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : text;
  } catch {
    return text;
  }
}
