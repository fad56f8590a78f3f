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
  type OwnUser,
  type ProfileDataUpdate,
} from '../../api/operations/users.js';
import { BOT_TYPES } from '../../api/operations/bots.js';
import { ROLE } from '../../api/roles.js';
import { StreamedList } from '../../api/streamed-list.js';
import type { Role } from '../../api/roles.js';
import { bind, bindPrepared, callerOf, type Handlers, type HandlerContext } from '../context.js';
import { checkBotCreationPolicy, checkBotNameAvailable } from '../model/bots.js';
import { deactivate } from '../model/deactivation.js';
import { updateProfileData } from '../model/profile-fields.js';
import { changeEmail, changeFullName, changeRole, checkCanCreateUsers, createAccount, newAccountFields, reactivate } from '../model/user-changes.js';
import { keptUserPages } from '../model/kept-user-pages.js';
import { oneUserView, userViewPages } from '../model/user-view.js';
import { accessUser, isAdmin, isGuest, isLastOwner, isOwner, newestMessageIdOf, userById, userByPathEmail, type UserRow } from '../model/users.js';
import { checkNewPassword, validateFullName } from '../model/validation.js';
import { holds } from '../model/user-permissions.js';
import { welcomeNewUser } from '../model/notices.js';

function viewOf(ctx: HandlerContext, p: { client_gravatar: boolean; include_custom_profile_fields: boolean }, target: UserRow) {
  return oneUserView(
    ctx.db,
    ctx.caller,
    { clientGravatar: p.client_gravatar, includeCustomProfileFields: p.include_custom_profile_fields },
    ctx.realmUrl,
    target,
  );
}

/** The role a request asks for: `role`, or what the legacy is_admin/is_guest pair (before level 8) amounts to. */
function requestedRole(target: UserRow, p: { role?: Role; is_admin?: boolean; is_guest?: boolean }): Role | undefined {
  if (p.role !== undefined) return p.role;
  if (p.is_admin === undefined && p.is_guest === undefined) return undefined;
  const admin = p.is_admin ?? isAdmin(target);
  const guest = p.is_guest ?? isGuest(target);
  if (admin && guest) throw badRequest('Guests cannot be organization administrators');
  if (admin) return isAdmin(target) ? target.role : ROLE.admin;
  if (guest) return ROLE.guest;
  // Unmaking an administrator or a guest leaves a member; moderators and members stay as they are.
  return isAdmin(target) || isGuest(target) ? ROLE.member : target.role;
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
    if ((role === ROLE.owner || isOwner(target)) && !isOwner(caller)) throw mustBe('owner');
    if (!isAdmin(caller)) throw mustBe('administrator');
    if (isLastOwner(db, target)) throw badRequest('The owner permission cannot be removed from the only organization owner.');
    changeRole(db, ctx, target, role);
  }
  // A blank or unchanged name is ignored rather than refused.
  if (p.full_name !== undefined && p.full_name !== target.full_name && p.full_name.trim() !== '') {
    const name = validateFullName(db, p.full_name, target.id);
    if (name !== target.full_name) changeFullName(db, ctx, target, name);
  }
  if (p.profile_data) updateProfileData(db, ctx, caller, target, p.profile_data);
  if (p.new_email !== undefined && p.new_email.trim() !== target.email) changeEmail(db, ctx, target, p.new_email);
  return {};
}

export const handlers: Handlers<'users'> = {
  // A page at a time: 100,000 users are 35 MB of JSON, which neither serve nor a client should hold at once.
  getUsers: bind(getUsers, (ctx, p) => {
    const wanted = p.user_ids ? new Set(p.user_ids) : undefined;
    if (wanted) {
      for (const id of wanted) if (!userById(ctx.db, id)) throw badRequest(`Invalid user ID: ${id}`);
    }
    const opts = { clientGravatar: p.client_gravatar, includeCustomProfileFields: p.include_custom_profile_fields };
    // Kept renderings only for whoever writes the answer as JSON (serve): in-process callers get values of their own.
    const pages = ctx.rendersJson
      ? keptUserPages(ctx.db, ctx.caller, opts, ctx.realmUrl, wanted)
      : userViewPages(ctx.db, ctx.caller, opts, ctx.realmUrl, wanted);
    return { members: Array.isArray(pages) ? pages : new StreamedList(pages) };
  }),

  // zerver/views/users.py get_profile_backend: get_users_for_api for the caller alone, with its defaults (custom
  // profile fields included) and every avatar URL given, then max_message_id.
  getOwnUser: bind(getOwnUser, (ctx): OwnUser => {
    const me = callerOf(ctx);
    const { bot_type: botType, ...own } = viewOf(ctx, { client_gravatar: false, include_custom_profile_fields: true }, me);
    // A human's dict has no bot_type there (format_user_row), and the OpenAPI description of this answer allows none.
    return { ...own, ...(me.is_bot ? { bot_type: botType } : {}), max_message_id: newestMessageIdOf(ctx.db, me.id) };
  }),

  getUser: bind(getUser, (ctx, p) => {
    const target = accessUser(callerOf(ctx), userById(ctx.db, p.user_id), { allowDeactivated: true, allowBots: true, forAdmin: false });
    return { user: viewOf(ctx, p, target) };
  }),

  getUserByEmail: bind(getUserByEmail, (ctx, p) => {
    const target = accessUser(callerOf(ctx), userByPathEmail(ctx.db, p.email), { allowDeactivated: true, allowBots: true, forAdmin: false });
    return { user: viewOf(ctx, p, target) };
  }),

  // The password is hashed off the event loop before the write transaction opens; what was checked before
  // the hash is checked again inside it, as another request may have taken the address meanwhile.
  createUser: bindPrepared(
    createUser,
    async (ctx, p) => {
      checkCanCreateUsers(callerOf(ctx));
      newAccountFields(ctx.db, p);
      checkNewPassword(p.password);
      return ctx.hashPassword(p.password);
    },
    (ctx, p, passwordHash) => {
      checkCanCreateUsers(callerOf(ctx));
      const user = createAccount(ctx.db, ctx, ctx.realmUrl, { ...newAccountFields(ctx.db, p), password_hash: passwordHash }, ctx.nowSeconds());
      // zerver/actions/create_user.py do_create_user -> process_new_human_user: the organization has its owner.
      // A batch is a bulk import (zerver/lib/bulk_create.py bulk_create_users): no Welcome Bot message, no
      // signup notice, as before batches went through here, and 10,000 rows stay seconds.
      if (!ctx.batched) welcomeNewUser(ctx, user, { firstUser: false });
      return { user_id: user.id };
    },
  ),

  updateUser: bind(updateUser, (ctx, p) => updateUserAs(ctx, userById(ctx.db, p.user_id), p)),

  updateUserByEmail: bind(updateUserByEmail, (ctx, p) => updateUserAs(ctx, userByPathEmail(ctx.db, p.email), p)),

  deactivateUser: bind(deactivateUser, (ctx, p) => {
    const db = ctx.db;
    const caller = callerOf(ctx);
    const target = accessUser(caller, userById(db, p.user_id), { forAdmin: true });
    if (isOwner(target) && !isOwner(caller)) throw mustBe('owner');
    if (isLastOwner(db, target)) throw badRequest('Cannot deactivate the only organization owner');
    // deactivation_notification_comment asks for an e-mail to the user; the embedded server sends no mail.
    deactivate(ctx.db, ctx, target, true);
    return {};
  }),

  reactivateUser: bind(reactivateUser, (ctx, p) => {
    const db = ctx.db;
    const caller = callerOf(ctx);
    const target = accessUser(caller, userById(db, p.user_id), { allowDeactivated: true, allowBots: true, forAdmin: true });
    if (target.is_bot) {
      checkBotCreationPolicy(db, caller, target.bot_type ?? BOT_TYPES.generic);
      checkBotNameAvailable(db, target.full_name, true);
    }
    reactivate(db, ctx, caller, target);
    return {};
  }),
};
