import { getUsers } from '../../api/operations/users.js';
import { ROLE_NAMES, type Role, type User } from '../../api/types.js';
import { defineCommand, opt } from '../command.js';
import { usageError } from '../errors.js';
import type { OutputFlags } from '../output/output.js';

/** Every field of the 2.1 user object, in display order. */
export const USER_FIELDS = [
  'user_id', 'email', 'delivery_email', 'full_name', 'role', 'is_active', 'is_owner', 'is_admin', 'is_guest', 'is_bot',
  'bot_type', 'bot_owner_id', 'date_joined', 'timezone', 'avatar_url', 'avatar_version', 'is_imported_stub', 'is_deleted',
  'profile_data',
] as const;

const USER_COLUMNS = ['user_id', 'full_name', 'email', 'delivery_email', 'role', 'is_active', 'is_bot', 'date_joined'] as const;

export const ROLE_BY_NAME: Record<string, Role> = Object.fromEntries(
  Object.entries(ROLE_NAMES).map(([code, name]) => [name, Number(code) as Role]),
);

/** `owner`, `admin` ... or a wire value (`100`). */
export function parseRole(value: string): Role {
  const role = ROLE_BY_NAME[value.toLowerCase()] ?? (Object.keys(ROLE_NAMES).includes(value) ? (Number(value) as Role) : undefined);
  if (role === undefined) throw usageError(`unknown role "${value}"`, `roles: ${Object.values(ROLE_NAMES).join(', ')}`);
  return role;
}

/** `1,2,3` into user IDs. */
export function parseIds(value: string, flag: string): number[] {
  const ids = value.split(',').map((v) => v.trim()).filter(Boolean);
  if (!ids.length || ids.some((v) => !/^\d+$/.test(v))) throw usageError(`${flag} takes comma-separated user IDs, not "${value}"`);
  return ids.map(Number);
}

export const commands = [
  defineCommand({
    path: ['users', 'list'],
    aliases: ['ls'],
    summary: 'list the users of the organization',
    description:
      'Lists active and deactivated users and bots (GET /users). Filters apply on top; --ids asks the server for just those users.',
    examples: [
      'chatctl users list',
      'chatctl users list --role admin --active',
      'chatctl users list --json | jq -r \'.[] | select(.is_bot) | .email\'',
      'chatctl users list --fields user_id,delivery_email,role --format csv',
    ],
    options: [
      { flags: '--role <role>', description: 'only users with this role (owner, admin, moderator, member, guest)' },
      { flags: '--active', description: 'only active users' },
      { flags: '--deactivated', description: 'only deactivated users' },
      { flags: '--bots', description: 'only bots' },
      { flags: '--humans', description: 'only human users' },
      { flags: '--ids <ids>', description: 'only these user IDs (comma-separated)' },
      { flags: '--custom-fields', description: 'include custom profile fields (profile_data)' },
    ],
    output: { fields: USER_FIELDS, columns: USER_COLUMNS },
    async run(opts, ctx) {
      if (opt.bool(opts, 'active') && opt.bool(opts, 'deactivated')) throw usageError('--active and --deactivated exclude each other');
      if (opt.bool(opts, 'bots') && opt.bool(opts, 'humans')) throw usageError('--bots and --humans exclude each other');
      const role = opt.str(opts, 'role') !== undefined ? parseRole(opt.str(opts, 'role')!) : undefined;
      const ids = opt.str(opts, 'ids') !== undefined ? parseIds(opt.str(opts, 'ids')!, '--ids') : undefined;
      const out = ctx.output({ fields: USER_FIELDS, columns: USER_COLUMNS }, opts as OutputFlags);
      const client = await ctx.client();
      // The API's default (client_gravatar) leaves Gravatar URLs to the client; compute them only when asked.
      const wantsAvatars = (opt.str(opts, 'fields') ?? '').split(',').includes('avatar_url');
      const { members } = await client.call(getUsers, {
        client_gravatar: wantsAvatars ? false : undefined,
        include_custom_profile_fields: opt.bool(opts, 'customFields') || undefined,
        user_ids: ids,
      });
      const keep = (u: User) =>
        (role === undefined || u.role === role) &&
        (!opt.bool(opts, 'active') || u.is_active) &&
        (!opt.bool(opts, 'deactivated') || !u.is_active) &&
        (!opt.bool(opts, 'bots') || u.is_bot) &&
        (!opt.bool(opts, 'humans') || !u.is_bot);
      await out.list(members.filter(keep));
    },
  }),
];
