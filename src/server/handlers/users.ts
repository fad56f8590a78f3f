/** Listing, reading, creating, updating, deactivating and reactivating users. */
import { badRequest, mustBe } from '../../api/errors.js';
import {
  createUser,
  deactivateUser,
  getOwnUser,
  getUser,
  getUserByEmail,
  getUsers,
  reactivateUser,
  updateUser,
  updateUserByEmail,
  type ProfileDataUpdate,
} from '../../api/operations/users.js';
import type { Role } from '../../api/types.js';
import { bind, bindAsync, callerOf, type Binding, type HandlerContext } from '../context.js';
import { deactivate } from '../model/deactivation.js';
import { updateProfileData } from '../model/profile-fields.js';
import {
  accessUser,
  activeUserIds,
  activeUsers,
  botAdminIds,
  checkBotCreationPolicy,
  checkBotNameAvailable,
  emitWithPerson,
  gravatarUrl,
  insertUser,
  isAdmin,
  isGuest,
  isLastOwner,
  isOwner,
  listUsersForView,
  notifyPersonUpdate,
  policyLetsSee,
  userById,
  userByPathEmail,
  userView,
  type UserRow,
} from '../model/users.js';
import { directSystemGroups } from '../model/system-groups.js';
import { newEmailProblem, validateFullName, validateNewEmail } from '../model/validation.js';
import { holds } from '../permissions.js';
import { getSetting } from '../realm.js';
import { hashPassword } from '../secrets.js';

function viewOf(ctx: HandlerContext, p: { client_gravatar: boolean; include_custom_profile_fields: boolean }) {
  return userView(ctx.db, ctx.caller, { clientGravatar: p.client_gravatar, includeCustomProfileFields: p.include_custom_profile_fields }, ctx.realmUrl);
}

const maxMessageId = (ctx: HandlerContext): number =>
  (ctx.db.prepare('SELECT coalesce(max(message_id), -1) AS id FROM user_messages WHERE user_id = ?').get(callerOf(ctx).id) as { id: number }).id;

/** The role a request asks for: `role`, or what the legacy is_admin/is_guest pair (before level 8) amounts to. */
function requestedRole(target: UserRow, p: { role?: Role; is_admin?: boolean; is_guest?: boolean }): Role | undefined {
  if (p.role !== undefined) return p.role;
  if (p.is_admin === undefined && p.is_guest === undefined) return undefined;
  const admin = p.is_admin ?? isAdmin(target);
  const guest = p.is_guest ?? isGuest(target);
  if (admin && guest) throw badRequest('Guests cannot be organization administrators');
  if (admin) return isAdmin(target) ? target.role : 200;
  if (guest) return 600;
  // Unmaking an administrator or a guest leaves a member; moderators and members stay as they are.
  return isAdmin(target) || isGuest(target) ? 400 : target.role;
}

function changeRole(ctx: HandlerContext, target: UserRow, role: Role): void {
  const db = ctx.db;
  db.prepare('UPDATE users SET role = ? WHERE id = ?').run(role, target.id);
  notifyPersonUpdate(db, ctx, { user_id: target.id, role });
  // System group membership follows the role; clients keeping group members learn of it as a server tells them.
  const before = directSystemGroups(target.role);
  const after = directSystemGroups(role);
  const groupId = (name: string) => db.prepare('SELECT id FROM user_groups WHERE name = ? AND is_system_group = 1').pluck().get(name) as number | undefined;
  const everyone = activeUserIds(db);
  for (const [op, names] of [
    ['remove_members', before.filter((g) => !after.includes(g))],
    ['add_members', after.filter((g) => !before.includes(g))],
  ] as const) {
    for (const name of names) {
      const id = groupId(name);
      if (id !== undefined) ctx.emit({ type: 'user_group', op, group_id: id, user_ids: [target.id] }, everyone);
    }
  }
}

function changeFullName(ctx: HandlerContext, target: UserRow, name: string): void {
  ctx.db.prepare('UPDATE users SET full_name = ? WHERE id = ?').run(name, target.id);
  notifyPersonUpdate(ctx.db, ctx, { user_id: target.id, full_name: name });
  if (target.is_bot) ctx.emit({ type: 'realm_bot', op: 'update', bot: { user_id: target.id, full_name: name } }, botAdminIds(ctx.db, target));
}

function changeEmail(ctx: HandlerContext, target: UserRow, raw: string): void {
  const db = ctx.db;
  const email = raw.trim();
  const problem = newEmailProblem(db, email);
  if (problem) throw badRequest(problem);
  if (db.prepare('SELECT 1 FROM users WHERE email = ? COLLATE NOCASE AND id != ?').get(email, target.id)) {
    throw badRequest(`Email '${email}' already in use`);
  }
  // A Gravatar avatar follows the address: a new version tells clients to fetch it again.
  const version = target.avatar_version + 1;
  db.prepare('UPDATE users SET email = ?, avatar_version = ? WHERE id = ?').run(email, version, target.id);
  const policy = getSetting(db, 'email_address_visibility');
  const everyone = activeUsers(db);
  const seeing = everyone.filter((v) => target.is_bot || v.id === target.id || policyLetsSee(policy, v)).map((v) => v.id);
  ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: target.id, delivery_email: email } }, seeing);
  // The API e-mail is the real one only when everyone may see real addresses.
  if (target.is_bot || policy === 1) notifyPersonUpdate(db, ctx, { user_id: target.id, new_email: email });
  const avatar = gravatarUrl(email, version);
  notifyPersonUpdate(db, ctx, { user_id: target.id, avatar_source: 'G', avatar_url: avatar, avatar_url_medium: `${avatar}&s=500`, avatar_version: version });
}

interface UserUpdate {
  full_name?: string;
  role?: Role;
  profile_data?: ProfileDataUpdate[];
  new_email?: string;
  is_admin?: boolean;
  is_guest?: boolean;
}

/** A server's update_user: access, then role, name, profile data and e-mail, each checked before it applies. */
function updateUserAs(ctx: HandlerContext, found: UserRow | undefined, p: UserUpdate): Record<string, never> {
  const db = ctx.db;
  const caller = callerOf(ctx);
  const target = accessUser(caller, found, { allowDeactivated: true, allowBots: true, forAdmin: true });
  // The API document's rule (an owner holding the permission); a server asks for an administrator holding it.
  if (p.new_email !== undefined && !(isOwner(caller) && holds(caller, 'can_change_user_emails'))) {
    throw badRequest('User not authorized to change user emails');
  }
  const role = requestedRole(target, p);
  if (role !== undefined && role !== target.role) {
    if ((role === 100 || target.role === 100) && !isOwner(caller)) throw mustBe('owner');
    if (!isAdmin(caller)) throw mustBe('administrator');
    if (isLastOwner(db, target)) throw badRequest('The owner permission cannot be removed from the only organization owner.');
    changeRole(ctx, target, role);
  }
  // A blank or unchanged name is ignored rather than refused.
  if (p.full_name !== undefined && p.full_name !== target.full_name && p.full_name.trim() !== '') {
    const name = validateFullName(db, p.full_name, target.id);
    if (name !== target.full_name) changeFullName(ctx, target, name);
  }
  if (p.profile_data) updateProfileData(db, ctx, target, p.profile_data);
  if (p.new_email !== undefined && p.new_email.trim() !== target.email) changeEmail(ctx, target, p.new_email);
  return {};
}

function reactivate(ctx: HandlerContext, user: UserRow): void {
  const db = ctx.db;
  const caller = callerOf(ctx);
  db.prepare('UPDATE users SET is_active = 1 WHERE id = ?').run(user.id);
  notifyPersonUpdate(db, ctx, { user_id: user.id, is_active: true });
  if (!user.is_bot) return;
  // A bot whose owner is gone passes to whoever brings it back.
  const owner = user.bot_owner_id === null ? undefined : userById(db, user.bot_owner_id);
  let bot = user;
  if (owner && !owner.is_active) {
    db.prepare('UPDATE users SET bot_owner_id = ? WHERE id = ?').run(caller.id, user.id);
    bot = { ...user, bot_owner_id: caller.id };
    notifyPersonUpdate(db, ctx, { user_id: user.id, bot_owner_id: caller.id });
    ctx.emit({ type: 'realm_bot', op: 'update', bot: { user_id: user.id, owner_id: caller.id } }, botAdminIds(db, bot));
  }
  ctx.emit({ type: 'realm_bot', op: 'update', bot: { user_id: user.id, is_active: true } }, botAdminIds(db, bot));
}

export const bindings: Binding[] = [
  bind(getUsers, (ctx, p) => {
    const view = viewOf(ctx, p);
    const wanted = p.user_ids ? new Set(p.user_ids) : null;
    if (wanted) {
      for (const id of wanted) if (!userById(ctx.db, id)) throw badRequest(`Invalid user ID: ${id}`);
    }
    return { members: listUsersForView(ctx.db).filter((u) => !wanted || wanted.has(u.id)).map(view) };
  }),

  bind(getOwnUser, (ctx) => {
    // The documented object has no bot fields, whoever asks.
    const { bot_type: _type, bot_owner_id: _owner, ...me } = viewOf(ctx, { client_gravatar: false, include_custom_profile_fields: false })(callerOf(ctx));
    return { ...me, max_message_id: maxMessageId(ctx) };
  }),

  bind(getUser, (ctx, p) => {
    const target = accessUser(callerOf(ctx), userById(ctx.db, p.user_id), { allowDeactivated: true, allowBots: true, forAdmin: false });
    return { user: viewOf(ctx, p)(target) };
  }),

  bind(getUserByEmail, (ctx, p) => {
    const target = accessUser(callerOf(ctx), userByPathEmail(ctx.db, p.email), { allowDeactivated: true, allowBots: true, forAdmin: false });
    return { user: viewOf(ctx, p)(target) };
  }),

  // Async: the password is hashed off the event loop before the write transaction opens; what was checked
  // before the hash is checked again inside it, as another request may have taken the address meanwhile.
  bindAsync(createUser, async (ctx, p) => {
    const db = ctx.db;
    const check = () => {
      // Creating accounts without an invitation is a permission of its own, beyond being an administrator.
      if (!holds(callerOf(ctx), 'can_create_users')) throw badRequest('User not authorized to create users');
      return { name: validateFullName(db, p.full_name), email: validateNewEmail(db, p.email) };
    };
    check();
    if (p.password.length < 6) throw badRequest('The password is too weak.');
    const passwordHash = await hashPassword(p.password);
    return ctx.tx(() => {
      const { name, email } = check();
      const user = insertUser(db, { email, full_name: name, password_hash: passwordHash }, ctx.nowSeconds());
      // date_joined is the creation time until the account's first login, then that login's (2.1).
      db.prepare('UPDATE users SET date_joined_at_first_login = 1 WHERE id = ?').run(user.id);
      subscribeToDefaultChannels(ctx, user.id);
      emitWithPerson(db, ctx, ctx.realmUrl, user, (person) => ({ type: 'realm_user', op: 'add', person }));
      return { user_id: user.id };
    });
  }),

  bind(updateUser, (ctx, p) => updateUserAs(ctx, userById(ctx.db, p.user_id), p)),

  bind(updateUserByEmail, (ctx, p) => updateUserAs(ctx, userByPathEmail(ctx.db, p.email), p)),

  bind(deactivateUser, (ctx, p) => {
    const db = ctx.db;
    const caller = callerOf(ctx);
    const target = accessUser(caller, userById(db, p.user_id), { forAdmin: true });
    if (isOwner(target) && !isOwner(caller)) throw mustBe('owner');
    if (isLastOwner(db, target)) throw badRequest('Cannot deactivate the only organization owner');
    // deactivation_notification_comment asks for an e-mail to the user; the embedded server sends no mail.
    deactivate(ctx.db, ctx, target, true);
    return {};
  }),

  bind(reactivateUser, (ctx, p) => {
    const db = ctx.db;
    const caller = callerOf(ctx);
    const target = accessUser(caller, userById(db, p.user_id), { allowDeactivated: true, allowBots: true, forAdmin: true });
    if (target.is_bot) {
      checkBotCreationPolicy(db, caller, target.bot_type ?? 1);
      checkBotNameAvailable(db, target.full_name, true);
    }
    reactivate(ctx, target);
    return {};
  }),
];

/** Adds the user to the organization's default channels (what a new account starts with). */
export function subscribeToDefaultChannels(ctx: HandlerContext, userId: number): void {
  ctx.db
    .prepare('INSERT OR IGNORE INTO subscriptions (user_id, stream_id) SELECT ?, id FROM streams WHERE is_default = 1 AND is_archived = 0')
    .run(userId);
}
