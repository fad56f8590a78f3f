import {
  createUserGroup,
  getUserGroupMembers,
  getUserGroups,
  GROUP_PERMISSION_SETTINGS,
  updateUserGroupMembers,
  type UserGroup,
} from '../../api/operations/groups.js';
import { getUsers } from '../../api/operations/users.js';
import type { ChatClient } from '../../client/client.js';
import { defineLegacyCommand, opt, type CommandSpec } from '../legacy-command.js';
import { confirmOrExit } from '../confirm.js';
import { printDryRun } from '../dry-run.js';
import { usageError } from '../errors.js';
import type { OutputFlags, OutputSpec } from '../output/output.js';
import { matchIdsOrNames, requireResolved, resolveUserIds } from '../resolve.js';

const GROUP_FIELDS = [
  'id', 'name', 'description', 'members', 'direct_subgroup_ids', 'is_system_group', 'deactivated', 'date_created', 'creator_id',
  ...GROUP_PERMISSION_SETTINGS,
] as const;
const GROUP_COLUMNS = ['id', 'name', 'description', 'members', 'direct_subgroup_ids', 'is_system_group'] as const;
const GROUP_OUTPUT: OutputSpec = { fields: GROUP_FIELDS, columns: GROUP_COLUMNS, times: { date_created: 's' } };


const MEMBER_FIELDS = ['user_id', 'email', 'full_name', 'is_active', 'is_bot'] as const;
const MEMBER_COLUMNS = ['user_id', 'full_name', 'email'] as const;

/** Groups by ID or name (system groups have names such as role:administrators), all or an error. */
function groupIds(groups: readonly UserGroup[], refs: readonly string[]): number[] {
  return requireResolved(matchIdsOrNames(refs, groups, (name) => `Invalid user group: ${name}`), refs);
}

async function allGroups(client: ChatClient): Promise<UserGroup[]> {
  return (await client.call(getUserGroups, { include_deactivated_groups: true })).user_groups;
}

/** How the person asked for what older servers lack. */
const CREATE_LABELS = { subgroups: '--subgroup' };

export const commands: CommandSpec[] = [
  defineLegacyCommand({
    path: ['groups', 'list'],
    aliases: ['ls'],
    summary: 'list user groups',
    description:
      'Lists the user groups (GET /user_groups): their direct members and subgroups by ID, and the permission ' +
      'settings. System groups (role:administrators, role:everyone ...) are included unless --no-system.',
    examples: ['chatctl groups list', 'chatctl groups list --no-system --fields id,name,members', 'chatctl groups list --json | jq \'.[] | {name, n: (.members | length)}\''],
    options: [
      { flags: '--deactivated', description: 'include deactivated groups' },
      { flags: '--no-system', description: 'leave out system groups' },
    ],
    output: GROUP_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts as OutputFlags);
      const client = await ctx.client();
      const { user_groups } = await client.call(getUserGroups, { include_deactivated_groups: opt.bool(opts, 'deactivated') || undefined });
      await out.list(user_groups.filter((g) => opts.system !== false || !g.is_system_group));
    },
  }),

  defineLegacyCommand({
    path: ['groups', 'members'],
    summary: 'list or change the members and subgroups of a user group',
    description:
      'With no changes, lists the members of GROUP (by ID or name): everyone in it, through subgroups too, ' +
      'or only direct members with --direct. With --add, --remove, --add-subgroup or --remove-subgroup, changes ' +
      'them in one request (POST /user_groups/{id}/members): all of it happens, or none. Users are named by ID ' +
      'or e-mail, groups by ID or name. Removing asks for confirmation on a terminal; elsewhere pass --yes.',
    examples: [
      'chatctl groups members design',
      'chatctl groups members design --add ada@example.com 12 --remove old@example.com --yes',
      'chatctl groups members 7 --add-subgroup frontend backend',
      'chatctl groups members design --direct --json',
    ],
    args: [{ name: 'group', description: 'user group ID or name', required: true }],
    options: [
      { flags: '--add <users...>', description: 'users to add (IDs or e-mails)' },
      { flags: '--remove <users...>', description: 'users to remove (IDs or e-mails)' },
      { flags: '--add-subgroup <groups...>', description: 'groups to add as subgroups (IDs or names)' },
      { flags: '--remove-subgroup <groups...>', description: 'subgroups to remove (IDs or names)' },
      { flags: '--direct', description: 'list only direct members, not those of subgroups' },
    ],
    output: { fields: MEMBER_FIELDS, columns: MEMBER_COLUMNS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const add = opt.list(opts, 'add');
      const remove = opt.list(opts, 'remove');
      const addSub = opt.list(opts, 'addSubgroup');
      const removeSub = opt.list(opts, 'removeSubgroup');
      const changing = add.length + remove.length + addSub.length + removeSub.length > 0;
      if (changing && opt.bool(opts, 'direct')) throw usageError('--direct is for listing members, not for changes');
      const out = changing ? null : ctx.output(opts as OutputFlags);
      const client = await ctx.client();
      const groups = await allGroups(client);
      const groupRef = opt.str(opts, 'group')!;
      const [groupId] = groupIds(groups, [groupRef]);
      if (!changing) {
        const { members } = await client.call(getUserGroupMembers, { user_group_id: groupId!, direct_member_only: opt.bool(opts, 'direct') || undefined });
        const { members: users } = await client.call(getUsers, {});
        const byId = new Map(users.map((u) => [u.user_id, u]));
        await out!.list(members.map((id) => byId.get(id) ?? { user_id: id }));
        return;
      }
      const params = {
        user_group_id: groupId!,
        add: add.length ? await resolveUserIds(client, add) : undefined,
        delete: remove.length ? await resolveUserIds(client, remove) : undefined,
        add_subgroups: addSub.length ? groupIds(groups, addSub) : undefined,
        delete_subgroups: removeSub.length ? groupIds(groups, removeSub) : undefined,
      };
      if (opt.bool(opts, 'dryRun')) {
        printDryRun(ctx, await client.prepare(updateUserGroupMembers, params));
        return;
      }
      if (remove.length || removeSub.length) {
        const what = [remove.length && `${remove.length} member${remove.length === 1 ? '' : 's'}`, removeSub.length && `${removeSub.length} subgroup${removeSub.length === 1 ? '' : 's'}`].filter(Boolean).join(' and ');
        await confirmOrExit(ctx, opt.bool(opts, 'yes'), `Remove ${what} from ${groupRef}?`);
      }
      await client.call(updateUserGroupMembers, params, { signal: ctx.signal });
      const done = [
        add.length && `${add.length} added`,
        remove.length && `${remove.length} removed`,
        addSub.length && `${addSub.length} subgroup${addSub.length === 1 ? '' : 's'} added`,
        removeSub.length && `${removeSub.length} subgroup${removeSub.length === 1 ? '' : 's'} removed`,
      ].filter(Boolean);
      ctx.info(`chatctl: ${groupRef}: ${done.join(', ')}`);
    },
  }),

  defineLegacyCommand({
    path: ['groups', 'create'],
    summary: 'create a user group',
    description:
      'Creates a user group (POST /user_groups/create) with a description and, optionally, members (IDs or ' +
      'e-mails) and subgroups (IDs or names). Prints the new group\'s ID.',
    examples: [
      'chatctl groups create design --description "Design team" --member ada@example.com 12',
      'chatctl groups create platform --description "Everyone on platform" --subgroup frontend backend --json',
    ],
    args: [{ name: 'name', description: 'the group\'s name', required: true }],
    options: [
      { flags: '--description <text>', description: 'what the group is for (required)' },
      { flags: '--member <users...>', description: 'initial members (IDs or e-mails)' },
      { flags: '--subgroup <groups...>', description: 'initial subgroups (IDs or names)' },
    ],
    output: { fields: ['id', 'name'] },
    mutating: true,
    async run(opts, ctx) {
      const description = opt.str(opts, 'description');
      if (description === undefined) throw usageError('--description is required (it may be "")');
      const out = ctx.output(opts as OutputFlags);
      const client = await ctx.client();
      const members = opt.list(opts, 'member');
      const subgroups = opt.list(opts, 'subgroup');
      const params = {
        name: opt.str(opts, 'name')!,
        description,
        members: members.length ? await resolveUserIds(client, members) : [],
        subgroups: subgroups.length ? groupIds(await allGroups(client), subgroups) : undefined,
      };
      if (opt.bool(opts, 'dryRun')) {
        printDryRun(ctx, await client.prepare(createUserGroup, params, { labels: CREATE_LABELS }));
        return;
      }
      const { group_id } = await client.call(createUserGroup, params, { signal: ctx.signal, labels: CREATE_LABELS });
      await out.item({ id: group_id, name: params.name });
    },
  }),
];
