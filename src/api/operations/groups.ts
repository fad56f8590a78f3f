/** User groups: named groups of users and subgroups, and the role-based system groups. */
import { declareOlder, olderCall } from '../older.js';
import { NotAtLevel, type OlderParam, operation, p } from '../operation.js';
import { type GroupSettingChange, groupSettingChange, groupSettingValue } from '../group-setting.js';
import { s, type Typed } from '../schema.js';
import type { GroupSettingValue } from './channels.js';

export const GROUP_PERMISSION_SETTINGS = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;
export type GroupPermissionSetting = (typeof GROUP_PERMISSION_SETTINGS)[number];

export type UserGroup = {
  id: number;
  name: string;
  description: string;
  /** Direct members (active users), ascending. */
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
  date_created: number | null;
  creator_id: number | null;
  deactivated: boolean;
} & Record<GroupPermissionSetting, GroupSettingValue>;

/** A group-setting value as servers before 258 take it: a group ID, never members and subgroups. */
function groupIdOnly(value: unknown): number {
  if (typeof value === 'number') return value;
  throw new NotAtLevel('a group-setting value of members and subgroups');
}

/** Servers before 260 take a change of `can_mention_group` as the new value alone. */
const newValueOnly = (change: GroupSettingChange): GroupSettingValue => change.new;

/**
 * The group's permission settings as parameters of `schema` (a value on creation, a change on update), each from
 * the feature level that added it (api_docs/changelog.md); `can_mention_group` was `can_mention_group_id` until
 * 198 and a group ID only until 258, and `mentionOlder` adds the forms it took before that on the operation.
 */
const permissionParams = <T>(schema: Typed<T>, mentionOlder: readonly OlderParam<T>[]) => ({
  can_add_members_group: p.opt(schema, { minFeatureLevel: 305 }),
  can_join_group: p.opt(schema, { minFeatureLevel: 301 }),
  can_leave_group: p.opt(schema, { minFeatureLevel: 308 }),
  can_manage_group: p.opt(schema, { minFeatureLevel: 283 }),
  can_mention_group: p.opt(schema, {
    minFeatureLevel: 191,
    older: [...mentionOlder, { before: 258, value: groupIdOnly }, { before: 198, name: 'can_mention_group_id' }],
  }),
  can_remove_members_group: p.opt(schema, { minFeatureLevel: 324 }),
});

const groupPath = { user_group_id: p.path(s.int()) };

export const createUserGroup = operation<{ group_id: number }>()({
  name: 'create-user-group',
  method: 'POST',
  path: '/user_groups/create',
  summary: 'Create a user group',
  access: 'member',
  bots: false,
  params: {
    name: p.req(s.string()),
    description: p.req(s.string()),
    members: p.req(s.list(s.int(), { unique: true }), { doc: 'JSON list of user IDs' }),
    subgroups: p.opt(s.list(s.int(), { unique: true }), { doc: 'JSON list of group IDs', minFeatureLevel: 311 }),
    ...permissionParams(groupSettingValue, []),
  },
  openapiPath: '/user_groups/create',
});

export const getUserGroups = operation<{ user_groups: UserGroup[] }>()({
  name: 'get-user-groups',
  method: 'GET',
  path: '/user_groups',
  summary: 'All user groups, system groups included',
  access: 'member',
  cacheable: true,
  bots: false,
  params: {
    include_deactivated_groups: p.def(s.bool(), false, {
      // Called `allow_deactivated` from 290, when groups could first be deactivated; before that there are
      // none to include, so nothing is sent.
      older: [
        { before: 294, name: 'allow_deactivated' },
        { before: 290, value: () => undefined },
      ],
    }),
  },
  openapiPath: '/user_groups',
});

export const getUserGroupMembers = operation<{ members: number[] }>()({
  name: 'get-user-group-members',
  method: 'GET',
  path: '/user_groups/{user_group_id}/members',
  summary: 'Members of a user group (with those of its subgroups unless direct_member_only)',
  access: 'member',
  cacheable: true,
  bots: false,
  params: { ...groupPath, direct_member_only: p.def(s.bool(), false) },
  minFeatureLevel: 127,
  openapiPath: '/user_groups/{user_group_id}/members',
});

export const getIsUserGroupMember = operation<{ is_user_group_member: boolean }>()({
  name: 'get-is-user-group-member',
  method: 'GET',
  path: '/user_groups/{user_group_id}/members/{user_id}',
  summary: 'Whether a user is a member of a user group',
  access: 'member',
  cacheable: true,
  bots: false,
  params: { ...groupPath, user_id: p.path(s.int()), direct_member_only: p.def(s.bool(), false) },
  minFeatureLevel: 127,
  openapiPath: '/user_groups/{user_group_id}/members/{user_id}',
});

export const updateUserGroupMembers = operation<Record<string, never>>()({
  name: 'update-user-group-members',
  method: 'POST',
  path: '/user_groups/{user_group_id}/members',
  summary: 'Add or remove members and subgroups of a user group',
  access: 'member',
  bots: false,
  params: {
    ...groupPath,
    add: p.opt(s.list(s.int(), { unique: true }), { doc: 'user IDs to add' }),
    delete: p.opt(s.list(s.int(), { unique: true }), { doc: 'user IDs to remove' }),
    add_subgroups: p.opt(s.list(s.int(), { unique: true }), { doc: 'group IDs to add as subgroups' }),
    delete_subgroups: p.opt(s.list(s.int(), { unique: true }), { doc: 'group IDs to remove as subgroups' }),
  },
  openapiPath: '/user_groups/{user_group_id}/members',
});

export const updateUserGroupSubgroups = operation<Record<string, never>>()({
  name: 'update-user-group-subgroups',
  method: 'POST',
  path: '/user_groups/{user_group_id}/subgroups',
  summary: 'Add or remove subgroups of a user group',
  access: 'member',
  bots: false,
  params: {
    ...groupPath,
    add: p.opt(s.list(s.int(), { unique: true }), { doc: 'group IDs to add' }),
    delete: p.opt(s.list(s.int(), { unique: true }), { doc: 'group IDs to remove' }),
  },
  minFeatureLevel: 127,
  openapiPath: '/user_groups/{user_group_id}/subgroups',
});

export const getUserGroupSubgroups = operation<{ subgroups: number[] }>()({
  name: 'get-user-group-subgroups',
  method: 'GET',
  path: '/user_groups/{user_group_id}/subgroups',
  summary: 'Subgroups of a user group (recursively unless direct_subgroup_only)',
  access: 'member',
  cacheable: true,
  bots: false,
  params: { ...groupPath, direct_subgroup_only: p.def(s.bool(), false) },
  minFeatureLevel: 127,
  openapiPath: '/user_groups/{user_group_id}/subgroups',
});

/** zerver/views/user_groups.py edit_user_group: what is given changes; a setting's `old`, when given, must be current. */
export const updateUserGroup = operation<Record<string, never>>()({
  name: 'update-user-group',
  method: 'PATCH',
  path: '/user_groups/{user_group_id}',
  summary: 'Rename a user group, change its description or permission settings, or reactivate it',
  access: 'member',
  bots: false,
  params: {
    ...groupPath,
    name: p.opt(s.string()),
    description: p.opt(s.string()),
    ...permissionParams(groupSettingChange, [{ before: 260, value: newValueOnly }]),
    deactivated: p.opt(s.bool(), { minFeatureLevel: 386, doc: 'false reactivates a deactivated group' }),
  },
  idempotent: true,
  openapiPath: '/user_groups/{user_group_id}',
});

/** Groups are deactivated, never deleted: DELETE /user_groups/{id} went at feature level 294. */
export const deactivateUserGroup = operation<Record<string, never>>()({
  name: 'deactivate-user-group',
  method: 'POST',
  path: '/user_groups/{user_group_id}/deactivate',
  summary: 'Deactivate a user group that no group or setting uses',
  access: 'user',
  params: groupPath,
  minFeatureLevel: 290,
});

// Before 317 the answer to creating a group has no `group_id`: it is found by the group's name.
declareOlder(createUserGroup, [
  {
    before: 317,
    calls: (params) => [olderCall(createUserGroup, params)],
    response: async (body, { name }, fetch) => {
      const { user_groups } = await fetch(getUserGroups, {});
      const created = user_groups.find((g) => g.name === name);
      return created ? { ...body, group_id: created.id } : body;
    },
  },
]);

// Before 311 subgroups change through their own endpoint (from 127): members first, then subgroups.
declareOlder(updateUserGroupMembers, [
  {
    before: 311,
    for: ['add_subgroups', 'delete_subgroups'],
    calls: ({ user_group_id, add, delete: remove, add_subgroups, delete_subgroups }) => [
      ...(add !== undefined || remove !== undefined || (add_subgroups === undefined && delete_subgroups === undefined)
        ? [olderCall(updateUserGroupMembers, { user_group_id, add, delete: remove })]
        : []),
      ...(add_subgroups !== undefined || delete_subgroups !== undefined
        ? [olderCall(updateUserGroupSubgroups, { user_group_id, add: add_subgroups, delete: delete_subgroups })]
        : []),
    ],
  },
]);

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const groupsOps = {
  createUserGroup,
  getUserGroups,
  getUserGroupMembers,
  getIsUserGroupMember,
  updateUserGroup,
  deactivateUserGroup,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
  getUserGroupSubgroups,
} as const;
