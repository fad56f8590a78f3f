import {
  createUserGroup,
  deactivateUserGroup,
  getUserGroupMembers,
  getUserGroups,
  GROUP_PERMISSION_SETTINGS,
  type GroupPermissionSetting,
  updateUserGroup,
  updateUserGroupMembers,
  type UserGroup,
} from '../../api/operations/groups.js';
import type { ChatClient } from '../../client/client.js';
import { defineCommand } from '../command/command.js';
import { confirmOrExit } from '../bulk/confirm.js';
import { printDryRun } from '../bulk/dry-run.js';
import { usageError } from '../core/errors.js';
import { arg, flag, type Values } from '../core/flags.js';
import { MEMBER_OUTPUT, memberRows } from '../lookup/members.js';
import type { OutputSpec } from '../output/output.js';
import { matchIdsOrNames, requireResolved, resolveUserIds } from '../lookup/resolve.js';
import { plural } from '../core/units.js';

const GROUP_FIELDS = [
  'id',
  'name',
  'description',
  'members',
  'direct_subgroup_ids',
  'is_system_group',
  'deactivated',
  'date_created',
  'creator_id',
  ...GROUP_PERMISSION_SETTINGS,
] as const;
const GROUP_COLUMNS = ['id', 'name', 'description', 'members', 'direct_subgroup_ids', 'is_system_group'] as const;
const GROUP_OUTPUT: OutputSpec = { fields: GROUP_FIELDS, columns: GROUP_COLUMNS, times: { date_created: 's' }, key: ['id', 'name'] };

/** Groups by ID or name (system groups have names such as role:administrators), all or an error. */
function groupIds(groups: readonly UserGroup[], refs: readonly string[]): number[] {
  return requireResolved(
    matchIdsOrNames(refs, groups, (name) => `Invalid user group: ${name}`),
    refs,
  );
}

async function allGroups(client: ChatClient): Promise<UserGroup[]> {
  return (await client.call(getUserGroups, { include_deactivated_groups: true })).user_groups;
}

/** How the person asked for what older servers lack. */
const CREATE_LABELS = { subgroups: '--subgroup' };

/** The changes `groups members` makes; with none of them, it lists the members. */
const MEMBER_CHANGE_FLAGS = {
  add: flag.list('--add <users...>', 'users to add (IDs or e-mails)'),
  remove: flag.list('--remove <users...>', 'users to remove (IDs or e-mails)'),
  addSubgroup: flag.list('--add-subgroup <groups...>', 'groups to add as subgroups (IDs or names)'),
  removeSubgroup: flag.list('--remove-subgroup <groups...>', 'subgroups to remove (IDs or names)'),
};

/** `--set can_manage_group=admins`: a permission setting and the group (ID or name) to give it. */
function settingAssignment(value: string, name: string): { setting: GroupPermissionSetting; group: string } {
  const at = value.indexOf('=');
  const setting = GROUP_PERMISSION_SETTINGS.find((s) => s === value.slice(0, at));
  if (at < 0 || setting === undefined || at === value.length - 1) {
    throw usageError(`${name} takes SETTING=GROUP with SETTING one of ${GROUP_PERMISSION_SETTINGS.join(', ')}, not "${value}"`);
  }
  return { setting, group: value.slice(at + 1) };
}

const changes = (o: Values<typeof MEMBER_CHANGE_FLAGS>): boolean => o.add.length + o.remove.length + o.addSubgroup.length + o.removeSubgroup.length > 0;

export const commands = [
  defineCommand({
    path: ['groups', 'list'],
    aliases: ['ls'],
    summary: 'list user groups',
    description:
      'Lists the user groups (GET /user_groups): their direct members and subgroups by ID, and the permission ' +
      'settings. System groups (role:administrators, role:everyone ...) are included unless --no-system.',
    examples: [
      'chatctl groups list',
      'chatctl groups list --no-system --fields id,name,members',
      "chatctl groups list --json | jq '.[] | {name, n: (.members | length)}'",
    ],
    options: {
      deactivated: flag.bool('--deactivated', 'include deactivated groups'),
      system: flag.bool('--no-system', 'leave out system groups'),
    },
    output: GROUP_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const { user_groups } = await client.call(getUserGroups, { include_deactivated_groups: opts.deactivated || undefined });
      await out.list(user_groups.filter((g) => opts.system || !g.is_system_group));
    },
  }),

  defineCommand({
    path: ['groups', 'members'],
    summary: 'list or change the members and subgroups of a user group',
    description:
      'With no changes, lists the members of GROUP (by ID or name): everyone in it, through subgroups too, ' +
      'or only direct members with --direct. With --add, --remove, --add-subgroup or --remove-subgroup, changes ' +
      'them in one request (POST /user_groups/{id}/members): all of it happens, or none. Users are named by ID ' +
      'or e-mail, groups by ID or name. What is already so (a member added, a subgroup removed) is left out of ' +
      'the request and counted unchanged, so a run can be repeated. Removing asks for confirmation on a ' +
      'terminal; elsewhere pass --yes.',
    examples: [
      'chatctl groups members design',
      'chatctl groups members design --add ada@example.com 12 --remove old@example.com --yes',
      'chatctl groups members 7 --add-subgroup frontend backend',
      'chatctl groups members design --direct --json',
    ],
    args: { group: arg.required('user group ID or name') },
    options: {
      ...MEMBER_CHANGE_FLAGS,
      direct: flag.bool('--direct', 'list only direct members, not those of subgroups'),
    },
    output: MEMBER_OUTPUT,
    mutating: true,
    destructive: true,
    check(opts) {
      if (changes(opts) && opts.direct) throw usageError('--direct is for listing members, not for changes');
    },
    async run(opts, ctx) {
      const { add, remove, addSubgroup: addSub, removeSubgroup: removeSub, group: groupRef } = opts;
      const changing = changes(opts);
      const out = changing ? null : ctx.output(opts);
      const client = await ctx.client();
      const groups = await allGroups(client);
      const [groupId] = groupIds(groups, [groupRef]);
      if (!changing) {
        const { members } = await client.call(getUserGroupMembers, { user_group_id: groupId!, direct_member_only: opts.direct || undefined });
        await out!.list(await memberRows(client, members));
        return;
      }
      // A server refuses the whole request for one member already added or already removed, so what is
      // already so (the group's direct members and subgroups, from the list just read) is left out: a run
      // repeated changes nothing and says so.
      const group = groups.find((g) => g.id === groupId);
      const members = new Set(group?.members);
      const subgroups = new Set(group?.direct_subgroup_ids);
      // A group the list does not show (an ID the caller cannot see): the server decides.
      const known = group !== undefined;
      const addIds = add.length ? await resolveUserIds(client, add) : [];
      const removeIds = remove.length ? await resolveUserIds(client, remove) : [];
      const unique = (ids: readonly number[]) => [...new Set(ids)];
      // One run cannot both add and remove someone: which would the caller mean?
      const both = (what: string, added: readonly number[], removed: readonly number[], flags: string) => {
        const twice = unique(added).filter((id) => removed.includes(id));
        if (twice.length) throw usageError(`${plural(twice.length, what)} given to both ${flags}: ${twice.join(', ')}`);
      };
      both('user', addIds, removeIds, '--add and --remove');
      both('group', groupIds(groups, addSub), groupIds(groups, removeSub), '--add-subgroup and --remove-subgroup');
      const wanted = {
        add: unique(addIds).filter((id) => !members.has(id)),
        delete: unique(removeIds).filter((id) => !known || members.has(id)),
        add_subgroups: unique(groupIds(groups, addSub)).filter((id) => !subgroups.has(id)),
        delete_subgroups: unique(groupIds(groups, removeSub)).filter((id) => !known || subgroups.has(id)),
      };
      const asked = new Set([...addIds, ...removeIds]).size + new Set(groupIds(groups, [...addSub, ...removeSub])).size;
      const sent = wanted.add.length + wanted.delete.length + wanted.add_subgroups.length + wanted.delete_subgroups.length;
      const unchanged = asked - sent ? `, ${asked - sent} unchanged` : '';
      if (!sent) {
        ctx.info(`chatctl: ${group?.name ?? groupRef}: unchanged: already as asked`);
        return;
      }
      const params = {
        user_group_id: groupId!,
        add: wanted.add.length ? wanted.add : undefined,
        delete: wanted.delete.length ? wanted.delete : undefined,
        add_subgroups: wanted.add_subgroups.length ? wanted.add_subgroups : undefined,
        delete_subgroups: wanted.delete_subgroups.length ? wanted.delete_subgroups : undefined,
      };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(updateUserGroupMembers, params));
        return;
      }
      if (wanted.delete.length || wanted.delete_subgroups.length) {
        const what = [
          wanted.delete.length && plural(wanted.delete.length, 'member'),
          wanted.delete_subgroups.length && plural(wanted.delete_subgroups.length, 'subgroup'),
        ]
          .filter(Boolean)
          .join(' and ');
        await confirmOrExit(ctx, opts.yes, `Remove ${what} from ${group?.name ?? groupRef}?`);
      }
      await client.call(updateUserGroupMembers, params, { signal: ctx.signal });
      const done = [
        wanted.add.length && `${wanted.add.length} added`,
        wanted.delete.length && `${wanted.delete.length} removed`,
        wanted.add_subgroups.length && `${plural(wanted.add_subgroups.length, 'subgroup')} added`,
        wanted.delete_subgroups.length && `${plural(wanted.delete_subgroups.length, 'subgroup')} removed`,
      ].filter(Boolean);
      ctx.info(`chatctl: ${group?.name ?? groupRef}: ${done.join(', ')}${unchanged}`);
    },
  }),

  defineCommand({
    path: ['groups', 'create'],
    summary: 'create a user group',
    description:
      'Creates a user group (POST /user_groups/create) with a description and, optionally, members (IDs or ' +
      "e-mails) and subgroups (IDs or names). Prints the new group's ID.",
    examples: [
      'chatctl groups create design --description "Design team" --member ada@example.com 12',
      'chatctl groups create platform --description "Everyone on platform" --subgroup frontend backend --json',
    ],
    args: { name: arg.required("the group's name") },
    options: {
      description: flag.string('--description <text>', 'what the group is for (required)'),
      member: flag.list('--member <users...>', 'initial members (IDs or e-mails)'),
      subgroup: flag.list('--subgroup <groups...>', 'initial subgroups (IDs or names)'),
    },
    output: { fields: ['id', 'name'] },
    mutating: true,
    async run(opts, ctx) {
      const { description, member: members, subgroup: subgroups } = opts;
      if (description === undefined) throw usageError('--description is required (it may be "")');
      const out = ctx.output(opts);
      const client = await ctx.client();
      const params = {
        name: opts.name,
        description,
        members: members.length ? await resolveUserIds(client, members) : [],
        subgroups: subgroups.length ? groupIds(await allGroups(client), subgroups) : undefined,
      };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(createUserGroup, params, { labels: CREATE_LABELS }));
        return;
      }
      const { group_id } = await client.call(createUserGroup, params, { signal: ctx.signal, labels: CREATE_LABELS });
      await out.item({ id: group_id, name: params.name });
    },
  }),

  defineCommand({
    path: ['groups', 'update'],
    summary: 'rename a user group, change its description or permission settings',
    description:
      'Changes GROUP (by ID or name) in one request (PATCH /user_groups/{id}): --name, --description, and ' +
      '--set SETTING=GROUP for each permission setting to give to a group (by ID or name). Each setting is sent ' +
      'with the value just read as its old value, so a change made meanwhile by someone else is refused, not undone.',
    examples: ['chatctl groups update design --name ux --description "User experience"', 'chatctl groups update ux --set can_manage_group=role:administrators'],
    args: { group: arg.required('user group ID or name') },
    options: {
      name: flag.string('--name <name>', 'new name'),
      description: flag.string('--description <text>', 'new description'),
      set: flag.list('--set <setting=group...>', 'give a permission setting to a group (ID or name)', settingAssignment),
    },
    mutating: true,
    check(opts) {
      if (opts.name === undefined && opts.description === undefined && !opts.set.length)
        throw usageError('nothing to change: give --name, --description or --set');
    },
    async run(opts, ctx) {
      const client = await ctx.client();
      const groups = await allGroups(client);
      const [id] = groupIds(groups, [opts.group]);
      const group = groups.find((g) => g.id === id)!;
      const settings = Object.fromEntries(opts.set.map(({ setting, group: ref }) => [setting, { new: groupIds(groups, [ref])[0]!, old: group[setting] }]));
      const params = { user_group_id: group.id, name: opts.name, description: opts.description, ...settings };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(updateUserGroup, params));
        return;
      }
      await client.call(updateUserGroup, params, { signal: ctx.signal });
      ctx.info(`chatctl: ${group.name}: updated`);
    },
  }),

  defineCommand({
    path: ['groups', 'deactivate'],
    summary: 'deactivate a user group (or reactivate it)',
    description:
      'Deactivates GROUP (POST /user_groups/{id}/deactivate): it can no longer be mentioned or hold permissions, and ' +
      'is listed only with --deactivated. A group still used (a subgroup of an active group, or named in a ' +
      "group's permission settings) is refused, and the server's answer says where. --undo reactivates it " +
      '(PATCH /user_groups/{id} with deactivated=false). Asks for confirmation on a terminal; elsewhere pass --yes.',
    examples: ['chatctl groups deactivate old-team --yes', 'chatctl groups deactivate old-team --undo'],
    args: { group: arg.required('user group ID or name') },
    options: { undo: flag.bool('--undo', 'reactivate the group instead') },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const client = await ctx.client();
      const groups = await allGroups(client);
      const [id] = groupIds(groups, [opts.group]);
      const name = groups.find((g) => g.id === id)?.name ?? opts.group;
      const reactivation = { user_group_id: id!, deactivated: false };
      if (opts.dryRun) {
        printDryRun(ctx, opts.undo ? await client.prepare(updateUserGroup, reactivation) : await client.prepare(deactivateUserGroup, { user_group_id: id! }));
        return;
      }
      if (opts.undo) await client.call(updateUserGroup, reactivation, { signal: ctx.signal });
      else {
        await confirmOrExit(ctx, opts.yes, `Deactivate the user group ${name}?`);
        await client.call(deactivateUserGroup, { user_group_id: id! }, { signal: ctx.signal });
      }
      ctx.info(`chatctl: ${name}: ${opts.undo ? 'reactivated' : 'deactivated'}`);
    },
  }),
];
